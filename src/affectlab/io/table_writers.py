"""Writing scored rows (:mod:`affectlab.scale.batch`) batch by batch to CSV, TSV, JSON Lines or Parquet so that
a run interrupted at any point can go on: text outputs are appended to and fsynced after each batch, and a
Parquet output is written as part files that are combined when the run completes (it appears whole or not at all).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from affectlab.errors import InputError
from affectlab.io.tables import DELIMITERS

OUTPUT_SUFFIXES = (".csv", ".tsv", ".jsonl", ".parquet")
# Parquet output is regrouped into row groups of this many rows: bounded memory while combining, and the same file
# however the rows were split into batches, so a resumed run's file is byte for byte a clean run's.
_ROW_GROUP_ROWS = 65_536


EXTRA_TYPES = {"string": pa.string(), "bool": pa.bool_(), "int": pa.int64()}
"""The types an extra output column may have (by name), e.g. ``lang`` (string), ``supported`` (bool); a column of
another Arrow type (the nested ``sentences``) is given by its type."""


@dataclass(frozen=True)
class ScoredRow:
    """An input row with its scores (``None`` for a row that was not scored), labels, extra values (by column:
    a text's language, intensities) and error."""

    row: dict[str, Any]
    scores: list[float] | None  # rounded to the layout's decimals; None for a row that was not scored
    labels: list[str]
    error: str
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class OutputLayout:
    """The output's columns: the input's, one score column per label, then labels, the extra columns and error;
    a CSV or TSV output shows the scores with ``decimals`` places."""

    input_columns: list[str]
    score_columns: list[str]
    input_fields: list[pa.Field] | None  # a Parquet input's column types; other inputs' columns become strings
    extra_fields: list[pa.Field]
    decimals: int

    @cached_property  # read for every row written
    def columns(self) -> list[str]:
        return [*self.input_columns, *self.score_columns, "labels", *self.extra_columns, "error"]

    @cached_property
    def extra_columns(self) -> list[str]:
        return [extra.name for extra in self.extra_fields]

    def cells(self, scored: ScoredRow) -> list[str]:
        """A CSV or TSV row."""
        scores = [f"{score:.{self.decimals}f}" for score in scored.scores] if scored.scores is not None else []
        scores += [""] * (len(self.score_columns) - len(scores))
        inputs = [_cell(scored.row.get(column)) for column in self.input_columns]
        extras = [_cell(scored.extra.get(column)) for column in self.extra_columns]
        return [*inputs, *scores, ",".join(scored.labels), *extras, scored.error]

    def json_record(self, scored: ScoredRow) -> dict[str, Any]:
        """A JSON Lines record: the input record as read (every field, native types), then the scores."""
        scores = scored.scores if scored.scores is not None else [None] * len(self.score_columns)
        scores_by_column = dict(zip(self.score_columns, scores, strict=True))
        extras = {column: scored.extra.get(column) for column in self.extra_columns}
        return {**scored.row, **scores_by_column, "labels": scored.labels, **extras, "error": scored.error}

    def parquet_record(self, scored: ScoredRow) -> dict[str, Any]:
        scores = scored.scores if scored.scores is not None else [None] * len(self.score_columns)
        inputs = {column: scored.row.get(column) for column in self.input_columns}
        if self.input_fields is None:
            inputs = {column: None if value is None else _cell(value) for column, value in inputs.items()}
        scores_by_column = dict(zip(self.score_columns, scores, strict=True))
        extras = {column: scored.extra.get(column) for column in self.extra_columns}
        return {**inputs, **scores_by_column, "labels": ",".join(scored.labels), **extras, "error": scored.error}

    def parquet_schema(self) -> pa.Schema:
        inputs = self.input_fields or [pa.field(column, pa.string()) for column in self.input_columns]
        scores = [pa.field(column, pa.float64()) for column in self.score_columns]
        return pa.schema(
            [*inputs, *scores, pa.field("labels", pa.string()), *self.extra_fields, pa.field("error", pa.string())]
        )

    def parquet_table(self, batch: list[ScoredRow]) -> pa.Table:
        """A batch of rows as an Arrow table of the output's schema."""
        return pa.Table.from_pylist([self.parquet_record(scored) for scored in batch], schema=self.parquet_schema())


def output_layout(
    columns: list[str],
    fields: list[pa.Field] | None,
    text_col: str,
    label_names: Sequence[str],
    source_name: str,
    extra_columns: Sequence[tuple[str, str | pa.DataType]],
    decimals: int,
) -> OutputLayout:
    """The output of an input with ``columns`` (and a Parquet input's ``fields``): refuses one without ``text_col``,
    with a repeated column or with a column the output adds, naming the input ``source_name``."""
    if text_col not in columns:
        raise InputError(f"{source_name} has no column {text_col!r} (columns: {', '.join(columns)})")
    repeated = sorted({column for column in columns if columns.count(column) > 1})
    if repeated:
        raise InputError(f"{source_name} has more than one column named {', '.join(map(repr, repeated))}")
    extras = [pa.field(name, EXTRA_TYPES[kind] if isinstance(kind, str) else kind) for name, kind in extra_columns]
    layout = OutputLayout(columns, [f"score_{label}" for label in label_names], fields, extras, decimals)
    taken = [column for column in layout.columns[len(columns) :] if column in columns]
    if taken:
        raise InputError(f"{source_name} already has column(s) {', '.join(taken)}, which the output adds; rename them")
    return layout


def _cell(value: Any) -> str:
    """A value as CSV text: strings as they are, lists, dicts and booleans as JSON (as a JSON Lines input had them)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool | list | dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def open_writer(path: Path, suffix: str, layout: OutputLayout, position: int) -> AppendWriter | PartsWriter:
    if suffix == ".parquet":
        return PartsWriter(path, position, layout)
    if suffix == ".jsonl":
        return AppendWriter(path, position, "", lambda batch: "".join(map(_json_line, map(layout.json_record, batch))))
    delimiter = DELIMITERS[suffix]
    header = _delimited([layout.columns], delimiter)
    return AppendWriter(path, position, header, lambda batch: _delimited(map(layout.cells, batch), delimiter))


def _delimited(rows: Any, delimiter: str) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter).writerows(rows)  # "\r\n" ends rows, so a lone "\r" in a text is quoted
    return buffer.getvalue()


def _json_line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, default=str) + "\n"


def fsync_file(path: Path) -> None:
    descriptor = os.open(path, os.O_RDWR)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


class AppendWriter:
    """A CSV, TSV or JSON Lines output, appended to batch by batch; ``position`` is the length of its whole rows."""

    unit = "output_bytes"

    def __init__(self, path: Path, position: int, header: str, encode: Callable[[list[ScoredRow]], str]) -> None:
        self._path = path
        self._file = open(path, "r+b" if position else "wb")  # noqa: SIM115 (kept open across batches; closed by close())
        self._file.truncate(position)  # drops whatever a crash left of a batch after the last recorded one
        self._file.seek(position)
        self._encode = encode
        self.position = position
        if position == 0:
            self._append(header)

    @staticmethod
    def holds(path: Path, position: int) -> bool:
        """Whether the output still holds the ``position`` bytes a sidecar recorded."""
        return position == 0 or (path.is_file() and path.stat().st_size >= position)

    def write(self, batch: list[ScoredRow]) -> None:
        self._append(self._encode(batch))

    def _append(self, text: str) -> None:
        self._file.write(text.encode("utf-8"))
        self._file.flush()
        os.fsync(self._file.fileno())
        self.position = self._file.tell()

    @property
    def kept_in(self) -> str:
        """Where the rows written so far are, as a message names it."""
        return self._path.name

    def complete(self) -> None:
        """Nothing to do: every batch went straight into the output."""

    def discard(self) -> None:
        """Delete the output: a run that stopped before its first batch leaves nothing behind."""
        self._file.close()
        self._path.unlink(missing_ok=True)

    def close(self) -> None:
        self._file.close()


class PartsWriter:
    """A Parquet output, which cannot be appended to: each batch becomes a part file in the hidden directory
    ``.<name>.parts`` beside it, and the parts are combined into the output when the run completes;
    ``position`` is the number of parts."""

    unit = "parts"

    def __init__(self, path: Path, position: int, layout: OutputLayout) -> None:
        self._path, self.position, self._layout = path, position, layout
        self._schema = layout.parquet_schema()
        self._dir = _parts_dir(path)
        if position == 0:
            shutil.rmtree(self._dir, ignore_errors=True)  # parts an abandoned or finished run left behind
        self._dir.mkdir(exist_ok=True)

    @staticmethod
    def holds(path: Path, position: int) -> bool:
        """Whether the part files a sidecar recorded are all still there."""
        return all(_part_path(path, index).is_file() for index in range(position))

    def write(self, batch: list[ScoredRow]) -> None:
        table = self._layout.parquet_table(batch)
        part = _part_path(self._path, self.position)
        pq.write_table(table, part)
        fsync_file(part)
        self.position += 1

    @property
    def kept_in(self) -> str:
        """Where the rows written so far are, as a message names it."""
        return f"{self._dir.name} (combined into {self._path.name} when the run completes)"

    def discard(self) -> None:
        """Delete the parts: a run that stopped before its first batch leaves nothing behind."""
        shutil.rmtree(self._dir, ignore_errors=True)

    def complete(self) -> None:
        """Combine the parts into the output, which appears whole or not at all, and delete them."""
        combined = self._dir / "combined.parquet"
        _combine_parts([_part_path(self._path, index) for index in range(self.position)], self._schema, combined)
        os.replace(combined, self._path)
        shutil.rmtree(self._dir)

    def close(self) -> None:
        """Nothing to close: each part is written and closed at once."""


def _parts_dir(path: Path) -> Path:
    return path.with_name(f".{path.name}.parts")


def _part_path(path: Path, index: int) -> Path:
    return _parts_dir(path) / f"part-{index:06d}.parquet"


def _combine_parts(parts: list[Path], schema: pa.Schema, target: Path) -> None:
    pending: list[pa.Table] = []
    pending_rows = 0
    with pq.ParquetWriter(target, schema) as writer:
        for part in parts:
            table = pq.read_table(part, schema=schema)
            pending.append(table)
            pending_rows += table.num_rows
            while pending_rows >= _ROW_GROUP_ROWS:
                merged = pa.concat_tables(pending)
                writer.write_table(merged.slice(0, _ROW_GROUP_ROWS).combine_chunks())
                pending, pending_rows = [merged.slice(_ROW_GROUP_ROWS)], pending_rows - _ROW_GROUP_ROWS
        if pending_rows:
            writer.write_table(pa.concat_tables(pending).combine_chunks())
    fsync_file(target)
