"""SemEval-2025 Task 11 track B's score: Pearson's r between gold and predicted intensities (0-3), per emotion
column, averaged over the language's emotion columns (the task's evaluation script averages the per-emotion r)."""

from __future__ import annotations

import numpy as np

from affectlab.labels import INTENSITY_SCALE


def pearson_per_emotion(gold: np.ndarray, predicted: np.ndarray) -> list[float]:
    """Pearson's r of each column of ``gold`` and ``predicted`` (rows are texts), over the rows where the gold is
    known (not NaN). A column whose gold or prediction does not vary has no correlation; it scores 0, as a
    constant guess earns nothing."""
    gold, predicted = np.asarray(gold, dtype=np.float64), np.asarray(predicted, dtype=np.float64)
    if gold.shape != predicted.shape or gold.ndim != 2:
        raise ValueError(f"gold {gold.shape} and predicted {predicted.shape} must be matrices of one shape")
    scores = []
    for column in range(gold.shape[1]):
        known = ~np.isnan(gold[:, column])
        g, p = gold[known, column], predicted[known, column]
        if len(g) < 2 or np.ptp(g) == 0 or np.ptp(p) == 0:
            scores.append(0.0)
            continue
        scores.append(float(np.corrcoef(g, p)[0, 1]))
    return scores


def pearson_intensity(gold: np.ndarray, predicted: np.ndarray) -> float:
    """Track B's official score: the mean over emotion columns of :func:`pearson_per_emotion`."""
    return float(np.mean(pearson_per_emotion(gold, predicted)))


def pearson_intensity_ci(
    gold: np.ndarray, predicted: np.ndarray, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """The ``confidence`` percentile interval of :func:`pearson_intensity` over bootstrap resamples of the texts."""
    if len(gold) == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    resamples = rng.integers(0, len(gold), (n_resamples, len(gold)))
    scores = [pearson_intensity(gold[rows], predicted[rows]) for rows in resamples]
    tail = (1.0 - confidence) / 2 * 100
    low, high = np.percentile(scores, [tail, 100 - tail])
    return float(low), float(high)


def intensity_levels(raw: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """The 0-3 levels shown beside the labels: an emotion the decision does not predict is 0 (as in track B, where
    a rating above 0 is exactly a track A label), a predicted one its rounded rating but at least 1."""
    levels = np.clip(np.rint(np.asarray(raw, dtype=np.float64)), 1, INTENSITY_SCALE[1])
    return np.where(np.asarray(predicted) > 0, levels, 0).astype(np.int8)
