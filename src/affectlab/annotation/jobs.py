"""The whole jobs of ``affectlab annotate``, one call each, so that the Python API does what the command does:
read the ratings, aggregate them and write the labels; or read, aggregate, measure agreement, compare with released
labels and write the report and its chart."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from affectlab.annotation.aggregation import Aggregation, aggregate
from affectlab.annotation.agreement import agreement_report
from affectlab.annotation.comparison import compare
from affectlab.annotation.files import write_aggregation
from affectlab.annotation.readers import Level, RatingsSource, read_controls
from affectlab.annotation.report import agreement_chart, markdown_report
from affectlab.io.atomic import write_atomically
from affectlab.io.progress import Progress, quiet

REPORT_FILE, CHART_FILE = "report.md", "agreement.png"


def aggregate_ratings(
    ratings: RatingsSource,
    method: str = "dawid-skene",
    min_confidence: float = 0.9,
    out: str | Path | None = None,
    progress: Progress = quiet,
    controls: str | Path | None = None,
    min_votes: int = 2,
) -> Aggregation:
    """Aggregate the ratings into one label set per item (crowd-kit's ``method``, one model per label) and write
    them to ``out`` (CSV, TSV or JSON Lines, atomically) when given; ``controls``: a file of control questions'
    known answers (:func:`~affectlab.annotation.readers.read_controls`), taken as known truths by Dawid-Skene;
    ``min_votes``: what ``votes`` needs."""
    progress(f"reading {ratings.name}")
    annotations = ratings.read()
    known = read_controls(controls) if controls is not None else None
    progress(f"fitting {method} on {len(annotations.items):,} items")
    aggregation = aggregate(annotations, method, min_confidence=min_confidence, controls=known, min_votes=min_votes)
    if out is not None:
        progress(f"writing {out}")
        write_aggregation(aggregation, out)
    return aggregation


def write_report(
    ratings: RatingsSource,
    out: str | Path,
    method: str = "dawid-skene",
    min_confidence: float = 0.9,
    gold: Sequence[str | Path] = (),
    level: Level | None = None,
    n_bootstrap: int = 1000,
    command: str = "",
    progress: Progress = quiet,
) -> tuple[Path, Path]:
    """Write ``report.md`` (the data, agreement per label with 95 % intervals, the aggregation, the comparison with
    the ``gold`` labels if any, and ``command``, the command line that made it) and ``agreement.png`` (alpha per
    label) to the folder ``out``, both at once or neither. Returns their paths."""
    progress(f"reading {ratings.name}")
    annotations = ratings.read(level)
    progress(f"fitting {method} on {len(annotations.items):,} items")
    aggregation = aggregate(annotations, method, min_confidence=min_confidence)
    progress(f"agreement with {n_bootstrap:,} bootstrap resamples")
    agreement = agreement_report(annotations, level=level, n_bootstrap=n_bootstrap)
    progress("comparing with the gold labels")
    comparison = compare(aggregation, list(gold)) if gold else None
    progress("writing the report")
    markdown = markdown_report(
        ratings.name, annotations, agreement, n_bootstrap, aggregation, command,
        binarized=ratings.binarize_values, comparison=comparison, gold=[str(path) for path in gold],
    )  # fmt: skip
    chart = agreement_chart(agreement, level or annotations.level)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    write_atomically({folder / REPORT_FILE: markdown.encode("utf-8"), folder / CHART_FILE: chart})
    return folder / REPORT_FILE, folder / CHART_FILE
