"""Score a large text file batch by batch, streaming, and resume an interrupted run where it stopped.

:func:`score_file` reads CSV, TSV, JSON Lines, plain text (one text per line) or Parquet one batch at a time, sends
the non-empty texts of each batch to a ``predict`` function and writes every input row, unchanged, followed by its
scores, predicted labels and an error column, to a CSV, TSV, JSON Lines or Parquet file. After each batch is on
disk, a sidecar ``<output>.progress.json`` records how far the run got, so running the same call again after a crash
or an interrupt continues from there instead of starting over; the sidecar is deleted when the run completes.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from affectlab.errors import DataNotFoundError, InputError, Interrupted
from affectlab.io.jsonlines import json_object
from affectlab.io.outputs import check_output_file, output_lock
from affectlab.text import text_problem

__all__ = [
    "INPUT_SUFFIXES",
    "OUTPUT_SUFFIXES",
    "ScoreProgress",
    "ScoreSummary",
    "is_finished",
    "progress_path",
    "score_file",
]

csv.field_size_limit(2**31 - 1)  # texts may be long; the default 128 KiB limit would reject them

INPUT_SUFFIXES = (".csv", ".tsv", ".jsonl", ".txt", ".parquet")
OUTPUT_SUFFIXES = (".csv", ".tsv", ".jsonl", ".parquet")
_DELIMITERS = {".csv": ",", ".tsv": "\t"}
_SNIFF_BYTES = 64 * 1024
# Parquet output is regrouped into row groups of this many rows: bounded memory while combining, and the same file
# however the rows were split into batches, so a resumed run's file is byte for byte a clean run's.
_ROW_GROUP_ROWS = 65_536
_EXTRA_FIELDS = "\0extra"  # csv.DictReader key for the cells of a row that is longer than the header

_Predict = Callable[[list[str]], tuple[np.ndarray, list[list[str]]]]
_Row = tuple[dict[str, Any], str]  # an input row, and why it cannot be scored ("" when it can)


@dataclass(frozen=True)
class ScoreProgress:
    """How far a :func:`score_file` run has got; reported after each batch is safely on disk."""

    rows_done: int  # rows in the output, those written by an earlier, interrupted run included
    rows_resumed: int  # rows that an earlier run had written and this one skipped
    fraction: float  # estimated share of the input done, 0 to 1: by bytes read for text files, by rows for Parquet
    seconds: float  # since this run started

    @property
    def eta_seconds(self) -> float | None:
        """Estimated seconds left at this run's pace, or None before there is a pace to go by."""
        rows_this_run = self.rows_done - self.rows_resumed
        if rows_this_run <= 0 or self.fraction <= 0:
            return None
        rows_left = self.rows_done / self.fraction - self.rows_done
        return rows_left * self.seconds / rows_this_run


@dataclass(frozen=True)
class ScoreSummary:
    """What a completed :func:`score_file` run did."""

    output_path: Path
    rows_written: int  # by this run
    rows_skipped_resumed: int  # already written by an earlier, interrupted run
    bad_rows: list[tuple[int, str]]  # (1-based data row number, why it was not scored), for this run's rows
    seconds: float


def score_file(
    input_path: str | Path,
    output_path: str | Path,
    predict: Callable[[list[str]], tuple[np.ndarray, list[list[str]]]],
    label_names: Sequence[str],
    text_col: str = "text",
    batch_size: int = 256,
    progress: Callable[[ScoreProgress], None] | None = None,
) -> ScoreSummary:
    """Score every row of ``input_path`` with ``predict`` and write the rows with their scores to ``output_path``.

    Input and output formats follow the file extensions (input: .csv, .tsv, .jsonl, .txt, .parquet; output: .csv,
    .tsv, .jsonl, .parquet). Output columns: the input's, unchanged (a .txt file has one, ``text``), then
    ``score_<label>`` for each of ``label_names`` (rounded to 6 decimals), ``labels`` (the predicted names; joined
    with "," except in JSON Lines, where they are a list) and ``error``. ``predict(texts)`` returns a
    ``(len(texts), len(label_names))`` probability matrix and the predicted label names per text; it is called with
    at most ``batch_size`` texts at a time, never with a missing, empty or whitespace-only one: such rows are written
    unscored with the reason in ``error`` and listed in the summary's ``bad_rows``.

    If an earlier run of the same call stopped part way (``predict`` raised, the process was killed), this call
    continues after the last complete batch, using the sidecar ``<output>.progress.json``. An existing output file
    that no unfinished run for this input, text column and labels left behind is never overwritten: that raises
    :class:`InputError`, as does an input that is not UTF-8, not in its format or lacking ``text_col``, an output
    folder that cannot be written, or an output that another run is writing (``<output>.lock``). Ctrl-C raises
    :class:`~affectlab.errors.Interrupted`, saying how many rows are kept for the run that resumes.
    """
    started = time.monotonic()
    input_path, output_path = Path(input_path), Path(output_path)
    input_suffix = _suffix(input_path, INPUT_SUFFIXES, "input")
    output_suffix = _suffix(output_path, OUTPUT_SUFFIXES, "output")
    _check_options(output_path, label_names, batch_size)
    identity = _input_identity(input_path, text_col, label_names)
    with (
        output_lock(output_path),
        _open_input(input_path, input_suffix, batch_size, fixed_columns=output_suffix != ".jsonl") as source,
    ):
        layout = _output_layout(source, text_col, label_names, input_path)
        writer_type = _PartsWriter if output_suffix == ".parquet" else _AppendWriter
        sidecar = _Sidecar(output_path, identity, writer_type.unit)
        rows_resumed, position = sidecar.resume_point(writer_type)
        sidecar.save(rows_resumed, position)  # before the output exists, so an existing output is always explained
        rows_done, bad_rows = rows_resumed, []
        with closing(_open_writer(output_path, output_suffix, layout, position)) as writer:
            try:
                for first_row, batch in _numbered_batches(source.rows, batch_size, rows_resumed):
                    scored = _score_batch(batch, text_col, predict, len(label_names))
                    writer.write(scored)
                    rows_done += len(batch)
                    sidecar.save(rows_done, writer.position)
                    bad_rows += [(first_row + i, row.error) for i, row in enumerate(scored) if row.error]
                    if progress is not None:
                        seconds = time.monotonic() - started
                        progress(ScoreProgress(rows_done, rows_resumed, source.fraction_read(rows_done), seconds))
            except InputError as exc:  # a bad row part way: say what was kept and how to start over
                kept = "nothing was scored into"
                if rows_done:
                    kept = f"the {rows_done:,} rows before its batch are kept in"
                raise InputError(
                    f"{exc} ({kept} {output_path.name}, an unfinished run; after fixing the input, delete "
                    f"{output_path.name} and {sidecar.path.name} to start over)"
                ) from None
            except KeyboardInterrupt:
                raise Interrupted(
                    f"{rows_done:,} rows are kept in {output_path.name} ({sidecar.path.name} records how far the run "
                    "got); run the same command again to resume"
                ) from None
            writer.complete()
        sidecar.remove()
    return ScoreSummary(output_path, rows_done - rows_resumed, rows_resumed, bad_rows, time.monotonic() - started)


def _suffix(path: Path, allowed: tuple[str, ...], role: str) -> str:
    suffix = path.suffix.lower()
    if suffix not in allowed:
        raise InputError(f"{str(path)!r}: unsupported {role} file type {suffix!r} (use {', '.join(allowed)})")
    return suffix


def _check_options(output_path: Path, label_names: Sequence[str], batch_size: int) -> None:
    if batch_size < 1:
        raise InputError(f"batch_size must be at least 1, got {batch_size}")
    if len(set(label_names)) != len(label_names):
        raise InputError(f"label names must be distinct: {', '.join(label_names)}")
    check_output_file(output_path, exists_ok=True)  # an existing output is this run's to resume, or refused later


def _input_identity(path: Path, text_col: str, label_names: Sequence[str]) -> dict[str, Any]:
    """What a resumed run must share with the run that wrote the output so far."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise DataNotFoundError(f"file {str(path)!r} does not exist") from None
    if not path.is_file():
        raise InputError(f"{str(path)!r} is not a file")
    return {
        "input": str(path.resolve()),
        "input_bytes": stat.st_size,
        "input_mtime_ns": stat.st_mtime_ns,
        "text_col": text_col,
        "label_names": list(label_names),
    }


# ---- reading ----------------------------------------------------------------------------------------------------


@dataclass
class _Input:
    columns: list[str]
    rows: Iterator[_Row]
    fraction_read: Callable[[int], float]  # share of the input read, given the rows read so far
    fields: list[pa.Field] | None = None  # a Parquet input's column types, which a Parquet output keeps


@contextmanager
def _open_input(path: Path, suffix: str, batch_size: int, fixed_columns: bool) -> Iterator[_Input]:
    """The input's columns and a stream of its rows; ``fixed_columns``: JSON records may not add fields."""
    if suffix == ".parquet":
        with _open_parquet(path) as parquet:
            total = parquet.metadata.num_rows
            yield _Input(
                parquet.schema_arrow.names,
                _parquet_rows(parquet, batch_size, path),
                lambda rows: rows / total if total else 1.0,
                list(parquet.schema_arrow),
            )
        return
    _check_text_start(path)
    size = path.stat().st_size
    with open(path, "rb") as raw:
        columns, rows = _text_rows(_decoded_lines(raw, path), suffix, path, fixed_columns)
        yield _Input(columns, rows, lambda _rows: raw.tell() / size if size else 1.0)


def _check_text_start(path: Path) -> None:
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


def _text_rows(lines: Iterator[str], suffix: str, path: Path, fixed_columns: bool) -> tuple[list[str], Iterator[_Row]]:
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
    reader = csv.DictReader(lines, delimiter=_DELIMITERS[suffix], restkey=_EXTRA_FIELDS)
    try:
        header = reader.fieldnames
    except csv.Error as exc:
        raise InputError(f"{path.name} line {reader.line_num}: {exc}") from None
    if header is None:
        raise InputError(f"{str(path)!r} is empty: it has no header row")
    return list(header), _delimited_rows(reader, len(header), path)


def _delimited_rows(reader: csv.DictReader, width: int, path: Path) -> Iterator[_Row]:
    try:
        for row in reader:
            extra = row.pop(_EXTRA_FIELDS, [])  # cells beyond the header; missing cells are None
            fields = width + len(extra) - sum(value is None for value in row.values())
            yield row, ("" if fields == width else f"{fields} fields, but the header has {width}")
    except csv.Error as exc:
        raise InputError(f"{path.name} line {reader.line_num}: {exc}") from None


def _jsonl_rows(lines: Iterator[str], path: Path) -> Iterator[_Row]:
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield json_object(line, f"{path.name} line {number}"), ""


def _same_fields(rows: Iterator[_Row], columns: list[str], path: Path) -> Iterator[_Row]:
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


def _parquet_rows(parquet: pq.ParquetFile, batch_size: int, path: Path) -> Iterator[_Row]:
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


def _numbered_batches(rows: Iterator[_Row], batch_size: int, skip: int) -> Iterator[tuple[int, list[_Row]]]:
    """Batches of the rows after the first ``skip``, each with the 1-based number of its first row."""
    batch: list[_Row] = []
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


# ---- scoring ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Scored:
    row: dict[str, Any]
    scores: list[float] | None  # rounded to 6 decimals; None for a row that was not scored
    labels: list[str]
    error: str


def _score_batch(batch: list[_Row], text_col: str, predict: _Predict, n_labels: int) -> list[_Scored]:
    problems = [problem or text_problem(row.get(text_col)) for row, problem in batch]
    todo = [i for i, problem in enumerate(problems) if not problem]
    results = {}
    if todo:  # a batch of nothing but bad rows must not reach predict
        texts = [batch[i][0][text_col] for i in todo]
        probs, labels = predict(texts)
        probs = np.asarray(probs, dtype=float)
        if probs.shape != (len(texts), n_labels) or len(labels) != len(texts):
            raise ValueError(
                f"predict returned probabilities of shape {probs.shape} and {len(labels)} label lists "
                f"for {len(texts)} texts and {n_labels} labels"
            )
        results = dict(zip(todo, zip(probs.round(6).tolist(), labels, strict=True), strict=True))
    return [
        _Scored(row, results[i][0], list(results[i][1]), "") if i in results else _Scored(row, None, [], problems[i])
        for i, (row, _) in enumerate(batch)
    ]


# ---- writing ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Layout:
    """The output's columns: the input's, one score column per label, then labels and error."""

    input_columns: list[str]
    score_columns: list[str]
    input_fields: list[pa.Field] | None  # a Parquet input's column types; other inputs' columns become strings

    @property
    def columns(self) -> list[str]:
        return [*self.input_columns, *self.score_columns, "labels", "error"]

    def cells(self, scored: _Scored) -> list[str]:
        """A CSV or TSV row."""
        scores = [f"{score:.6f}" for score in scored.scores] if scored.scores is not None else []
        scores += [""] * (len(self.score_columns) - len(scores))
        inputs = [_cell(scored.row.get(column)) for column in self.input_columns]
        return [*inputs, *scores, ",".join(scored.labels), scored.error]

    def json_record(self, scored: _Scored) -> dict[str, Any]:
        """A JSON Lines record: the input record as read (every field, native types), then the scores."""
        scores = scored.scores if scored.scores is not None else [None] * len(self.score_columns)
        scores_by_column = dict(zip(self.score_columns, scores, strict=True))
        return {**scored.row, **scores_by_column, "labels": scored.labels, "error": scored.error}

    def parquet_record(self, scored: _Scored) -> dict[str, Any]:
        scores = scored.scores if scored.scores is not None else [None] * len(self.score_columns)
        inputs = {column: scored.row.get(column) for column in self.input_columns}
        if self.input_fields is None:
            inputs = {column: None if value is None else _cell(value) for column, value in inputs.items()}
        scores_by_column = dict(zip(self.score_columns, scores, strict=True))
        return {**inputs, **scores_by_column, "labels": ",".join(scored.labels), "error": scored.error}

    def parquet_schema(self) -> pa.Schema:
        inputs = self.input_fields or [pa.field(column, pa.string()) for column in self.input_columns]
        scores = [pa.field(column, pa.float64()) for column in self.score_columns]
        return pa.schema([*inputs, *scores, pa.field("labels", pa.string()), pa.field("error", pa.string())])


def _output_layout(source: _Input, text_col: str, label_names: Sequence[str], path: Path) -> _Layout:
    columns = source.columns
    if text_col not in columns:
        raise InputError(f"{path.name} has no column {text_col!r} (columns: {', '.join(columns)})")
    repeated = sorted({column for column in columns if columns.count(column) > 1})
    if repeated:
        raise InputError(f"{path.name} has more than one column named {', '.join(map(repr, repeated))}")
    layout = _Layout(columns, [f"score_{label}" for label in label_names], source.fields)
    taken = [column for column in layout.columns[len(columns) :] if column in columns]
    if taken:
        raise InputError(f"{path.name} already has column(s) {', '.join(taken)}, which the output adds; rename them")
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


def _open_writer(path: Path, suffix: str, layout: _Layout, position: int) -> _AppendWriter | _PartsWriter:
    if suffix == ".parquet":
        return _PartsWriter(path, position, layout)
    if suffix == ".jsonl":
        return _AppendWriter(path, position, "", lambda batch: "".join(map(_json_line, map(layout.json_record, batch))))
    delimiter = _DELIMITERS[suffix]
    header = _delimited([layout.columns], delimiter)
    return _AppendWriter(path, position, header, lambda batch: _delimited(map(layout.cells, batch), delimiter))


def _delimited(rows: Any, delimiter: str) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter).writerows(rows)  # "\r\n" ends rows, so a lone "\r" in a text is quoted
    return buffer.getvalue()


def _json_line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, default=str) + "\n"


def _fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDWR)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


class _AppendWriter:
    """A CSV, TSV or JSON Lines output, appended to batch by batch; ``position`` is the length of its whole rows."""

    unit = "output_bytes"

    def __init__(self, path: Path, position: int, header: str, encode: Callable[[list[_Scored]], str]) -> None:
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

    def write(self, batch: list[_Scored]) -> None:
        self._append(self._encode(batch))

    def _append(self, text: str) -> None:
        self._file.write(text.encode("utf-8"))
        self._file.flush()
        os.fsync(self._file.fileno())
        self.position = self._file.tell()

    def complete(self) -> None:
        """Nothing to do: every batch went straight into the output."""

    def close(self) -> None:
        self._file.close()


class _PartsWriter:
    """A Parquet output, which cannot be appended to: each batch becomes a part file in the hidden directory
    ``.<name>.parts`` beside it, and the parts are combined into the output when the run completes;
    ``position`` is the number of parts."""

    unit = "parts"

    def __init__(self, path: Path, position: int, layout: _Layout) -> None:
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

    def write(self, batch: list[_Scored]) -> None:
        table = pa.Table.from_pylist([self._layout.parquet_record(scored) for scored in batch], schema=self._schema)
        part = _part_path(self._path, self.position)
        pq.write_table(table, part)
        _fsync(part)
        self.position += 1

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
    _fsync(target)


# ---- resuming ---------------------------------------------------------------------------------------------------


def progress_path(output: str | Path) -> Path:
    """The sidecar ``<output>.progress.json`` that marks ``output`` as an unfinished run's."""
    output = Path(output)
    return output.with_name(f"{output.name}.progress.json")


def is_finished(output: str | Path) -> bool:
    """Whether ``output`` was written to the end by a run (it exists, and no sidecar marks it unfinished)."""
    return Path(output).is_file() and not progress_path(output).exists()


class _Sidecar:
    """``<output>.progress.json``: the input a run is for and how many rows (and bytes or parts) it has finished."""

    def __init__(self, output: Path, identity: dict[str, Any], unit: str) -> None:
        self._output, self._identity, self._unit = output, identity, unit
        self.path = progress_path(output)

    def resume_point(self, writer_type: type[_AppendWriter] | type[_PartsWriter]) -> tuple[int, int]:
        """Rows done and writer position of an unfinished earlier run for this input; (0, 0) to start afresh."""
        if not self.path.exists():
            if self._output.exists():
                raise InputError(
                    f"{str(self._output)!r} already exists and was not written by an unfinished run for this input; "
                    "delete it or choose another output path"
                )
            return 0, 0
        saved = self._load()
        if any(saved.get(key) != value for key, value in self._identity.items()):
            raise InputError(
                f"{str(self._output)!r} belongs to an unfinished run for another input, text column or labels "
                f"(see {self.path.name}); finish that run, or delete both files to start over"
            )
        rows_done, position = saved.get("rows_done"), saved.get(self._unit)
        if not isinstance(rows_done, int) or not isinstance(position, int):
            raise InputError(f"{str(self.path)!r} is damaged; delete it and {self._output.name} to start over")
        if not writer_type.holds(self._output, position):
            return 0, 0  # the output lost what was recorded (deleted, truncated): it is ours, so start it again
        return rows_done, position

    def _load(self) -> dict[str, Any]:
        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            saved = None
        if not isinstance(saved, dict):
            raise InputError(f"{str(self.path)!r} is damaged; delete it and {self._output.name} to start over")
        return saved

    def save(self, rows_done: int, position: int) -> None:
        """Record progress atomically: a crash leaves the previous record or this one, never half of one."""
        temporary = self.path.with_name(f"{self.path.name}.tmp")
        record = {**self._identity, "rows_done": rows_done, self._unit: position}
        temporary.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
        _fsync(temporary)
        os.replace(temporary, self.path)

    def remove(self) -> None:
        self.path.unlink()
