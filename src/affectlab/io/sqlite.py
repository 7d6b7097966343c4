"""Looking up many keys at once in the SQLite caches (text embeddings, translations, LLM replies)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

KEYS_PER_QUERY = 900  # SQLite's default limit on bound parameters is 999


def select_by_keys(db: sqlite3.Connection, query: str, keys: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The rows ``query`` gives for the distinct ``keys``; ``query`` has one ``{marks}`` where the ``IN (...)`` list
    of parameters goes, and is run once per chunk of keys that SQLite can bind in one statement."""
    unique = list(dict.fromkeys(keys))
    rows: list[tuple[Any, ...]] = []
    for start in range(0, len(unique), KEYS_PER_QUERY):
        chunk = unique[start : start + KEYS_PER_QUERY]
        rows += db.execute(query.format(marks=",".join("?" * len(chunk))), chunk).fetchall()
    return rows
