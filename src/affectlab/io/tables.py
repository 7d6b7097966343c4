"""One reader of a user's table (issue 22): CSV, TSV, JSON Lines, plain text (one text per line) and Parquet, read
the same way wherever affectlab takes a file: suffixes checked against the caller's list, strict UTF-8 (a
byte-order mark dropped; a bad byte reported at its line), one field-size limit, rows streamed, and every error
one line that names the file and the place. :func:`open_table` streams rows with the reason a row cannot be used
(batch scoring writes such rows unscored); :func:`read_records` reads a whole table and refuses such a row;
:func:`read_text`, :func:`read_delimited` and :func:`read_jsonl` read the datasets' own files. A batch run checks
its input once with :func:`check_table` before its model loads, then streams it with :func:`stream_table`.

Written on the standard library's csv and json and on pyarrow, not pandas: a table is streamed in batches (pandas'
chunked reader would still guess types and turn empty cells into NaN), and errors must say which line is wrong.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal

import pyarrow as pa
import pyarrow.parquet as pq

from affectlab.errors import ArgumentTypeError, DataNotFoundError, InputError
from affectlab.io.jsonlines import json_object

csv.field_size_limit(2**31 - 1)  # texts may be long; the default 128 KiB limit would reject them. Set here only.

TABLE_SUFFIXES = (".csv", ".tsv", ".jsonl", ".txt", ".parquet")
"""Every table format affectlab reads; a caller may accept fewer."""
RECORD_SUFFIXES = (".csv", ".tsv", ".jsonl", ".ndjson")
"""The formats of a table with named columns that is read whole (labelled data, ratings)."""
SAME_FORMAT = {".ndjson": ".jsonl", ".json": ".jsonl"}
"""Other names for a format: JSON Lines is also written .ndjson, and posts dumps often call it .json."""
DELIMITERS = {".csv": ",", ".tsv": "\t"}
_SNIFF_BYTES = 64 * 1024
_EXTRA_FIELDS = "\0extra"  # csv.DictReader key for the cells of a row that is longer than the header

Row = tuple[dict[str, Any], str]
"""A table row, and why it cannot be used ("" when it can)."""


def table_format(path: Path, allowed: Sequence[str] = TABLE_SUFFIXES, role: str = "input") -> str:
    """The format of ``path`` by its suffix (``.csv``, ``.tsv``, ``.jsonl``, ``.txt`` or ``.parquet``; other names
    of a format mapped to it), if ``allowed``; else an :class:`InputError` naming the suffixes that are."""
    suffix = path.suffix.lower()
    if suffix not in allowed:
        raise InputError(f"{str(path)!r}: unsupported {role} file type {suffix!r} (use {', '.join(allowed)})")
    return SAME_FORMAT.get(suffix, suffix)


def check_readable_file(path: Path) -> None:
    """A missing path is a :class:`DataNotFoundError`, a folder an :class:`InputError`."""
    if not path.exists():
        raise DataNotFoundError(f"file {str(path)!r} does not exist")
    if not path.is_file():
        raise InputError(f"{str(path)!r} is not a file")


@dataclass
class Table:
    """An open table: its columns and a stream of its rows."""

    columns: list[str]
    rows: Iterator[Row]
    fraction_read: Callable[[int], float]  # share of the input read, given the rows read so far
    fields: list[pa.Field] | None = None  # a Parquet input's column types, which a Parquet output keeps


@contextmanager
def open_table(
    path: Path, allowed: Sequence[str] = TABLE_SUFFIXES, batch_size: int = 1024, fixed_columns: bool = False
) -> Iterator[Table]:
    """The table's columns and a stream of its rows (Parquet read ``batch_size`` rows at a time); ``fixed_columns``:
    JSON records may not add fields to the first one's. Refuses a suffix not in ``allowed``, a missing file and a
    file that is not UTF-8 from its first 64 KiB, before any row is read."""
    with stream_table(path, check_table(path, allowed), batch_size, fixed_columns) as table:
        yield table


def check_table(path: Path, allowed: Sequence[str] = TABLE_SUFFIXES) -> str:
    """The format of a table to read, checked before any work starts: its suffix is in ``allowed``, it is a file,
    and a text format is UTF-8 from its first 64 KiB; :func:`stream_table` then reads it."""
    suffix = table_format(path, allowed)
    check_readable_file(path)
    if suffix != ".parquet":
        check_utf8_start(path)
    return suffix


@contextmanager
def stream_table(path: Path, suffix: str, batch_size: int = 1024, fixed_columns: bool = False) -> Iterator[Table]:
    """:func:`open_table` of a table already checked (:func:`check_table` gave its format, ``suffix``)."""
    if suffix == ".parquet":
        with _open_parquet(path) as parquet:
            total = parquet.metadata.num_rows
            yield Table(
                parquet.schema_arrow.names,
                _parquet_rows(parquet, batch_size, path),
                lambda rows: rows / total if total else 1.0,
                list(parquet.schema_arrow),
            )
        return
    size = path.stat().st_size
    with open(path, "rb") as raw:
        columns, rows = _text_rows(_decoded_lines(raw, path), suffix, path, fixed_columns)
        yield Table(columns, rows, lambda _rows: raw.tell() / size if size else 1.0)


def numbered_batches(rows: Iterator[Row], batch_size: int, skip: int = 0) -> Iterator[tuple[int, list[Row]]]:
    """Batches of ``batch_size`` rows after the first ``skip``, each with the 1-based number of its first row."""
    batch: list[Row] = []
    number = 0
    for row in rows:
        number += 1
        if number <= skip:
            continue
        batch.append(row)
        if len(batch) == batch_size:
            yield number - batch_size + 1, batch
            batch = []
    if batch:
        yield number - len(batch) + 1, batch


def path_argument(name: str, value: object) -> Path:
    """``value`` as a Path when it is a str or ``os.PathLike`` of str; anything else is an
    :class:`~affectlab.errors.ArgumentTypeError` naming the argument, not a TypeError from pathlib."""
    if isinstance(value, str) or (isinstance(value, os.PathLike) and isinstance(os.fspath(value), str)):
        return Path(value)
    shown = "None" if value is None else f"{type(value).__name__} {value!r:.60}"
    raise ArgumentTypeError(f"{name} must be a file path (str or os.PathLike), not {shown}")


def check_utf8_start(path: Path) -> None:
    """Refuse a binary or non-UTF-8 file from its first 64 KiB, before anything is written."""
    with open(path, "rb") as file:
        head = file.read(_SNIFF_BYTES)
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)  # a character cut at 64 KiB is fine
        reason = "it holds NUL bytes: binary, or UTF-16?" if b"\0" in head else ""
    except UnicodeDecodeError as exc:
        reason = f"bad byte at offset {exc.start}"
    if reason:
        raise InputError(f"{str(path)!r} is not UTF-8 text ({reason}); re-save it as UTF-8")


def _decoded_lines(raw: BinaryIO, path: Path) -> Iterator[str]:
    """The file's lines, decoded one at a time so that a bad byte past the first 64 KiB is reported at its line."""
    for number, line in enumerate(raw, start=1):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"{path.name} line {number} is not UTF-8 text (bad byte at column {exc.start + 1}); re-save it as UTF-8"
            ) from None
        if number == 1:
            text = text.removeprefix("\ufeff")  # a byte-order mark is no part of the text
            if not text:
                return  # the file held nothing but the mark: no line at all
        yield text


def _text_rows(lines: Iterator[str], suffix: str, path: Path, fixed_columns: bool) -> tuple[list[str], Iterator[Row]]:
    if suffix == ".txt":
        return ["text"], (({"text": line.rstrip("\r\n")}, "") for line in lines)
    if suffix == ".jsonl":
        rows = _jsonl_rows(lines, path)
        first = next(rows, None)
        if first is None:
            raise InputError(f"{str(path)!r} holds no JSON records")
        columns = list(first[0])
        rows = itertools.chain([first], rows)
        return columns, (_same_fields(rows, columns, path) if fixed_columns else rows)
    reader = csv.DictReader(lines, delimiter=DELIMITERS[suffix], restkey=_EXTRA_FIELDS)
    try:
        header = reader.fieldnames
    except csv.Error as exc:
        raise InputError(f"{path.name} line {reader.line_num}: {exc}") from None
    if header is None:
        raise InputError(f"{str(path)!r} is empty: it has no header row")
    return list(header), _delimited_rows(reader, len(header), path)


def _delimited_rows(reader: csv.DictReader, width: int, path: Path) -> Iterator[Row]:
    try:
        for row in reader:
            extra = row.pop(_EXTRA_FIELDS, [])  # cells beyond the header; missing cells are None
            fields = width + len(extra) - sum(value is None for value in row.values())
            yield row, ("" if fields == width else f"{fields} fields, but the header has {width}")
    except csv.Error as exc:
        raise InputError(f"{path.name} line {reader.line_num}: {exc}") from None


def _jsonl_rows(lines: Iterator[str], path: Path) -> Iterator[Row]:
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield json_object(line, f"{path.name} line {number}"), ""


def _same_fields(rows: Iterator[Row], columns: list[str], path: Path) -> Iterator[Row]:
    """JSON records that add no field to the first one's, as a CSV, TSV or Parquet output has fixed columns."""
    known = set(columns)
    for number, (record, problem) in enumerate(rows, start=1):
        extra = [key for key in record if key not in known]
        if extra:
            raise InputError(
                f"{path.name} record {number} has fields the first record lacks ({', '.join(extra)}); "
                "write a .jsonl output, or give the first record every field"
            )
        yield record, problem


@contextmanager
def _open_parquet(path: Path) -> Iterator[pq.ParquetFile]:
    try:
        parquet = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{str(path)!r} is not a readable Parquet file ({_first_line(exc)})") from None
    with parquet:
        yield parquet


def _parquet_rows(parquet: pq.ParquetFile, batch_size: int, path: Path) -> Iterator[Row]:
    try:
        for record_batch in parquet.iter_batches(batch_size=batch_size):
            for row in record_batch.to_pylist():
                yield row, ""
    except (pa.ArrowException, OSError) as exc:  # a damaged page raises OSError ("Couldn't deserialize thrift")
        raise InputError(f"{path.name}: unreadable Parquet data ({_first_line(exc)})") from None
    except UnicodeDecodeError as exc:  # a string column whose bytes are not UTF-8
        raise InputError(f"{path.name}: a text column holds bytes that are not UTF-8 ({exc.reason})") from None


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def read_records(path: Path, allowed: Sequence[str] = RECORD_SUFFIXES) -> list[dict[str, Any]]:
    """Every row of a table as a dict keyed by column name; a row that does not fit the header is an
    :class:`InputError` naming it (a table read whole is data to learn from, not a file to score row by row)."""
    with open_table(path, allowed) as table:
        records = []
        for number, (record, problem) in enumerate(table.rows, start=1):
            if problem:
                raise InputError(f"{path.name} row {number}: {problem}")
            records.append(record)
    return records


def read_text(path: Path) -> str:
    """A whole file as UTF-8 text (a byte-order mark dropped); another encoding is an :class:`InputError` that
    says where the first bad byte is."""
    check_readable_file(path)
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{str(path)!r} is not UTF-8 text (bad byte at offset {exc.start}); re-save it as UTF-8"
        ) from None


def read_delimited(path: Path, delimiter: str, quoting: Literal[0, 1, 2, 3] = csv.QUOTE_MINIMAL) -> list[list[str]]:
    """All rows of a delimited file (header included) as lists of cells, with RFC-4180 quoting unless ``quoting``
    says otherwise: the datasets' own files, whose columns are read by position."""
    try:
        return list(csv.reader(io.StringIO(read_text(path), newline=""), delimiter=delimiter, quoting=quoting))
    except csv.Error as exc:
        raise InputError(f"{path.name}: {exc}") from None


def read_fields(
    path: Path, delimiter: str, width: int, quoting: Literal[0, 1, 2, 3] = csv.QUOTE_MINIMAL, header: str | None = None
) -> list[tuple[int, list[str]]]:
    """The rows of a delimited dataset file as ``(line number, cells)``, each checked to have ``width`` cells (one
    error naming the first that has not); a first row whose first cell is ``header`` is left out."""
    rows = []
    for number, fields in enumerate(read_delimited(path, delimiter, quoting), start=1):
        if number == 1 and header is not None and fields[:1] == [header]:
            continue
        if len(fields) != width:
            raise InputError(f"{path.name} line {number}: expected {width} tab-separated fields, got {len(fields)}")
        rows.append((number, fields))
    return rows


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON Lines file (blank lines skipped); one error naming the first bad line."""
    # split at line feeds only: str.splitlines would also split inside JSON strings, at U+2028, U+0085, \x1c ...
    lines = enumerate(read_text(path).split("\n"), start=1)
    return [json_object(line, f"{path.name} line {number}") for number, line in lines if line.strip()]
