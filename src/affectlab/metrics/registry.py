"""The metrics, one :class:`Metric` record each: its function, its count form (what the bootstrap scores
resamples with), how it averages and where it comes from. Datasets, decisions, the bootstrap and the scores of a
run all read :data:`METRICS`; the taxonomies (:data:`affectlab.labels.TAXONOMY_RECORDS`) and datasets name
their primary metric by its key here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from affectlab.labels import LabelSpace
from affectlab.metrics.scores import (
    macro_f1,
    macro_f1_emotions,
    macro_f1_of_counts,
    micro_f1,
    micro_f1_emotions,
    micro_f1_of_counts,
    pearson_intensity,
)
from affectlab.registry import Registry

CountForm = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Metric:
    """One metric: ``score(gold, predicted, space)``; ``gold`` says what it reads (``labels``: 0/1 matrices;
    ``intensities``: 0-3 ratings per emotion column); ``from_counts`` scores each row of ``(rows, labels)``
    TP/FP/FN counts (None: it has no count form), over the emotion columns only where ``emotions_only``;
    ``primary`` says whether a dataset or head may be ranked by it."""

    name: str
    score: Callable[[np.ndarray, np.ndarray, LabelSpace], float]
    averaging: str
    source: str
    gold: str = "labels"
    from_counts: CountForm | None = None
    emotions_only: bool = False
    primary: bool = True


METRICS: Registry[Metric] = Registry("metric")
for _metric in (
    Metric(
        "macro_f1",
        lambda y_true, y_pred, _space: macro_f1(y_true, y_pred),
        "macro: the unweighted mean of the per-label F1 over all labels, the none label included",
        "EmoBench-UA Table 1; GoEmotions Table 4",
        from_counts=macro_f1_of_counts,
    ),
    Metric(
        "micro_f1_emotions",
        micro_f1_emotions,
        "micro: TP/FP/FN pooled over the labels other than the none label, then F1",
        "SemEval-2019 Task 3 (EmoContext), section 6: micro-F1 over happy, sad and angry",
        from_counts=micro_f1_of_counts,
        emotions_only=True,
    ),
    Metric(
        "macro_f1_emotions",
        macro_f1_emotions,
        "macro: the unweighted mean of the per-label F1 over the labels other than the none label",
        "SemEval-2025 Task 11 track A's official score (none counts only through the emotions predicted for "
        "neutral texts)",
        from_counts=macro_f1_of_counts,
        emotions_only=True,
    ),
    Metric(
        "micro_f1",
        lambda y_true, y_pred, _space: micro_f1(y_true, y_pred),
        "micro: TP/FP/FN pooled over all labels, then F1",
        "scikit-learn's average='micro'; reported beside the primary metric",
        from_counts=micro_f1_of_counts,
        primary=False,
    ),
    Metric(
        "pearson_intensity",
        lambda gold, predicted, _space: pearson_intensity(gold, predicted),
        "Pearson's r per emotion column, then the unweighted mean over the columns",
        "SemEval-2025 Task 11 track B's official score",
        gold="intensities",
    ),
):
    METRICS.add(_metric.name, _metric)

PRIMARY_METRICS: Registry[Callable[[np.ndarray, np.ndarray, LabelSpace], float]] = Registry("primary metric")
"""The functions of the primary metrics of label data, by name, with "did you mean"."""
for _name, _metric in METRICS.items():
    if _metric.primary and _metric.gold == "labels":
        PRIMARY_METRICS.add(_name, _metric.score)
PRIMARY_METRIC_NAMES = tuple(PRIMARY_METRICS)
"""The primary metrics a dataset or head of labels may be judged by."""
INTENSITY_METRIC_NAMES = tuple(name for name, metric in METRICS.items() if metric.primary and metric.gold != "labels")
"""The primary metrics of intensity data."""


def primary_score(name: str, y_true: np.ndarray, y_pred: np.ndarray, space: LabelSpace) -> float:
    """The dataset's primary metric ``name`` (see :data:`PRIMARY_METRICS`)."""
    return PRIMARY_METRICS.get(name)(y_true, y_pred, space)
