"""Reading a corpus to collect from: CSV/TSV, JSON lines (a Reddit dump: ``title`` + ``selftext`` or ``body``),
plain text (one post per line) or Parquet, given as files or folders of them, through
:func:`affectlab.io.tables.open_table`; and the recipe corpus built from the datasets affectlab already reads
(CARER, GoEmotions, EmoContext, SemEval-2025 eng/esp)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from affectlab.errors import DataNotFoundError, InputError
from affectlab.io.tables import open_table, table_format

SUFFIXES = (".csv", ".tsv", ".jsonl", ".json", ".txt", ".parquet")
TEXT_FIELDS = (("text",), ("body",), ("title", "selftext"), ("selftext",), ("title",))
"""Tried in order when no text column is given: the first whose fields a record has (joined by a blank line)."""
EMPTY_MARKERS = {"[deleted]", "[removed]"}
RECIPE_SOURCES = {"en": ("carer", "goemotions", "emocontext", "semeval2025-eng"), "es": ("semeval2025-esp",)}
"""The datasets the recipe collects from; ``carer`` is read as a corpus (:mod:`affectlab.openstates.collect.carer`),
the others through the dataset registry."""


def corpus_files(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The files named, and the readable files inside the folders named, sorted within each folder."""
    files: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            files += sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
        elif path.is_file():
            table_format(path, SUFFIXES)
            files.append(path)
        else:
            raise DataNotFoundError(f"{str(path)!r} does not exist")
    if not files:
        raise InputError(f"no corpus files found ({', '.join(SUFFIXES)})")
    return files


def _post_text(record: dict, text_col: str | None, where: str) -> str:
    if text_col is not None:
        fields: tuple[str, ...] = tuple(text_col.split("+"))
        if any(field not in record for field in fields):
            raise InputError(f"{where}: no column {text_col!r} (columns: {', '.join(map(str, record))})")
    else:
        fields = next((f for f in TEXT_FIELDS if all(k in record for k in f)), ())
        if not fields:
            raise InputError(f"{where}: no text column (tried text, body, title+selftext); give --text-col")
    parts = [str(record[f] or "").strip() for f in fields]
    return "\n\n".join(p for p in parts if p and p not in EMPTY_MARKERS)


def read_posts(paths: Sequence[str | os.PathLike[str]], text_col: str | None = None) -> Iterator[tuple[str, str]]:
    """``(id, text)`` for every non-empty post, each file streamed by :func:`affectlab.io.tables.open_table`; ids
    from an ``id`` column, else ``file:row``. ``text_col`` may join columns with ``+`` (``title+selftext``)."""
    for path in corpus_files(paths):
        with open_table(path, SUFFIXES) as table:
            for number, (row, problem) in enumerate(table.rows, start=1):
                if problem:
                    raise InputError(f"{path} row {number}: {problem}")
                text = _post_text(row, text_col, f"{path} row {number}")
                if text:
                    yield str(row.get("id") or f"{path.name}:{number}"), text


def recipe_posts(lang: str, data_dir: str | os.PathLike[str] | None) -> tuple[list[str], list[str]]:
    """Ids and texts of every split of the recipe's datasets for ``lang`` (dialogue turns joined by spaces; CARER's
    train and validation splits only)."""
    from affectlab.datasets import resolve_dataset
    from affectlab.openstates.collect.carer import carer_posts

    ids: list[str] = []
    texts: list[str] = []
    for name in RECIPE_SOURCES[lang]:
        if name == "carer":
            carer_ids, carer_texts = carer_posts(data_dir)
            ids, texts = ids + carer_ids, texts + carer_texts
            continue
        data = resolve_dataset(name, data_dir)[1]
        for split in data:
            rows = data[split]
            contexts = rows["context"] if "context" in rows.column_names else [[] for _ in range(len(rows))]
            row_ids = rows["id"] if "id" in rows.column_names else [str(i) for i in range(len(rows))]
            for row_id, context, text in zip(row_ids, contexts, rows["text"], strict=True):
                ids.append(f"{name}:{split}:{row_id}")
                texts.append(" ".join([*context, text]))
    return ids, texts
