"""Strict readers for the text formats datasets come in: UTF-8 only, with errors that name file and place."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Literal

from affectlab.errors import DataNotFoundError, InputError
from affectlab.io.jsonlines import json_object

csv.field_size_limit(2**31 - 1)  # texts may be long; the default 128 KiB limit would reject them


def read_text(path: Path) -> str:
    """The file's content as UTF-8 (a BOM is dropped); a file in another encoding raises :class:`InputError`."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DataNotFoundError(f"file {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise InputError(f"{str(path)!r} is a directory, not a file") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{str(path)!r} is not UTF-8 text (bad byte at offset {exc.start}); re-save it as UTF-8"
        ) from None


def read_delimited(path: Path, delimiter: str, quoting: Literal[0, 1, 2, 3] = csv.QUOTE_MINIMAL) -> list[list[str]]:
    """All rows of a delimited file (header included), with RFC-4180 quoting unless ``quoting`` says otherwise."""
    return list(csv.reader(io.StringIO(read_text(path), newline=""), delimiter=delimiter, quoting=quoting))


def read_records(path: Path) -> list[dict[str, str]]:
    """Rows of a CSV, TSV or JSON Lines file as dicts keyed by column name (by the file's extension)."""
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return read_jsonl(path)
    if suffix in (".csv", ".tsv", ".txt"):
        delimiter = "," if suffix == ".csv" else "\t"
        rows = read_delimited(path, delimiter)
        if not rows:
            raise InputError(f"{str(path)!r} is empty")
        header, body = rows[0], rows[1:]
        records = []
        for number, row in enumerate(body, start=2):
            if len(row) != len(header):
                raise InputError(f"{path.name} line {number}: {len(row)} fields, but the header has {len(header)}")
            records.append(dict(zip(header, row, strict=True)))
        return records
    raise InputError(f"{str(path)!r}: unsupported file type {suffix!r} (use .csv, .tsv or .jsonl)")


def read_jsonl(path: Path) -> list[dict[str, str]]:
    """The JSON objects of a JSON Lines file (blank lines skipped); one error naming the first bad line."""
    # split at line feeds only: str.splitlines would also split inside JSON strings, at U+2028, U+0085, \x1c ...
    lines = enumerate(read_text(path).split("\n"), start=1)
    return [json_object(line, f"{path.name} line {number}") for number, line in lines if line.strip()]
