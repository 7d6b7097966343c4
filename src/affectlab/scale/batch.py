"""The one batch scorer: a user's table read, scored batch by batch with a detector, written and resumed.

:class:`BatchScorer` serves ``detect --input`` (:func:`affectlab.detect_file`), ``score`` on the local engine and
``score`` on Ray, with one set of output columns: the input's, unchanged (a .txt file has one, ``text``), then
``score_<label>`` for each label (4 decimals: ``affectlab.labels.SCORE_DECIMALS``), ``labels`` (the predicted names,
highest score first; joined with "," except in JSON Lines, where they are a list), ``lang`` (the language each text
was read as: a tag given as given, ``und`` where none could be told, a long text's the language of most of its
characters), ``supported`` (whether the model was trained on it; only for a model that says), ``intensity_<label>``
per emotion (when asked for), ``notes`` (what :func:`affectlab.detect` notes of the text, joined with "; ": why no
language was told, a text's languages and their shares, "languages: en 40 %, fi 20 %, ...") and
``error`` (why a row was not scored: missing, empty or not text). Each row's scores are those ``affectlab.detect``
gives the text alone.

A file run streams the rows, writes after each batch and records how far it got in a sidecar
``<output>.progress.json`` (:mod:`affectlab.io.resume`), so that running the same call again after a crash or an
interrupt continues from there; the sidecar records every option that changes the output, and a run with other
options does not resume it. The checks of the paths and options are the job's (:mod:`affectlab.scale.jobs`), made
once before the model loads; the scorer takes a :class:`FileRun` already checked.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from affectlab.detectors.detect import Reader
from affectlab.errors import InputError, Interrupted
from affectlab.io.outputs import output_lock
from affectlab.io.resume import RunIdentity, Sidecar
from affectlab.io.table_writers import AppendWriter, OutputLayout, PartsWriter, ScoredRow, open_writer, output_layout
from affectlab.io.tables import Row, Table, numbered_batches, stream_table
from affectlab.labels import SCORE_DECIMALS
from affectlab.langid import check_lang

if TYPE_CHECKING:
    from affectlab.detectors import Detector

__all__ = ["BatchScorer", "FileRun", "ScoreProgress", "ScoreSummary"]


@dataclass(frozen=True)
class ScoreProgress:
    """How far a file run has got; reported after each batch is safely on disk."""

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
    """What a completed file run did."""

    output_path: Path
    rows_written: int  # by this run
    rows_skipped_resumed: int  # already written by an earlier, interrupted run
    bad_rows: list[tuple[int, str]]  # (1-based data row number, why it was not scored), for this run's rows
    seconds: float


@dataclass(frozen=True)
class FileRun:
    """One input table and the output it is scored into, as the job checked them (once): their formats (by
    suffix), and what a resumed run must share with the run that wrote the output so far (the input file, the
    options that change the output, the details that follow from them)."""

    input_path: Path
    input_format: str
    output_path: Path
    output_format: str
    identity: RunIdentity


class BatchScorer:
    """A detector scoring a table's rows batch by batch into the one set of output columns (module docstring):
    ``text_col`` holds the text, ``lang`` (a tag already checked) is read as every text's language instead of
    identifying each one's, ``lang_col`` names a column holding each row's language (an empty cell: identified),
    ``intensity`` adds each emotion's 0-3 intensity and ``sentences`` each text's sentences, scored (both refused
    here for a detector that cannot give them); ``explain`` (True, or labels to explain beside the given ones)
    adds each text's ``explanation`` (:mod:`affectlab.detectors.explain`)."""

    def __init__(
        self,
        detector: Detector,
        text_col: str = "text",
        lang: str | None = None,
        intensity: bool = False,
        sentences: bool = False,
        lang_col: str | None = None,
        explain: bool | Sequence[str] = False,
    ):
        self.reader = Reader.checked(detector, intensity, sentences, explain)
        self.detector, self.text_col, self.lang, self.intensity = detector, text_col, lang, intensity
        self.sentences, self.lang_col = sentences, lang_col
        self.explained = self.reader.explain
        self.labels: tuple[str, ...] = tuple(detector.label_space.labels)

    @property
    def extra_columns(self) -> list[tuple[str, Any]]:
        """The columns after ``labels`` (before ``error``), by name and type. With ``lang_col="lang"`` the input's
        ``lang`` column is filled in instead (:meth:`score_rows`)."""
        return self.reader.file_columns(read_as=self.lang_col != "lang")

    @property
    def columns_record(self) -> dict[str, Any]:
        """The output's columns as a run records them (a resumed run must have the same)."""
        return {"text column": self.text_col, "labels": list(self.labels),
                "extra columns": [name for name, _ in self.extra_columns]}  # fmt: skip

    def layout(self, columns: list[str], fields: Any, source_name: str) -> OutputLayout:
        """The output columns of an input with ``columns`` (Parquet ``fields``, else None); refuses an input
        without the text column (or the language column named) or with a column the output adds, naming
        ``source_name``."""
        if self.lang_col is not None and self.lang_col not in columns:
            raise InputError(f"{source_name} has no column {self.lang_col!r} (columns: {', '.join(columns)})")
        return output_layout(columns, fields, self.text_col, self.labels, source_name, self.extra_columns,
                             SCORE_DECIMALS)  # fmt: skip

    def score_rows(self, batch: Sequence[Row]) -> list[ScoredRow]:
        """The rows of one batch with their scores; a row without a usable text (or language tag) is kept
        unscored, with the reason in ``error``, and a batch of nothing but such rows never reaches the model."""
        problems = [problem or self._row_problem(row) for row, problem in batch]
        scored = [ScoredRow(row, None, [], problem) for (row, _), problem in zip(batch, problems, strict=True)]
        todo = [i for i, problem in enumerate(problems) if not problem]
        if todo:
            rows = [batch[i][0] for i in todo]
            texts, langs = [row[self.text_col] for row in rows], [self._row_lang(row) for row in rows]
            results = self.reader.file_rows(texts, langs)
            for i, (scores, labels, extra) in zip(todo, results, strict=True):
                row = batch[i][0] if self.lang_col != "lang" else {**batch[i][0], "lang": extra.pop("lang")}
                scored[i] = ScoredRow(row, scores, labels, "", extra)
        return scored

    def _row_problem(self, row: dict[str, Any]) -> str:
        """Why a row cannot be scored ("" when it can): its text (:func:`~affectlab.text.text_problem`, too long)
        or its language cell."""
        text = row.get(self.text_col)
        problem = self.reader.problem(text)
        if problem or self.lang_col is None:
            return problem
        try:
            check_lang(self._row_lang(row) or None, f"the {self.lang_col} column")
        except (InputError, TypeError) as exc:
            return str(exc)
        return ""

    def _row_lang(self, row: dict[str, Any]) -> str:
        """The language a row is read as: ``lang``, else its language cell (stripped; "" to identify)."""
        if self.lang:
            return self.lang
        cell = row.get(self.lang_col) if self.lang_col is not None else None
        return "" if cell is None or (isinstance(cell, float) and cell != cell) else str(cell).strip()

    def score_file(
        self, run: FileRun, batch_size: int = 1024, progress: Callable[[ScoreProgress], None] | None = None
    ) -> ScoreSummary:
        """Score every row of ``run``'s input into its output, ``batch_size`` rows at a time, resuming an unfinished
        earlier run of the same input and options (and refusing one of others, in one line naming what differs).
        An existing output that no unfinished run left behind is never overwritten. A bad row part way raises
        :class:`InputError` saying how many rows are kept; Ctrl-C raises :class:`~affectlab.errors.Interrupted`,
        saying how many rows are kept for the run that resumes, and where; a run stopped before its first batch was
        written leaves nothing behind (no output, no sidecar) and says so."""
        started = time.monotonic()
        fixed_columns = run.output_format != ".jsonl"
        with output_lock(run.output_path), stream_table(run.input_path, run.input_format, batch_size,
                                                        fixed_columns) as source:  # fmt: skip
            layout = self.layout(source.columns, source.fields, run.input_path.name)
            writer_type = PartsWriter if run.output_format == ".parquet" else AppendWriter
            sidecar = Sidecar(run.output_path, run.identity, writer_type.unit)
            rows_resumed, position = sidecar.resume_point(writer_type)
            sidecar.save(rows_resumed, position)  # before the output exists, so an existing output is always explained
            with closing(open_writer(run.output_path, run.output_format, layout, position)) as writer:
                loop = _Loop(self, source, writer, sidecar, rows_resumed, started, run.output_path)
                bad_rows = loop.run(batch_size, progress)
            sidecar.remove()
        return ScoreSummary(run.output_path, loop.rows_done - rows_resumed, rows_resumed, bad_rows,
                            time.monotonic() - started)  # fmt: skip


class _Loop:
    """The batches of one file run: scored, written, recorded in the sidecar, reported; and what a run that stops
    part way says and leaves behind."""

    def __init__(
        self,
        scorer: BatchScorer,
        source: Table,
        writer: AppendWriter | PartsWriter,
        sidecar: Sidecar,
        rows_resumed: int,
        started: float,
        output_path: Path,
    ) -> None:
        self.scorer, self.source, self.writer, self.sidecar = scorer, source, writer, sidecar
        self.rows_resumed = self.rows_done = rows_resumed
        self.started, self.output_path = started, output_path

    def run(self, batch_size: int, progress: Callable[[ScoreProgress], None] | None) -> list[tuple[int, str]]:
        """Every batch after those resumed; the bad rows of this run, by 1-based row number."""
        bad_rows: list[tuple[int, str]] = []
        try:
            for first_row, batch in numbered_batches(self.source.rows, batch_size, self.rows_resumed):
                scored = self.scorer.score_rows(batch)
                self.writer.write(scored)
                self.rows_done += len(batch)
                self.sidecar.save(self.rows_done, self.writer.position)
                bad_rows += [(first_row + i, row.error) for i, row in enumerate(scored) if row.error]
                if progress is not None:
                    progress(self._report())
            self.writer.complete()
        except InputError as exc:  # a bad row part way: say what was kept and how to start over
            raise self._stopped_by_bad_row(exc) from None
        except KeyboardInterrupt:
            raise self._interrupted() from None
        return bad_rows

    def _report(self) -> ScoreProgress:
        seconds = time.monotonic() - self.started
        return ScoreProgress(self.rows_done, self.rows_resumed, self.source.fraction_read(self.rows_done), seconds)

    def _stopped_by_bad_row(self, exc: InputError) -> InputError:
        if not self.rows_done:
            self._leave_nothing()
            return InputError(f"{exc} (nothing was written)")
        return InputError(
            f"{exc} (the {self.rows_done:,} rows before its batch are kept in {self.writer.kept_in}, an unfinished "
            f"run; after fixing the input, {self.sidecar.start_over()})"
        )

    def _interrupted(self) -> Interrupted:
        if not self.rows_done:
            self._leave_nothing()
            return Interrupted(
                f"stopped before the first batch was scored: nothing was written, and no {self.output_path.name} or "
                f"{self.sidecar.path.name} is left behind"
            )
        return Interrupted(
            f"{self.rows_done:,} rows are kept in {self.writer.kept_in}, and {self.sidecar.path.name} records how far "
            "the run got; run the same command again to resume"
        )

    def _leave_nothing(self) -> None:
        """Delete what a run that stopped before its first batch made: there is nothing in it to resume."""
        self.writer.discard()
        self.sidecar.remove()
