"""Score a large text file batch by batch, streaming, and resume an interrupted run where it stopped.

:func:`score_file` reads CSV, TSV, JSON Lines, plain text (one text per line) or Parquet one batch at a time, sends
the non-empty texts of each batch to a ``predict`` function and writes every input row, unchanged, followed by its
scores, predicted labels and an error column, to a CSV, TSV, JSON Lines or Parquet file. After each batch is on
disk, a sidecar ``<output>.progress.json`` records how far the run got, so running the same call again after a crash
or an interrupt continues from there instead of starting over; the sidecar is deleted when the run completes. It
also records every option of the run that changes the output, and a run with other options does not resume it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.errors import ArgumentTypeError, DataNotFoundError, InputError, Interrupted
from affectlab.io.outputs import check_output_file, output_lock
from affectlab.io.resume import RunIdentity, Sidecar, is_finished, progress_path
from affectlab.io.table_writers import OUTPUT_SUFFIXES, AppendWriter, PartsWriter, ScoredRow, open_writer, output_layout
from affectlab.io.tables import Row, open_table, table_format
from affectlab.labels import SCORE_DECIMALS
from affectlab.text import text_problem

__all__ = [
    "INPUT_SUFFIXES",
    "OUTPUT_SUFFIXES",
    "ScoreProgress",
    "ScoreSummary",
    "is_finished",
    "path_argument",
    "progress_path",
    "score_file",
]

INPUT_SUFFIXES = (".csv", ".tsv", ".jsonl", ".txt", ".parquet")

_Predict = Callable[[list[str]], tuple[Any, ...]]
"""texts -> (scores, labels) or (scores, labels, extras): extras is one dict of extra column values per text."""


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
    predict: _Predict,
    label_names: Sequence[str],
    text_col: str = "text",
    batch_size: int = 256,
    progress: Callable[[ScoreProgress], None] | None = None,
    extra_columns: Sequence[tuple[str, str]] = (),
    run_options: Mapping[str, Any] | None = None,
    run_details: Mapping[str, Any] | None = None,
) -> ScoreSummary:
    """Score every row of ``input_path`` with ``predict`` and write the rows with their scores to ``output_path``.

    Input and output formats follow the file extensions (input: .csv, .tsv, .jsonl, .txt, .parquet; output: .csv,
    .tsv, .jsonl, .parquet). Output columns: the input's, unchanged (a .txt file has one, ``text``), then
    ``score_<label>`` for each of ``label_names`` (4 decimals: ``affectlab.labels.SCORE_DECIMALS``), ``labels`` (the
    predicted names; joined with "," except in JSON Lines, where they are a list), the ``extra_columns`` (name and
    type: ``string``, ``bool`` or ``int``) and ``error``. ``predict(texts)`` returns a ``(len(texts),
    len(label_names))`` probability matrix and the predicted label names per text (and, with extra columns, one
    dict of their values per text); it is
    called with at most ``batch_size`` texts at a time, never with a missing, empty or whitespace-only one: such rows
    are written unscored with the reason in ``error`` and listed in the summary's ``bad_rows``.

    ``run_options`` are the caller's other options that change the output (the model, its profile, a language
    forced on every text), by the name a refusal should give them (the command line's: ``--fast``, ``--lang``) ->
    value (str, number, bool, None or a list of them); options that change only how the work is done, such as the
    batch size, do not belong there. ``run_details`` are what follows from the options and changes the output too
    (a saved model's checksum), by the name a refusal gives them, named only when no option differs.

    If an earlier run of the same call stopped part way (``predict`` raised, the process was killed), this call
    continues after the last complete batch, using the sidecar ``<output>.progress.json``, which records the input
    file (path, size, modification time), ``run_options``, ``run_details``, the text column, the labels and the
    extra columns. A resume with any of them changed is refused in one line naming what differs, with both values
    (``out.csv is an unfinished run made with --fast (this run: without --fast); ...``), and so is a sidecar written
    before options were recorded. An existing output file that no unfinished run left behind is never overwritten:
    that raises :class:`InputError`, as does an input that is not UTF-8, not in its format or lacking ``text_col``,
    an output folder that cannot be written, or an output that another run is writing (``<output>.lock``). A path
    that is not a str or ``os.PathLike`` raises :class:`~affectlab.errors.ArgumentTypeError`. Ctrl-C raises
    :class:`~affectlab.errors.Interrupted`, saying how many rows are kept for the run that resumes, and where; a
    run stopped before its first batch was written leaves nothing behind (no output, no sidecar) and says so.
    """
    started = time.monotonic()
    input_path, output_path = path_argument("input_path", input_path), path_argument("output_path", output_path)
    table_format(input_path, INPUT_SUFFIXES, "input")
    output_suffix = table_format(output_path, OUTPUT_SUFFIXES, "output")
    _check_options(output_path, label_names, batch_size)
    columns = {"text column": text_col, "labels": list(label_names), "extra columns": [n for n, _ in extra_columns]}
    details = {**(run_details or {}), **columns}
    identity = RunIdentity(_input_identity(input_path), dict(run_options or {}), details)
    with (
        output_lock(output_path),
        open_table(input_path, INPUT_SUFFIXES, batch_size, fixed_columns=output_suffix != ".jsonl") as source,
    ):
        layout = output_layout(source, text_col, label_names, input_path, extra_columns)
        writer_type = PartsWriter if output_suffix == ".parquet" else AppendWriter
        sidecar = Sidecar(output_path, identity, writer_type.unit)
        rows_resumed, position = sidecar.resume_point(writer_type)
        sidecar.save(rows_resumed, position)  # before the output exists, so an existing output is always explained
        rows_done, bad_rows = rows_resumed, []
        with closing(open_writer(output_path, output_suffix, layout, position)) as writer:
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
                writer.complete()
            except InputError as exc:  # a bad row part way: say what was kept and how to start over
                if not rows_done:
                    _leave_nothing(writer, sidecar)
                    raise InputError(f"{exc} (nothing was written)") from None
                raise InputError(
                    f"{exc} (the {rows_done:,} rows before its batch are kept in {writer.kept_in}, an unfinished "
                    f"run; after fixing the input, {sidecar.start_over()})"
                ) from None
            except KeyboardInterrupt:
                if not rows_done:
                    _leave_nothing(writer, sidecar)
                    raise Interrupted(
                        f"stopped before the first batch was scored: nothing was written, and no {output_path.name} "
                        f"or {sidecar.path.name} is left behind"
                    ) from None
                raise Interrupted(
                    f"{rows_done:,} rows are kept in {writer.kept_in}, and {sidecar.path.name} records how far the "
                    "run got; run the same command again to resume"
                ) from None
        sidecar.remove()
    return ScoreSummary(output_path, rows_done - rows_resumed, rows_resumed, bad_rows, time.monotonic() - started)


def _check_options(output_path: Path, label_names: Sequence[str], batch_size: int) -> None:
    if batch_size < 1:
        raise InputError(f"batch_size must be at least 1, got {batch_size}")
    if len(set(label_names)) != len(label_names):
        raise InputError(f"label names must be distinct: {', '.join(label_names)}")
    check_output_file(output_path, exists_ok=True)  # an existing output is this run's to resume, or refused later


def path_argument(name: str, value: object) -> Path:
    """``value`` as a Path when it is a str or ``os.PathLike`` of str; anything else is an
    :class:`~affectlab.errors.ArgumentTypeError` naming the argument, not a TypeError from pathlib."""
    if isinstance(value, str) or (isinstance(value, os.PathLike) and isinstance(os.fspath(value), str)):
        return Path(value)
    shown = "None" if value is None else f"{type(value).__name__} {value!r:.60}"
    raise ArgumentTypeError(f"{name} must be a file path (str or os.PathLike), not {shown}")


def _leave_nothing(writer: AppendWriter | PartsWriter, sidecar: Sidecar) -> None:
    """Delete what a run that stopped before its first batch made: there is nothing in it to resume."""
    writer.discard()
    sidecar.remove()


def _input_identity(path: Path) -> dict[str, Any]:
    """The input file a resumed run must share with the run that wrote the output so far."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise DataNotFoundError(f"file {str(path)!r} does not exist") from None
    if not path.is_file():
        raise InputError(f"{str(path)!r} is not a file")
    return {"path": str(path.resolve()), "bytes": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _numbered_batches(rows: Iterator[Row], batch_size: int, skip: int) -> Iterator[tuple[int, list[Row]]]:
    """Batches of the rows after the first ``skip``, each with the 1-based number of its first row."""
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


def _score_batch(batch: list[Row], text_col: str, predict: _Predict, n_labels: int) -> list[ScoredRow]:
    problems = [problem or text_problem(row.get(text_col)) for row, problem in batch]
    todo = [i for i, problem in enumerate(problems) if not problem]
    results = {}
    if todo:  # a batch of nothing but bad rows must not reach predict
        texts = [batch[i][0][text_col] for i in todo]
        probs, labels, *more = predict(texts)
        extras = more[0] if more else [{} for _ in texts]
        probs = np.asarray(probs, dtype=float)
        if probs.shape != (len(texts), n_labels) or len(labels) != len(texts):
            raise ValueError(
                f"predict returned probabilities of shape {probs.shape} and {len(labels)} label lists "
                f"for {len(texts)} texts and {n_labels} labels"
            )
        rounded = probs.round(SCORE_DECIMALS).tolist()
        rows = zip(todo, rounded, labels, extras, strict=True)
        results = {i: (scores, list(names), extra) for i, scores, names, extra in rows}
    unscored = [ScoredRow(row, None, [], problem) for (row, _), problem in zip(batch, problems, strict=True)]
    return [
        ScoredRow(row.row, *results[i][:2], "", results[i][2]) if i in results else row
        for i, row in enumerate(unscored)
    ]
