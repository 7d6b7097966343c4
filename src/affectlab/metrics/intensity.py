"""SemEval-2025 Task 11 track B's score (:func:`affectlab.metrics.scores.pearson_intensity`, re-exported here for
its callers) with its bootstrap interval, and the intensity levels shown beside the labels."""

from __future__ import annotations

import numpy as np

from affectlab.labels import INTENSITY_SCALE
from affectlab.metrics.bootstrap import Resampling, percentile_interval
from affectlab.metrics.scores import pearson_intensity, pearson_per_emotion

__all__ = ["intensity_levels", "pearson_intensity", "pearson_intensity_ci", "pearson_per_emotion"]


def pearson_intensity_ci(
    gold: np.ndarray, predicted: np.ndarray, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """The ``confidence`` percentile interval of :func:`pearson_intensity` over bootstrap resamples of the texts."""

    def resampled_score(rows: np.ndarray) -> np.ndarray:
        return np.array([pearson_intensity(gold[drawn], predicted[drawn]) for drawn in rows])

    return percentile_interval(resampled_score, len(gold), Resampling(n_resamples, confidence, seed, "indices"))


def intensity_levels(raw: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """The 0-3 levels shown beside the labels: an emotion the decision does not predict is 0 (as in track B, where
    a rating above 0 is exactly a track A label), a predicted one its rounded rating but at least 1."""
    levels = np.clip(np.rint(np.asarray(raw, dtype=np.float64)), 1, INTENSITY_SCALE[1])
    return np.where(np.asarray(predicted) > 0, levels, 0).astype(np.int8)
