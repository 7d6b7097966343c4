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


def bootstrap_ci(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    space: LabelSpace,
    metric: str = "macro_f1",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """The ``confidence`` percentile interval of ``metric`` (``macro_f1``, ``micro_f1`` or
    ``micro_f1_emotions``) over ``n_resamples`` bootstrap resamples of the texts."""
    if len(y_true) == 0:
        return (float("nan"), float("nan"))
    tp, fp, fn = _resampled_counts(y_true, y_pred, n_resamples, seed)
    if metric == "macro_f1":
        scores = f1_from_counts(tp, fp, fn).mean(axis=1)
    elif metric in ("micro_f1", "micro_f1_emotions"):
        if metric == "micro_f1_emotions":
            columns = emotion_columns(space)
            tp, fp, fn = tp[:, columns], fp[:, columns], fn[:, columns]
        scores = f1_from_counts(tp.sum(axis=1), fp.sum(axis=1), fn.sum(axis=1))
    else:
        raise ValueError(f"no bootstrap for metric {metric!r}")
    tail = (1.0 - confidence) / 2 * 100
    low, high = np.percentile(scores, [tail, 100 - tail])
    return float(low), float(high)
