"""``affectlab score --engine ray``: Ray Data reads the files, ``map_batches`` runs a :class:`RayBatches` actor per
worker (each with its own :class:`~affectlab.scale.batch.BatchScorer`, the detector loaded once per worker, not per
batch) with ``concurrency`` workers, and the batches are written back per input file, whole or not at all.
``address`` joins a running cluster (``ray://host:10001``); without it a local Ray instance is started."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from affectlab.extras import require
from affectlab.io.table_writers import OutputLayout
from affectlab.scale.batch import BatchScorer

if TYPE_CHECKING:
    from affectlab.scale.jobs import ScoreJob

CPUS_PER_WORKER = 0.5
"""Logical CPUs each scoring actor asks Ray for, and READ_CPUS each read task: with a whole CPU for each,
``workers`` actors on a ``workers``-CPU instance left none for the read tasks and the pipeline stalled."""
READ_CPUS = 0.25


class RayBatches:
    """A Ray Data ``map_batches`` callable: builds its :class:`BatchScorer` once (per worker) and scores Arrow
    batches into the output's columns (``layout``, as the driver checked it against the input)."""

    def __init__(self, model: tuple[str, str, bool], text_col: str, layout: OutputLayout) -> None:
        from affectlab.detectors.resolve import resolve_detector

        self.scorer = BatchScorer(resolve_detector(*model), text_col)
        self.layout = layout

    def __call__(self, batch: Any) -> Any:
        rows = [(row, "") for row in batch.to_pylist()]
        return self.layout.parquet_table(self.scorer.score_rows(rows))


def score_ray(
    job: ScoreJob, model: tuple[str, str, bool], workers: int | None, address: str | None
) -> list[dict[str, Any]]:
    """Score each file of ``job`` with Ray Data (see the module docstring) into ``folder/<stem>.parquet``;
    ``model``: the ``(model, taxonomy, fast)`` each worker resolves. A file whose output an earlier run finished is
    kept; the folder records the run's options once a file is written."""
    ray = require("ray", "scale", "the ray engine")
    if not ray.is_initialized():  # a local instance gets the machine's CPUs
        ray.init(address=address, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    ray.data.DataContext.get_current().execution_options.preserve_order = True  # rows come back in input order

    def score(path: Path, target: Path) -> tuple[int, int]:
        errors = _score_file(ray, job, path, target, model, workers or 1)
        return len(errors), sum(map(bool, errors))

    return job.each_file(score)


def _score_file(
    ray: Any, job: ScoreJob, path: Path, target: Path, model: tuple[str, str, bool], workers: int
) -> list[str]:
    """Score one file into ``target`` (written whole, then moved into place); the ``error`` of each row."""
    dataset = ray.data.read_parquet(str(path), num_cpus=READ_CPUS) if path.suffix.lower() == ".parquet" else (
        _read_csv(ray, path))  # fmt: skip
    schema = dataset.schema()
    fields = [pa.field(name, kind) for name, kind in zip(schema.names, schema.types, strict=True)]
    layout = job.scorer.layout(list(schema.names), fields, path.name)
    scored = dataset.map_batches(
        RayBatches, fn_constructor_kwargs={"model": model, "text_col": job.scorer.text_col, "layout": layout},
        batch_size=job.batch_size, batch_format="pyarrow", concurrency=workers, num_cpus=CPUS_PER_WORKER,
    )  # fmt: skip
    combined = _concat([ray.get(ref) for ref in scored.to_arrow_refs()], layout)
    temporary = target.with_name(f".{target.name}.tmp")
    pq.write_table(combined, temporary)
    os.replace(temporary, target)
    return combined.column("error").to_pylist()


def _read_csv(ray: Any, path: Path) -> Any:
    """A CSV file with every column as text, as the local engine reads it (no type guessing)."""
    import csv

    import pyarrow.csv

    with open(path, encoding="utf-8", newline="") as handle:
        header = next(csv.reader(handle), [])
    options = pyarrow.csv.ConvertOptions(column_types={name: pa.string() for name in header}, strings_can_be_null=False)
    return ray.data.read_csv(str(path), convert_options=options, num_cpus=READ_CPUS)


def _concat(tables: list[pa.Table], layout: OutputLayout) -> pa.Table:
    return pa.concat_tables([t for t in tables if t.num_rows] or [layout.parquet_table([])])
