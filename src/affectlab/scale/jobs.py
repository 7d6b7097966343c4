"""The batch scoring jobs: ``affectlab detect --input`` (:func:`detect_file`) and ``affectlab score --input PARQUET|CSV
(file or folder) --output FOLDER --engine local|ray`` (:func:`score_files`).

Each job checks what it is given once, before the model loads where it can: the paths' types, the options, the
input files (format, existence, UTF-8), the output (format, writable); then it loads the model once, and checks the
resume records against the run (the unfinished output's sidecar, the output folder's record of finished files)
once. Both jobs score with one :class:`~affectlab.scale.batch.BatchScorer`, so their rows get the same columns and
the same scores as ``affectlab.detect`` gives each text alone.

``score`` writes one Parquet file per input file into the output folder. ``local`` streams each file through the
scorer (bounded memory, a progress bar, resumable after an interruption); ``ray`` runs the same scorer on Ray Data
workers (:mod:`affectlab.scale.ray_engine`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from affectlab.detectors.resolve import ModelRef, resolve_detector
from affectlab.errors import DataNotFoundError, InputError
from affectlab.io.outputs import check_output_dir, check_output_file
from affectlab.io.resume import RunIdentity, check_folder_run, input_identity, is_finished, record_folder_run
from affectlab.io.table_writers import OUTPUT_SUFFIXES
from affectlab.io.tables import TABLE_SUFFIXES, check_table, check_utf8_start, path_argument, table_format
from affectlab.langid import check_lang
from affectlab.scale.batch import BatchScorer, FileRun, ScoreProgress, ScoreSummary
from affectlab.scale.identity import model_identity

INPUT_SUFFIXES = TABLE_SUFFIXES
"""What ``detect --input`` reads: CSV, TSV, JSON Lines, plain text (one text per line) and Parquet."""
SCORE_SUFFIXES = (".parquet", ".csv")
"""What ``score`` reads."""
ENGINES = ("local", "ray")


@dataclass(frozen=True)
class FileJob:
    """A ``detect --input`` run, checked and with its model loaded: :meth:`run` scores the file."""

    scorer: BatchScorer
    file: FileRun
    batch_size: int

    def run(self, progress: Callable[[ScoreProgress], None] | None = None) -> ScoreSummary:
        """Score the file, reporting each batch to ``progress``."""
        return self.scorer.score_file(self.file, self.batch_size, progress)


def detect_file(
    input_path: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    taxonomy: str = "ekman",
    model: ModelRef = "default",
    fast: bool = False,
    text_col: str = "text",
    batch_size: int = 1024,
    progress: Callable[[ScoreProgress], None] | None = None,
    lang: str | None = None,
    intensity: bool = False,
    sentences: bool = False,
    lang_col: str | None = None,
    explain: bool | Sequence[str] = False,
) -> ScoreSummary:
    """Score every row of a file (CSV, TSV, JSON Lines, plain text or Parquet) into ``output_path`` (CSV, TSV, JSON
    Lines or Parquet), as ``affectlab detect --input`` does: each row's scores and labels are those
    :func:`affectlab.detect` gives the text alone, then its ``lang`` and ``supported`` (the default heads), with
    ``intensity`` an ``intensity_<label>`` column per emotion, and ``notes``: the notes :func:`affectlab.detect`
    gives the text (read sentence by sentence, a language the model was not trained on), joined with "; ", or ""
    when there are none (the columns: :mod:`affectlab.scale.batch`); ``sentences`` adds a ``sentences`` column (each
    text's sentences, scored: a list in JSON Lines and Parquet, JSON text in CSV/TSV); ``lang_col`` names a column
    holding each row's language (an empty cell: identified; ``lang`` itself is filled in with the tag read);
    ``explain`` (True, or labels to explain beside the given ones) adds an ``explanation`` column (each given
    label's words and their weights: :func:`affectlab.detect`'s; one more scored text per word). A row
    with a missing, empty or whitespace-only text is written unscored, with the reason in ``error``, and listed in
    the summary's ``bad_rows``. Written batch by batch (``batch_size`` rows); a run stopped part way resumes when
    called again with the same options (the model, ``taxonomy`` and ``fast``, ``lang``, ``intensity``,
    ``text_col``), and one with other options is refused, naming them as the command line does (``--fast``). An
    existing output that no unfinished run left behind is never overwritten. Paths that are not a str or
    ``os.PathLike`` raise :class:`~affectlab.errors.ArgumentTypeError`; a bad file or option an
    :class:`~affectlab.errors.InputError`."""
    options = DetectOptions(taxonomy, model, fast, text_col, batch_size, lang, intensity, sentences, lang_col, explain)
    job = prepare_detect_file(input_path, output_path, options)
    return job.run(progress)


@dataclass(frozen=True)
class DetectOptions:
    """What a ``detect --input`` run is asked for besides its paths: :func:`detect_file`'s keywords."""

    taxonomy: str = "ekman"
    model: ModelRef = "default"
    fast: bool = False
    text_col: str = "text"
    batch_size: int = 1024
    lang: str | None = None
    intensity: bool = False
    sentences: bool = False
    lang_col: str | None = None
    explain: bool | Sequence[str] = False


def prepare_detect_file(
    input_path: str | os.PathLike[str], output_path: str | os.PathLike[str], options: DetectOptions
) -> FileJob:
    """:func:`detect_file`'s checks, each made once (the paths, the options, the input, the output: before the model
    loads), and its model: the job that :meth:`FileJob.run` runs."""
    input_path, output_path = path_argument("input_path", input_path), path_argument("output_path", output_path)
    lang = check_lang(options.lang)
    if lang and options.lang_col:
        raise InputError("give --lang (every row one language) or --lang-col (each row's own), not both")
    _check_batch_size(options.batch_size)
    input_format = check_table(input_path, INPUT_SUFFIXES)
    output_format = table_format(output_path, OUTPUT_SUFFIXES, "output")
    check_output_file(output_path, exists_ok=True)  # an existing output is this run's to resume, or refused later
    detector = resolve_detector(options.model, options.taxonomy, options.fast)
    scorer = BatchScorer(detector, options.text_col, lang, options.intensity, options.sentences, options.lang_col,
                         options.explain)  # fmt: skip
    recorded, details = model_identity(options.model, options.taxonomy, options.fast)
    recorded |= {"--lang": lang, "--intensity": options.intensity, "--text-col": options.text_col}
    recorded |= {"--sentences": options.sentences, "--lang-col": options.lang_col}
    recorded |= {"--explain": scorer.explained or scorer.explained is not None}  # False, True or the labels named
    identity = RunIdentity(input_identity(input_path), recorded, details | scorer.columns_record)
    return FileJob(scorer, FileRun(input_path, input_format, output_path, output_format, identity), options.batch_size)


def _check_batch_size(batch_size: int) -> None:
    if batch_size < 1:
        raise InputError(f"batch_size must be at least 1, got {batch_size}")


def input_files(source: str | os.PathLike[str]) -> list[Path]:
    """The Parquet/CSV file named, or those directly inside the folder named (sorted)."""
    path = Path(source)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in SCORE_SUFFIXES)
        if not files:
            raise InputError(f"{path} has no .parquet or .csv files")
        return files
    if not path.is_file():
        raise DataNotFoundError(f"{str(path)!r} does not exist")
    if path.suffix.lower() not in SCORE_SUFFIXES:
        raise InputError(f"{path.name}: score reads .parquet and .csv files")
    return [path]


@dataclass
class ScoreJob:
    """A ``score`` run, checked: its input files, each one's output in ``folder`` and those an earlier run
    finished (kept as they are), the scorer, and what the run records (options and details, by their names in a
    refusal: :mod:`affectlab.io.resume`)."""

    files: list[Path]
    folder: Path
    scorer: BatchScorer
    options: dict[str, Any]
    details: dict[str, Any]
    batch_size: int
    finished: set[Path] = field(default_factory=set)

    def target(self, path: Path) -> Path:
        """Where the scores of input ``path`` go."""
        return output_of(self.folder, path)

    @property
    def folder_details(self) -> dict[str, Any]:
        """The details the folder records of its finished files: the model's, and the columns they have."""
        return {**self.details, "extra columns": self.scorer.columns_record["extra columns"]}

    def record_finished(self) -> None:
        """Record in the folder, once a file in it is finished, the options its files are scored with."""
        record_folder_run(self.folder, self.options, self.folder_details)

    def each_file(self, score: Callable[[Path, Path], tuple[int, int]]) -> list[dict[str, Any]]:
        """``score(input, output)`` -> ``(rows, bad rows)`` for each input whose output no earlier run finished (a
        finished one is kept as it is: ``"kept": true``), recording the run in the folder after each file; one
        summary per input, in order: ``input``, ``rows``, ``bad_rows``, ``kept``."""
        self.folder.mkdir(parents=True, exist_ok=True)
        summaries = []
        for path in self.files:
            target = self.target(path)
            if target in self.finished:
                summaries.append({"input": str(path), "rows": 0, "bad_rows": 0, "kept": True})
                continue
            rows, bad_rows = score(path, target)
            self.record_finished()
            summaries.append({"input": str(path), "rows": rows, "bad_rows": bad_rows, "kept": False})
        return summaries


def score_files(
    input_path: str | os.PathLike[str],
    output: str | os.PathLike[str],
    engine: str = "local",
    model: str = "default",
    taxonomy: str = "ekman",
    fast: bool = False,
    text_col: str = "text",
    batch_size: int = 1024,
    workers: int | None = None,
    address: str | None = None,
    progress: Callable[[ScoreProgress], None] | None = None,
) -> list[dict[str, Any]]:
    """Score a Parquet/CSV file, or every one in a folder, into ``output/<stem>.parquet`` with the ``local`` engine
    (streaming, resumable; ``progress`` gets each batch's :class:`~affectlab.scale.batch.ScoreProgress`) or with
    Ray Data (``workers``, a cluster at ``address``): ``affectlab score``. Both write the columns ``detect --input``
    writes (:mod:`affectlab.scale.batch`) and give the same scores; a file whose output an earlier run finished is
    kept, when the folder records the same options and columns (else the run is refused: the folder would hold two
    models' scores). Returns one summary per file: ``input``, ``rows``, ``bad_rows`` and ``kept``."""
    files = input_files(Path(input_path))
    folder = check_output_dir(Path(output))
    _check_engine(engine, workers, address)
    _check_batch_size(batch_size)
    finished = _finished_outputs(files, folder)
    scorer = BatchScorer(resolve_detector(model, taxonomy, fast), text_col)
    options, details = model_identity(model, taxonomy, fast)
    job = ScoreJob(files, folder, scorer, options | {"--text-col": text_col}, details, batch_size, finished)
    check_folder_run(folder, job.options, job.folder_details, sorted(finished))
    if engine == "ray":
        from affectlab.scale.ray_engine import score_ray

        return score_ray(job, (model, taxonomy, fast), workers, address)
    return score_local(job, progress)


def output_of(folder: Path, path: Path) -> Path:
    """Where ``score`` writes the scores of input ``path``."""
    return folder / f"{path.stem}.parquet"


def _finished_outputs(files: list[Path], folder: Path) -> set[Path]:
    """The outputs in ``folder`` that an earlier run finished; each other input, a CSV file, checked to be UTF-8
    from its first 64 KiB (before the model loads)."""
    finished = set()
    for path in files:
        if is_finished(output_of(folder, path)):
            finished.add(output_of(folder, path))
        elif path.suffix.lower() == ".csv":
            check_utf8_start(path)
    return finished


def _check_engine(engine: str, workers: int | None, address: str | None) -> None:
    if engine not in ENGINES:
        raise InputError(f"--engine must be local or ray, not {engine!r}")
    if engine == "local" and (address or workers):
        raise InputError("--address and --workers apply only to --engine ray")


def score_local(job: ScoreJob, progress: Callable[[ScoreProgress], None] | None = None) -> list[dict[str, Any]]:
    """Score each file of ``job`` with its scorer into ``folder/<stem>.parquet``. A file whose output an earlier run
    finished is kept as it is (``"kept": true``), so that running the same command again after an interruption
    resumes with the file it stopped in; an unfinished one resumes only with the same options and details."""

    def score(path: Path, target: Path) -> tuple[int, int]:
        identity = RunIdentity(input_identity(path), job.options, job.details | job.scorer.columns_record)
        run = FileRun(path, path.suffix.lower(), target, ".parquet", identity)
        summary = job.scorer.score_file(run, job.batch_size, progress)
        return summary.rows_written, len(summary.bad_rows)

    return job.each_file(score)
