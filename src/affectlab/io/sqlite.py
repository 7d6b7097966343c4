"""The one persistent memo of the project: values computed once and kept in SQLite by key (text embeddings,
translations, LLM replies), and looking up many keys at once.

SQLite gives atomic, crash-safe commits and concurrent readers without a server; WAL mode lets one writer and many
readers work at once. :class:`SqliteMemo` opens a connection per call, so one memo may be shared by the threads of
the service, and processes may share its file. :func:`memoized` is the read-through step all three caches share:
take what is stored, compute the distinct missing items in chunks, and store each chunk before the next, so a run
that stops part way keeps what it paid for.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, closing, nullcontext, suppress
from pathlib import Path
from typing import Any, TypeVar

from affectlab.errors import DataNotFoundError

KEYS_PER_QUERY = 900  # SQLite's default limit on bound parameters is 999
FILE_FAULTS = (sqlite3.DatabaseError, OSError)
"""What a memo's file raises when it cannot be used: damaged or not an SQLite file ("file is not a database"), in a
folder that cannot be made or written, locked past the timeout (``OperationalError`` is a ``DatabaseError``)."""
T = TypeVar("T")
V = TypeVar("V")


def select_by_keys(db: sqlite3.Connection, query: str, keys: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The rows ``query`` gives for the distinct ``keys``; ``query`` has one ``{marks}`` where the ``IN (...)`` list
    of parameters goes, and is run once per chunk of keys that SQLite can bind in one statement."""
    unique = list(dict.fromkeys(keys))
    rows: list[tuple[Any, ...]] = []
    for start in range(0, len(unique), KEYS_PER_QUERY):
        chunk = unique[start : start + KEYS_PER_QUERY]
        rows += db.execute(query.format(marks=",".join("?" * len(chunk))), chunk).fetchall()
    return rows


class SqliteMemo:
    """``key -> value`` pairs in the table ``table`` (columns ``key`` and ``column``) of the SQLite file ``path``.
    Keys are bytes (a digest of what was computed and by what); values are whatever SQLite stores (bytes, text).

    With ``best_effort``, a file that cannot be used (:data:`FILE_FAULTS`) is passed by: it answers no key and keeps
    nothing, so its caller computes what it needs instead of stopping, and the file is left as it is."""

    def __init__(self, path: Path, table: str, column: str, best_effort: bool = False) -> None:
        self.path, self._table, self._column = path, table, column
        self.best_effort = best_effort
        with self._passed_by():
            self._create()

    def _create(self) -> None:
        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            if self.best_effort:
                raise
            raise DataNotFoundError(f"cannot create the cache folder {str(folder)!r} ({exc.strerror})") from None
        with closing(self._connect()) as db, db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(f"CREATE TABLE IF NOT EXISTS {self._table} (key BLOB PRIMARY KEY, {self._column} NOT NULL)")

    def _passed_by(self) -> AbstractContextManager[None]:
        """Where the file is read or written: its faults are swallowed when the memo is best-effort."""
        return suppress(*FILE_FAULTS) if self.best_effort else nullcontext()

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=60)

    def get(self, keys: Sequence[bytes]) -> dict[bytes, Any]:
        """The stored values among ``keys``."""
        query = f"SELECT key, {self._column} FROM {self._table} WHERE key IN ({{marks}})"
        with self._passed_by(), closing(self._connect()) as db:
            return dict(select_by_keys(db, query, keys))
        return {}  # a best-effort memo whose file cannot be read

    def put(self, rows: Sequence[tuple[bytes, Any]]) -> None:
        """Store ``(key, value)`` rows in one transaction."""
        with self._passed_by(), closing(self._connect()) as db, db:
            db.executemany(f"INSERT OR REPLACE INTO {self._table} (key, {self._column}) VALUES (?, ?)", rows)

    def __len__(self) -> int:
        with closing(self._connect()) as db:
            return int(db.execute(f"SELECT COUNT(*) FROM {self._table}").fetchone()[0])


def memoized(
    items: Sequence[T],
    keys: Sequence[bytes],
    compute: Callable[[list[T]], Sequence[V]],
    memo: SqliteMemo,
    chunk_size: int,
    load: Callable[[Any], V | None] = lambda stored: stored,
    store: Callable[[V], Any] = lambda value: value,
    order: Callable[[T], int] | None = None,
    on_chunk: Callable[[int], None] | None = None,
) -> list[V]:
    """The value of each item: stored ones from ``memo`` (``load`` turns a stored value back, None when it cannot be
    used), the others from ``compute``, each distinct key once, ``chunk_size`` items at a time (sorted by ``order``
    first, e.g. by length so that a chunk's batches need little padding), every chunk stored (``store``) before the
    next is computed; ``on_chunk(n)`` after each chunk of ``n`` computed items."""
    known: dict[bytes, V] = {}
    for key, stored in memo.get(keys).items():
        value = load(stored)
        if value is not None:
            known[key] = value
    missing = list({key: item for key, item in zip(keys, items, strict=True) if key not in known}.items())
    if order is not None:
        missing.sort(key=lambda pair: order(pair[1]))
    for start in range(0, len(missing), chunk_size):
        chunk = missing[start : start + chunk_size]
        values = compute([item for _, item in chunk])
        rows = [(key, value) for (key, _), value in zip(chunk, values, strict=True)]
        memo.put([(key, store(value)) for key, value in rows])
        known.update(rows)
        if on_chunk is not None:
            on_chunk(len(chunk))
    return [known[key] for key in keys]
