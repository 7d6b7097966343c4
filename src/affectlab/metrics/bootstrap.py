"""Percentile bootstrap confidence intervals, resampling items (texts, instances) with replacement: the one helper
every interval of affectlab is drawn with (:func:`percentile_intervals`, :class:`Resampling`), and its use for
F1-type scores.

A resample is drawn in one of two ways, both from ``numpy.random.default_rng(seed)``:

* ``counts``: how often each item was drawn (a multinomial row), so a statistic that is a sum over items is one
  matrix product for all resamples; 1,000 resamples of a 5k x 28 test set take well under a second. F1 intervals
  (:func:`bootstrap_ci`), agreement intervals (:mod:`affectlab.annotation.bootstrap`, in chunks) and the accuracy
  of multiple-choice tasks (:func:`affectlab.uatasks.multiple_choice.bootstrap_accuracy_ci`) use it;
* ``indices``: the positions of the drawn items, for a statistic computed afresh on each resample: track B's
  Pearson's r (:func:`affectlab.metrics.intensity.pearson_intensity_ci`).

The two draw different resamples from the same seed; each caller keeps the one its published figures used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np

from affectlab.labels import LabelSpace
from affectlab.metrics.registry import METRICS
from affectlab.metrics.scores import emotion_columns

Scheme = Literal["counts", "indices"]
Statistic = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Resampling:
    """How a percentile bootstrap resamples: ``n_resamples`` draws from ``numpy.random.default_rng(seed)`` by
    ``scheme``, in blocks of at most ``chunk`` (all at once when None), for a central ``confidence`` interval."""

    n_resamples: int = 1000
    confidence: float = 0.95
    seed: int = 0
    scheme: Scheme = "counts"
    chunk: int | None = None

    def blocks(self, n_items: int) -> Iterator[np.ndarray]:
        """The resamples of ``n_items`` items, block by block: ``counts`` gives how often each item was drawn (rows
        x items, float), ``indices`` the drawn items' positions (rows x items, int)."""
        rng = np.random.default_rng(self.seed)
        step = self.chunk or max(self.n_resamples, 1)
        for start in range(0, self.n_resamples, step):
            size = min(step, self.n_resamples - start)
            if self.scheme == "counts":
                yield rng.multinomial(n_items, np.full(n_items, 1.0 / n_items), size=size).astype(np.float64)
            else:
                yield rng.integers(0, n_items, (size, n_items))


def percentile_intervals(statistics: Statistic, n_items: int, resampling: Resampling) -> list[tuple[float, float]]:
    """The percentile interval of each statistic over bootstrap resamples of ``n_items`` items. ``statistics`` maps
    a block of resamples to their scores (rows x statistics, or one score per row for a single statistic); a
    resample where a statistic is not finite is left out of its interval, and a statistic finite in none (or no
    items or no resamples at all) gets ``(nan, nan)``."""
    if n_items == 0:
        return [(float("nan"), float("nan"))]
    blocks = [np.asarray(statistics(block)) for block in resampling.blocks(n_items)]
    if not blocks:  # no resamples asked for: an empty block says how many statistics there are
        empty = np.empty((0, n_items), dtype=np.float64 if resampling.scheme == "counts" else np.int64)
        blocks = [np.asarray(statistics(empty))]
    scores = np.concatenate([_as_rows(block) for block in blocks])
    tail = (1.0 - resampling.confidence) / 2 * 100
    intervals = []
    for column in scores.T:
        finite = column[np.isfinite(column)]
        low, high = np.percentile(finite, [tail, 100 - tail]) if len(finite) else (np.nan, np.nan)
        intervals.append((float(low), float(high)))
    return intervals


def _as_rows(block: np.ndarray) -> np.ndarray:
    """A block of scores as resamples x statistics (a vector: one statistic), empty blocks included."""
    if block.ndim == 1:
        return block[:, None]
    return block.reshape(block.shape[0], int(np.prod(block.shape[1:])))


def percentile_interval(statistic: Statistic, n_items: int, resampling: Resampling) -> tuple[float, float]:
    """:func:`percentile_intervals` of one statistic (a block of resamples -> one score per resample)."""
    return percentile_intervals(statistic, n_items, resampling)[0]


def count_scorer(y_true: np.ndarray, y_pred: np.ndarray, space: LabelSpace, metric: str) -> Statistic:
    """``metric`` (a metric of :data:`METRICS` with a count form) of ``y_pred`` against ``y_true`` on each resample
    of a block of ``counts`` resamples: the hits, false alarms and misses weighted by how often each text was drawn."""
    record = METRICS.get(metric) if metric in METRICS else None
    if record is None or record.from_counts is None:
        raise ValueError(f"no bootstrap for metric {metric!r}")
    score = record.from_counts
    truth, predicted = np.asarray(y_true, dtype=bool), np.asarray(y_pred, dtype=bool)
    counted = (truth & predicted, ~truth & predicted, truth & ~predicted)
    columns = emotion_columns(space) if record.emotions_only else slice(None)

    def resampled_score(weights: np.ndarray) -> np.ndarray:
        return np.asarray(score(*((weights @ part)[:, columns] for part in counted)))

    return resampled_score


def bootstrap_ci(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    space: LabelSpace,
    metric: str = "macro_f1",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """The ``confidence`` percentile interval of ``metric`` (a metric of :data:`METRICS` with a count form) over
    ``n_resamples`` bootstrap resamples of the texts, drawn as counts."""
    scorer = count_scorer(y_true, y_pred, space, metric)
    return percentile_interval(scorer, len(y_true), Resampling(n_resamples, confidence, seed))


def paired_difference_ci(
    y_true: np.ndarray,
    y_reference: np.ndarray,
    y_candidate: np.ndarray,
    space: LabelSpace,
    metric: str = "macro_f1",
    n_resamples: int = 1000,
    confidence: float = 0.90,
    seed: int = 0,
) -> tuple[float, float]:
    """The ``confidence`` percentile interval of ``metric(candidate) - metric(reference)`` over bootstrap resamples
    of the texts, both predictions scored on the same resample each time (a paired bootstrap), so the interval reads
    a change against the text-to-text noise of one test set rather than against two independent intervals."""
    reference = count_scorer(y_true, y_reference, space, metric)
    candidate = count_scorer(y_true, y_candidate, space, metric)

    def difference(weights: np.ndarray) -> np.ndarray:
        return candidate(weights) - reference(weights)

    return percentile_interval(difference, len(y_true), Resampling(n_resamples, confidence, seed))
