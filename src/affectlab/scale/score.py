"""Scoring many texts: ``affectlab score --input PARQUET|CSV (file or folder) --output FOLDER --engine local|ray``.

Both engines write one Parquet file per input file into the output folder, with the input's columns, then
``score_<label>`` (rounded to 4 decimals, as ``affectlab.detect`` gives them), ``labels`` (comma-joined) and
``error`` (why a row was not scored: missing or empty text), and both call the same :func:`predict_texts` on the
same batches, so they give identical scores.

* ``local``: each file streamed through :func:`affectlab.io.batchfile.score_file` (bounded memory, a progress bar,
  resumable after an interruption).
* ``ray``: Ray Data reads the files, ``map_batches`` runs a :class:`BatchScorer` actor per worker (the detector is
  loaded once per worker, not per batch) with ``concurrency`` workers, and the batches are written back per input
  file. ``address`` joins a running cluster (``ray://host:10001``); without it a local Ray instance is started.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.errors import DataNotFoundError, InputError
from affectlab.extras import require
from affectlab.io.outputs import check_output_dir
from affectlab.labels import SCORE_DECIMALS
from affectlab.text import text_problem

SUFFIXES = (".parquet", ".csv")
CPUS_PER_WORKER = 0.5
"""Logical CPUs each scoring actor asks Ray for, and READ_CPUS each read task: with a whole CPU for each,
``workers`` actors on a ``workers``-CPU instance left none for the read tasks and the pipeline stalled."""
READ_CPUS = 0.25


def input_files(source: str | os.PathLike[str]) -> list[Path]:
    """The Parquet/CSV file named, or those directly inside the folder named (sorted)."""
    path = Path(source)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES)
        if not files:
            raise InputError(f"{path} has no .parquet or .csv files")
        return files
    if not path.is_file():
        raise DataNotFoundError(f"{str(path)!r} does not exist")
    if path.suffix.lower() not in SUFFIXES:
        raise InputError(f"{path.name}: score reads .parquet and .csv files")
    return [path]


def predict_texts(detector: Any, texts: list[str]) -> tuple[np.ndarray, list[list[str]]]:
    """Decision scores and predicted label names of ``texts``, as ``affectlab.detect`` gives them (languages
    detected per text, no dialogue context)."""
    from affectlab.detectors.detect import labelled_texts

    done = labelled_texts(detector, texts)
    return done.scores, done.labels


ENGINES = ("local", "ray")


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
    progress: Callable[[Any], None] | None = None,
) -> list[dict[str, Any]]:
    """Score a Parquet/CSV file, or every one in a folder, into ``output/<stem>.parquet`` with the ``local`` engine
    (streaming, resumable; ``progress`` gets each batch's :class:`~affectlab.io.batchfile.ScoreProgress`) or with
    Ray Data (``workers``, a cluster at ``address``): ``affectlab score``. Both give the same scores; a file whose
    output an earlier run finished is kept, when the folder records the same options (else the run is refused: the
    folder would hold two models' scores). Returns one summary per file."""
    from affectlab.detectors.detect import model_identity
    from affectlab.io.resume import check_folder_run, is_finished

    files = input_files(Path(input_path))
    check_output_dir(Path(output))
    if engine not in ENGINES:
        raise InputError(f"--engine must be local or ray, not {engine!r}")
    if engine == "local" and (address or workers):
        raise InputError("--address and --workers apply only to --engine ray")
    options, details = model_identity(model, taxonomy, fast)
    options |= {"--text-col": text_col}
    finished = [Path(output) / f"{path.stem}.parquet" for path in files]
    check_folder_run(Path(output), options, details, [target for target in finished if is_finished(target)])
    if engine == "ray":
        return score_ray(files, Path(output), model, taxonomy, fast, text_col, batch_size, workers, address,
                         (options, details))  # fmt: skip
    from affectlab.detectors.resolve import resolve_detector

    detector = resolve_detector(model, taxonomy, fast)
    return score_local(files, Path(output), detector, text_col, batch_size, progress, options, details)


def score_local(
    files: list[Path],
    output: Path,
    detector: Any,
    text_col: str,
    batch_size: int,
    progress: Callable[[Any], None] | None = None,
    run_options: Mapping[str, Any] | None = None,
    run_details: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Score each file with :func:`affectlab.io.batchfile.score_file` into ``output/<stem>.parquet``. A file whose
    output an earlier run finished is kept as it is (``"kept": true``), so that running the same command again after
    an interruption resumes with the file it stopped in; an unfinished one resumes only with the same
    ``run_options`` and ``run_details`` (the options that chose ``detector`` and ``text_col`` by their command-line
    names, and the model's checksum: :func:`~affectlab.detectors.detect.model_identity`)."""
    from affectlab.io.batchfile import is_finished, score_file
    from affectlab.io.resume import record_folder_run

    check_output_dir(output).mkdir(parents=True, exist_ok=True)
    labels = detector.label_space.labels
    summaries = []
    for path in files:
        if is_finished(output / f"{path.stem}.parquet"):
            summaries.append({"input": str(path), "rows": 0, "bad_rows": 0, "kept": True})
            continue
        summary = score_file(path, output / f"{path.stem}.parquet", lambda texts: predict_texts(detector, texts),
                             labels, text_col=text_col, batch_size=batch_size, progress=progress,
                             run_options=run_options, run_details=run_details)  # fmt: skip
        if run_options is not None:
            record_folder_run(output, dict(run_options), dict(run_details or {}))
        summaries.append(
            {"input": str(path), "rows": summary.rows_written, "bad_rows": len(summary.bad_rows), "kept": False}
        )
    return summaries


class BatchScorer:
    """A Ray Data ``map_batches`` callable: loads the detector once (per worker), scores pandas batches."""

    def __init__(self, model: str, taxonomy: str, fast: bool, text_col: str) -> None:
        from affectlab.detectors.resolve import resolve_detector

        self.detector = resolve_detector(model, taxonomy, fast)
        self.text_col = text_col

    def __call__(self, batch: Any) -> Any:
        texts = batch[self.text_col].tolist()
        problems = [text_problem(text) for text in texts]
        todo = [i for i, problem in enumerate(problems) if not problem]
        labels = self.detector.label_space.labels
        scores = np.full((len(texts), len(labels)), np.nan)
        names = [""] * len(texts)
        if todo:
            probs, predicted = predict_texts(self.detector, [texts[i] for i in todo])
            scores[todo] = np.asarray(probs, dtype=float).round(SCORE_DECIMALS)
            for i, row_labels in zip(todo, predicted, strict=True):
                names[i] = ",".join(row_labels)
        out = batch.copy()
        for j, label in enumerate(labels):
            out[f"score_{label}"] = scores[:, j]
        out["labels"] = names
        out["error"] = problems
        return out


def score_ray(
    files: list[Path],
    output: Path,
    model: str,
    taxonomy: str,
    fast: bool,
    text_col: str,
    batch_size: int,
    workers: int | None,
    address: str | None,
    run: tuple[dict[str, Any], dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Score each file with Ray Data (see the module docstring) into ``output/<stem>.parquet``; ``run``: the options
    and details to record in the folder (:func:`~affectlab.io.resume.record_folder_run`) once a file is written."""
    ray = require("ray", "scale", "the ray engine")
    import pyarrow.parquet as pq

    from affectlab.io.resume import record_folder_run

    if not ray.is_initialized():  # a local instance gets the machine's CPUs
        ray.init(address=address, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    ray.data.DataContext.get_current().execution_options.preserve_order = True  # rows come back in input order
    check_output_dir(output).mkdir(parents=True, exist_ok=True)
    summaries = []
    for path in files:
        target = output / f"{path.stem}.parquet"
        if target.is_file():  # written whole or not at all (below): a finished output of an earlier run
            summaries.append({"input": str(path), "rows": 0, "bad_rows": 0, "kept": True})
            continue
        if path.suffix.lower() == ".parquet":
            dataset = ray.data.read_parquet(str(path), num_cpus=READ_CPUS)
        else:
            dataset = _read_csv(ray, path)
        if text_col not in dataset.schema().names:
            raise InputError(f"{path}: no column {text_col!r} (columns: {', '.join(dataset.schema().names)})")
        scored = dataset.map_batches(
            BatchScorer, fn_constructor_kwargs={"model": model, "taxonomy": taxonomy, "fast": fast,
                                                "text_col": text_col},
            batch_size=batch_size, batch_format="pandas", concurrency=workers or 1, num_cpus=CPUS_PER_WORKER,
        )  # fmt: skip
        table = scored.to_arrow_refs()
        combined = _concat([ray.get(ref) for ref in table])
        tmp = target.with_name(f".{target.name}.tmp")
        pq.write_table(combined, tmp)
        os.replace(tmp, target)
        if run is not None:
            record_folder_run(output, *run)
        errors = combined.column("error").to_pylist()
        summaries.append(
            {"input": str(path), "rows": combined.num_rows, "bad_rows": sum(bool(e) for e in errors), "kept": False}
        )
    return summaries


def _read_csv(ray: Any, path: Path) -> Any:
    """A CSV file with every column as text, as the local engine reads it (no type guessing)."""
    import csv

    import pyarrow as pa
    import pyarrow.csv

    with open(path, encoding="utf-8", newline="") as handle:
        header = next(csv.reader(handle), [])
    options = pyarrow.csv.ConvertOptions(column_types={name: pa.string() for name in header}, strings_can_be_null=False)
    return ray.data.read_csv(str(path), convert_options=options, num_cpus=READ_CPUS)


def _concat(tables: list[Any]) -> Any:
    import pyarrow as pa

    return pa.concat_tables([t for t in tables if t.num_rows] or tables[:1])
