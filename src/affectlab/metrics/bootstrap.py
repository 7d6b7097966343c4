"""Percentile bootstrap confidence intervals for F1-type scores, resampling texts with replacement.

All resamples are scored at once from per-label counts: a resample is a vector of how often each text was drawn,
so its TP/FP/FN are weighted sums, which makes 1,000 resamples of a 5k x 28 test set take well under a second.
"""

from __future__ import annotations

import numpy as np

from affectlab.labels import LabelSpace
from affectlab.metrics.classification import emotion_columns, f1_from_counts


def _resampled_counts(
    y_true: np.ndarray, y_pred: np.ndarray, n_resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y_true = np.asarray(y_true, dtype=bool)
    y_pred = np.asarray(y_pred, dtype=bool)
    n = len(y_true)
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=n_resamples).astype(np.float64)  # (B, n)
    tp = weights @ (y_true & y_pred)
    fp = weights @ (~y_true & y_pred)
    fn = weights @ (y_true & ~y_pred)
    return tp, fp, fn  # each (B, n_labels)


def _macro(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    return f1_from_counts(tp, fp, fn).mean(axis=1)


def _micro(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    return f1_from_counts(tp.sum(axis=1), fp.sum(axis=1), fn.sum(axis=1))


FROM_COUNTS = {
    "macro_f1": (_macro, False),
    "micro_f1": (_micro, False),
    "micro_f1_emotions": (_micro, True),
    "macro_f1_emotions": (_macro, True),
}
"""Each metric's score of every resample from its ``(resamples, labels)`` counts, and whether it reads the emotion
columns only (the metrics of :data:`affectlab.metrics.classification.PRIMARY_METRICS`, and micro-F1)."""


def bootstrap_ci(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    space: LabelSpace,
    metric: str = "macro_f1",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """The ``confidence`` percentile interval of ``metric`` (a key of :data:`FROM_COUNTS`) over ``n_resamples``
    bootstrap resamples of the texts."""
    if metric not in FROM_COUNTS:
        raise ValueError(f"no bootstrap for metric {metric!r}")
    if len(y_true) == 0:
        return (float("nan"), float("nan"))
    score, emotions_only = FROM_COUNTS[metric]
    tp, fp, fn = _resampled_counts(y_true, y_pred, n_resamples, seed)
    if emotions_only:
        columns = emotion_columns(space)
        tp, fp, fn = tp[:, columns], fp[:, columns], fn[:, columns]
    scores = score(tp, fp, fn)
    tail = (1.0 - confidence) / 2 * 100
    low, high = np.percentile(scores, [tail, 100 - tail])
    return float(low), float(high)
