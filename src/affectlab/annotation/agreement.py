"""Inter-annotator agreement over a units x annotators rating matrix (NaN = not rated).

* :func:`krippendorff_alpha`: Krippendorff's alpha at the nominal, ordinal or interval level (the
  ``krippendorff`` package); EmoBench-UA reports alpha = 0.85 for its crowd labels (section 4).
* :func:`fleiss_kappa`: Fleiss' kappa for any number of raters per unit.
* :func:`mean_pairwise_cohen_kappa`: Cohen's kappa of every annotator pair on the units both rated, averaged.
* :func:`interrater_correlation`: GoEmotions' interrater correlation (Demszky et al. 2020, section 4.1).
* :func:`agreement_report`: all four, overall and per label, with bootstrap confidence intervals.

A statistic that has no value on the data (all ratings identical, so the expected disagreement is 0; no unit
rated twice) raises :class:`UndefinedStatisticError`; a matrix with fewer than two annotators raises
:class:`~affectlab.errors.InputError`. Neither ever comes back as NaN.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score

from affectlab.annotation import bootstrap
from affectlab.annotation.readers import LEVELS, Annotations, Level
from affectlab.errors import InputError

STATISTICS = bootstrap.STATISTICS


class UndefinedStatisticError(InputError):
    """A statistic with no value on the data given, e.g. a chance-corrected one when all ratings agree."""


def rating_matrix(matrix: Any) -> np.ndarray:
    """The ratings as a float array (units x annotators), checked: two dimensions, finite values or NaN, and at
    least two annotators with ratings."""
    try:
        values = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError):
        raise InputError("ratings must be numbers (NaN for a missing rating)") from None
    if values.ndim != 2:
        raise InputError(f"ratings must be a units x annotators matrix, not {values.ndim}-dimensional")
    if np.isinf(values).any():
        raise InputError("ratings must be finite numbers (NaN for a missing rating)")
    n_raters = int((~np.isnan(values)).any(axis=0).sum())
    if n_raters < 2:
        raise InputError(f"agreement needs ratings from at least 2 annotators; found {n_raters}")
    return values


def krippendorff_alpha(matrix: Any, level: Level = "nominal") -> float:
    """Krippendorff's alpha, 1 - observed / expected disagreement, over the units rated at least twice
    (Krippendorff 2011, "Computing Krippendorff's alpha-reliability"); ``level`` picks the distance
    (nominal, ordinal or interval)."""
    values = rating_matrix(matrix)
    _check_level(level)
    pairable = values[(~np.isnan(values)).sum(axis=1) >= 2]
    if len(pairable) == 0:
        raise UndefinedStatisticError("no unit was rated by two annotators")
    if np.unique(pairable[~np.isnan(pairable)]).size < 2:
        raise UndefinedStatisticError("all pairable ratings are identical, so the expected disagreement is 0")
    krippendorff = _import_krippendorff()
    return float(krippendorff.alpha(reliability_data=pairable.T, level_of_measurement=level))


def fleiss_kappa(matrix: Any) -> float:
    r"""Fleiss' kappa, each distinct value a category, for any number of raters per unit.

    Written here rather than taken from statsmodels (not a dependency), whose version assumes the same number of
    raters for every unit. This is Gwet's generalisation of Fleiss' kappa (K. L. Gwet, *Handbook of Inter-Rater
    Reliability*, 4th ed., 2014; ``irrCAC::fleiss.kappa.raw``): with :math:`r_i` ratings of unit :math:`i`,
    :math:`r_{ik}` of them in category :math:`k`, the observed agreement averages over the :math:`n_2` units
    rated at least twice and the category shares over the :math:`n_1` units rated at all,

    .. math::
        P_a = \frac{1}{n_2}\sum_{i: r_i \ge 2} \sum_k \frac{r_{ik}(r_{ik}-1)}{r_i(r_i-1)}, \quad
        \pi_k = \frac{1}{n_1}\sum_{i: r_i \ge 1} \frac{r_{ik}}{r_i}, \quad
        \kappa = \frac{P_a - \sum_k \pi_k^2}{1 - \sum_k \pi_k^2}.

    With the same number of raters for every unit this is Fleiss (1971), eq. 1-9.
    """
    values = rating_matrix(matrix)
    paired, agreement, proportions = bootstrap.fleiss_parts(values)
    if not paired.any():
        raise UndefinedStatisticError("no unit was rated by two annotators")
    chance = float((proportions.mean(axis=0) ** 2).sum())
    if np.isclose(chance, 1.0):
        raise UndefinedStatisticError("all ratings fall in one category, so the chance agreement is 1")
    return (float(agreement[paired].mean()) - chance) / (1.0 - chance)


def mean_pairwise_cohen_kappa(matrix: Any, level: Level = "nominal") -> float:
    """Cohen's kappa (scikit-learn) of every annotator pair on the units both rated, averaged over the pairs
    that share at least 2 units and use more than one value between them (kappa is undefined otherwise).
    Nominal ratings are compared unweighted; ordinal and interval ones with quadratic weights over the ordered
    distinct values of the whole matrix."""
    values = rating_matrix(matrix)
    _check_level(level)
    domain = np.unique(values[~np.isnan(values)])
    weights = None if level == "nominal" else "quadratic"
    kappas = []
    for a, b in combinations(range(values.shape[1]), 2):
        shared = ~np.isnan(values[:, a]) & ~np.isnan(values[:, b])
        if shared.sum() < 2 or np.unique(values[shared][:, [a, b]]).size < 2:
            continue  # kappa is undefined for a pair that used a single value
        # category positions, not values: scikit-learn refuses fractional "labels" (2.5) as continuous targets,
        # and its quadratic weights count positions in ``labels`` anyway
        first, second = np.searchsorted(domain, values[shared, a]), np.searchsorted(domain, values[shared, b])
        kappas.append(cohen_kappa_score(first, second, labels=np.arange(domain.size), weights=weights))
    if not kappas:
        raise UndefinedStatisticError("no annotator pair shares 2 units with more than one value between them")
    return float(np.mean(kappas))


def interrater_correlation(matrix: Any) -> float:
    """GoEmotions' interrater correlation (Demszky et al. 2020, section 4.1): for each rater, the Spearman
    correlation between their ratings and the mean of the other raters' ratings on the units they rated (and at
    least one other rater rated), averaged over the raters for whom it is defined (2+ units, neither side
    constant). GoEmotions computes it per emotion, over the texts."""
    values = rating_matrix(matrix)
    correlations = []
    for _, ratings, others in bootstrap.rater_versus_others(values):
        if len(ratings) >= 2 and np.ptp(ratings) > 0 and np.ptp(others) > 0:
            correlations.append(float(spearmanr(ratings, others).statistic))
    if not correlations:
        raise UndefinedStatisticError("no rater has 2+ shared units with varying ratings on both sides")
    return float(np.mean(correlations))


def agreement_report(
    annotations: Annotations, level: Level | None = None, n_bootstrap: int = 1000, seed: int = 0
) -> dict[str, Any]:
    """All four statistics, for all questions pooled and per label, as one JSON-ready dict.

    ``{"overall": block, "per_label": {label: block}}``, each block holding ``krippendorff_alpha``,
    ``fleiss_kappa``, ``cohen_kappa_mean``, ``interrater_correlation`` (float, or None when undefined),
    ``<statistic>_ci95`` ([low, high], or None), ``n_items``, ``n_units``, ``n_annotators`` and ``undefined``
    ({key: reason} for every None statistic or interval).

    "overall" pools every (item, label) question as one unit, as multi-label alpha is usually computed (each
    (text, emotion) pair is a unit). ``level`` defaults to the annotations' level (alpha's distance and Cohen's
    weights; Fleiss is always nominal, the correlation always by ranks).

    The intervals are 95 % percentile bootstraps over ``n_bootstrap`` resamples of the items (texts) with
    replacement; a resampled text brings all its label questions, since those are not independent units. The
    same resamples serve every block. They are computed from per-item sums rather than by calling the functions
    above once per resample (see :mod:`affectlab.annotation.bootstrap`), so 1,000 resamples of 5k texts x 6
    labels take seconds. Resamples where a statistic is undefined are left out of its interval.
    """
    level = level or annotations.level
    _check_level(level)
    items = pd.Index(annotations.items)
    overall = annotations.matrix()
    rating_matrix(overall)  # a single annotator in all is an error, not a report of None
    blocks = {"overall": overall, **{label: annotations.matrix(label) for label in annotations.labels}}
    reports = {name: _point_block(matrix, level) for name, matrix in blocks.items()}
    if n_bootstrap > 0:
        unit_items = {name: items.get_indexer(matrix.index.get_level_values(0)) for name, matrix in blocks.items()}
        intervals = bootstrap.intervals(
            {name: matrix.to_numpy(dtype=float) for name, matrix in blocks.items()},
            unit_items,
            len(items),
            level,
            n_bootstrap,
            seed,
        )
        for name, report in reports.items():
            _add_intervals(report, intervals[name])
    return {"overall": reports.pop("overall"), "per_label": reports}


def _point_block(matrix: pd.DataFrame, level: Level) -> dict[str, Any]:
    values = matrix.to_numpy(dtype=float)
    n_annotators = int((~np.isnan(values)).any(axis=0).sum())
    functions = {
        "krippendorff_alpha": lambda: krippendorff_alpha(values, level),
        "fleiss_kappa": lambda: fleiss_kappa(values),
        "cohen_kappa_mean": lambda: mean_pairwise_cohen_kappa(values, level),
        "interrater_correlation": lambda: interrater_correlation(values),
    }
    block: dict[str, Any] = {}
    undefined: dict[str, str] = {}
    for name, function in functions.items():
        block[name] = block[f"{name}_ci95"] = None
        if n_annotators < 2:
            undefined[name] = "fewer than 2 annotators rated these units"
            continue
        try:
            block[name] = function()
        except UndefinedStatisticError as exc:
            undefined[name] = str(exc)
    block["n_items"] = int(matrix.index.get_level_values(0).nunique())
    block["n_units"] = len(matrix)
    block["n_annotators"] = n_annotators
    block["undefined"] = undefined
    return block


def _add_intervals(block: dict[str, Any], intervals: dict[str, tuple[float, float] | str]) -> None:
    for name, interval in intervals.items():
        if isinstance(interval, str):
            block["undefined"][f"{name}_ci95"] = interval
        else:
            block[f"{name}_ci95"] = [interval[0], interval[1]]


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise InputError(f"level {level!r} is not one of {', '.join(LEVELS)}")


def _import_krippendorff() -> Any:
    try:
        import krippendorff
    except ImportError:
        raise InputError("Krippendorff's alpha needs the krippendorff package: install affectlab[annotate]") from None
    return krippendorff
