"""Bootstrap intervals for the agreement statistics, computed from per-item sums.

Each statistic in :mod:`affectlab.annotation.agreement` is a function of sums over units: Krippendorff's alpha of
the coincidence matrix, Fleiss' kappa of the per-unit agreement and category shares, Cohen's kappa of each
annotator pair's confusion matrix, and a Spearman correlation of the joint counts of (rating, mean of the
others) values, since ranks with ties are fixed by the counts of each value. A resample of items is a vector of
how often each item was drawn, so the sums of 1,000 resamples are one (1000 x items) @ (items x K) product with a
per-item table, instead of 1,000 calls to krippendorff, scikit-learn and scipy per statistic. With every weight
1 the same code gives the point estimates (the tests check it against those libraries).

The tables grow with the square of the number of distinct values; a statistic whose table would exceed
``MAX_CELLS`` gets a reason instead of an interval.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from affectlab.metrics.bootstrap import Resampling, percentile_intervals

STATISTICS = ("krippendorff_alpha", "fleiss_kappa", "cohen_kappa_mean", "interrater_correlation")
MAX_CELLS = 20_000_000
CHUNK = 100  # resamples per matrix product, to bound memory


@dataclass(frozen=True)
class SumTable:
    """Per-item sums (``per_item``: items x K) and the function from summed rows (B x K) to the statistic (B,),
    NaN where a resample leaves it undefined."""

    per_item: np.ndarray
    finish: Callable[[np.ndarray], np.ndarray]

    def statistic(self, weights: np.ndarray) -> np.ndarray:
        """The statistic for each row of item weights (B x items)."""
        return self.finish(weights @ self.per_item)


def fleiss_parts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per unit rated at least once: whether it was rated at least twice, the share of its rater pairs that
    agree (0 when unpaired) and each category's share of its ratings (categories = the distinct values)."""
    counts = _value_counts(values)
    counts = counts[counts.sum(axis=1) >= 1]
    raters = counts.sum(axis=1)
    paired = raters >= 2
    pairs = np.where(paired, raters * (raters - 1), 1.0)
    agreement = np.where(paired, (counts * (counts - 1)).sum(axis=1) / pairs, 0.0)
    return paired, agreement, counts / raters[:, None]


def rater_versus_others(values: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """For each rater: the units they rated that another rater rated too (a mask), their ratings there and the
    mean of the other raters' ratings."""
    rated = ~np.isnan(values)
    totals = np.nansum(values, axis=1)
    n_rated = rated.sum(axis=1)
    for rater in range(values.shape[1]):
        mask = rated[:, rater] & (n_rated >= 2)
        ratings = values[mask, rater]
        yield mask, ratings, (totals[mask] - ratings) / (n_rated[mask] - 1)


def intervals(
    blocks: dict[str, np.ndarray],
    unit_items: dict[str, np.ndarray],
    n_items: int,
    level: str,
    n_bootstrap: int,
    seed: int,
    confidence: float = 0.95,
) -> dict[str, dict[str, tuple[float, float] | str]]:
    """Percentile intervals of the four statistics for each block of units (``blocks``: name -> units x
    annotators ratings; ``unit_items``: the item index of each unit), all blocks sharing the same ``n_bootstrap``
    resamples of the ``n_items`` items. Each interval is (low, high) or, where there is none, the reason."""
    tables = {name: sum_tables(values, unit_items[name], n_items, level) for name, values in blocks.items()}
    live = [
        (name, stat, t) for name, by_stat in tables.items() for stat, t in by_stat.items() if isinstance(t, SumTable)
    ]

    def resampled_scores(weights: np.ndarray) -> np.ndarray:
        return np.column_stack([table.statistic(weights) for _, _, table in live] or [np.empty((len(weights), 0))])

    found = percentile_intervals(resampled_scores, n_items, Resampling(n_bootstrap, confidence, seed, chunk=CHUNK))
    live_intervals = {(name, stat): interval for (name, stat, _), interval in zip(live, found, strict=True)}
    return {
        name: {
            stat: table if isinstance(table, str) else _defined(live_intervals[name, stat])
            for stat, table in by_stat.items()
        }
        for name, by_stat in tables.items()
    }


def _defined(interval: tuple[float, float]) -> tuple[float, float] | str:
    """The interval, or why there is none."""
    return "undefined in every bootstrap resample" if np.isnan(interval[0]) else interval


def sum_tables(values: np.ndarray, unit_items: np.ndarray, n_items: int, level: str) -> dict[str, SumTable | str]:
    """The four statistics' per-item tables for one block (a reason instead where a table is too large)."""
    domain = np.unique(values[~np.isnan(values)])
    if len(domain) == 0:
        return dict.fromkeys(STATISTICS, "no ratings")
    builders = {
        "krippendorff_alpha": lambda: _alpha_table(values, domain, unit_items, n_items, level),
        "fleiss_kappa": lambda: _fleiss_table(values, unit_items, n_items),
        "cohen_kappa_mean": lambda: _cohen_table(values, domain, unit_items, n_items, level),
        "interrater_correlation": lambda: _correlation_table(values, unit_items, n_items),
    }
    tables: dict[str, SumTable | str] = {}
    for stat, build in builders.items():
        try:
            tables[stat] = build()
        except _TooLarge as exc:
            tables[stat] = str(exc)
    return tables


class _TooLarge(Exception):
    pass


def _check_size(n_rows: int, width: int) -> None:
    if n_rows * width > MAX_CELLS:
        raise _TooLarge(f"too many distinct values for the bootstrap ({n_rows} x {width} table)")


def _value_counts(values: np.ndarray) -> np.ndarray:
    """How many raters gave each distinct value to each unit (units x values)."""
    domain = np.unique(values[~np.isnan(values)])
    return np.column_stack([(values == value).sum(axis=1) for value in domain]).astype(float)


def _item_sums(unit_items: np.ndarray, per_unit: np.ndarray, n_items: int) -> np.ndarray:
    table = np.zeros((n_items, per_unit.shape[1]))
    np.add.at(table, unit_items, per_unit)
    return table


def _item_counts(unit_items: np.ndarray, columns: np.ndarray, width: int, n_items: int) -> np.ndarray:
    """Per item, how many of its units fall in each of ``width`` columns."""
    table = np.zeros((n_items, width))
    np.add.at(table, (unit_items, columns), 1.0)
    return table


def _alpha_table(values: np.ndarray, domain: np.ndarray, unit_items: np.ndarray, n_items: int, level: str) -> SumTable:
    v = len(domain)
    _check_size(len(values), v * v)
    counts = _value_counts(values)
    pairable = counts.sum(axis=1) >= 2
    counts, unit_items = counts[pairable], unit_items[pairable]
    raters = counts.sum(axis=1)[:, None, None]
    coincidences = (counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(v)) / (raters - 1)
    per_item = _item_sums(unit_items, coincidences.reshape(len(counts), v * v), n_items)

    def finish(sums: np.ndarray) -> np.ndarray:
        o = sums.reshape(-1, v, v)
        n_v = o.sum(axis=2)
        n = n_v.sum(axis=1)
        distance = _alpha_distances(domain, n_v, level)
        observed = (o * distance).sum(axis=(1, 2))
        expected = (n_v[:, :, None] * n_v[:, None, :] * distance).sum(axis=(1, 2)) / np.maximum(n - 1, 1)
        return _ratio(observed, expected, lambda d_o, d_e: 1.0 - d_o / d_e)

    return SumTable(per_item, finish)


def _alpha_distances(domain: np.ndarray, n_v: np.ndarray, level: str) -> np.ndarray:
    """Squared distances between values (B x V x V): Krippendorff's nominal, ordinal and interval metrics."""
    if level == "nominal":
        return (1.0 - np.eye(len(domain)))[None]
    if level == "interval":
        return ((domain[:, None] - domain[None, :]) ** 2)[None]
    midpoints = np.cumsum(n_v, axis=1) - n_v / 2  # ordinal: the values between two ranks, by their frequencies
    return (midpoints[:, :, None] - midpoints[:, None, :]) ** 2


def _fleiss_table(values: np.ndarray, unit_items: np.ndarray, n_items: int) -> SumTable:
    paired, agreement, proportions = fleiss_parts(values)
    rated = (~np.isnan(values)).any(axis=1)
    per_unit = np.column_stack([paired, agreement, np.ones(len(agreement)), proportions])
    per_item = _item_sums(unit_items[rated], per_unit, n_items)

    def finish(sums: np.ndarray) -> np.ndarray:
        observed = sums[:, 1] / np.maximum(sums[:, 0], 1)
        chance = ((sums[:, 3:] / np.maximum(sums[:, 2:3], 1)) ** 2).sum(axis=1)
        kappa = _ratio(observed - chance, 1.0 - chance, np.divide)
        return np.where(sums[:, 0] > 0, kappa, np.nan)

    return SumTable(per_item, finish)


def _cohen_table(values: np.ndarray, domain: np.ndarray, unit_items: np.ndarray, n_items: int, level: str) -> SumTable:
    v = len(domain)
    codes = np.searchsorted(domain, np.nan_to_num(values, nan=domain[0]))
    pairs = []
    for a, b in combinations(range(values.shape[1]), 2):
        shared = ~np.isnan(values[:, a]) & ~np.isnan(values[:, b])
        if shared.sum() >= 2:
            pairs.append((shared, codes[shared, a] * v + codes[shared, b]))
    _check_size(n_items, max(len(pairs), 1) * v * v)
    per_item = np.hstack(
        [np.zeros((n_items, 0))] + [_item_counts(unit_items[shared], cells, v * v, n_items) for shared, cells in pairs]
    )
    index = np.arange(v)
    weights = (index[:, None] != index[None, :]).astype(float)
    if level != "nominal":
        weights = (index[:, None] - index[None, :]).astype(float) ** 2  # scikit-learn's quadratic weights

    def finish(sums: np.ndarray) -> np.ndarray:
        confusion = sums.reshape(len(sums), len(pairs), v, v)
        total = confusion.sum(axis=(2, 3))[:, :, None, None]
        expected = confusion.sum(axis=3)[:, :, :, None] * confusion.sum(axis=2)[:, :, None, :] / np.maximum(total, 1)
        kappas = _ratio((confusion * weights).sum(axis=(2, 3)), (expected * weights).sum(axis=(2, 3)), _kappa)
        return _mean_defined(kappas)

    return SumTable(per_item, finish)


def _kappa(observed: np.ndarray, expected: np.ndarray) -> np.ndarray:
    return 1.0 - observed / expected


def _correlation_table(values: np.ndarray, unit_items: np.ndarray, n_items: int) -> SumTable:
    raters = []
    for mask, ratings, others in rater_versus_others(values):
        if len(ratings) >= 2 and np.ptp(ratings) > 0 and np.ptp(others) > 0:
            x_levels, x_codes = np.unique(ratings, return_inverse=True)
            y_levels, y_codes = np.unique(others, return_inverse=True)
            raters.append((mask, x_codes * len(y_levels) + y_codes, len(x_levels), len(y_levels)))
    _check_size(n_items, max(sum(nx * ny for _, _, nx, ny in raters), 1))
    per_item = np.hstack(
        [np.zeros((n_items, 0))]
        + [_item_counts(unit_items[mask], cells, nx * ny, n_items) for mask, cells, nx, ny in raters]
    )
    bounds = np.cumsum([0] + [nx * ny for _, _, nx, ny in raters])

    def finish(sums: np.ndarray) -> np.ndarray:
        correlations = [
            _spearman_from_counts(sums[:, bounds[i] : bounds[i + 1]].reshape(len(sums), nx, ny))
            for i, (_, _, nx, ny) in enumerate(raters)
        ]
        return _mean_defined(np.column_stack(correlations) if correlations else np.full((len(sums), 1), np.nan))

    return SumTable(per_item, finish)


def _spearman_from_counts(joint: np.ndarray) -> np.ndarray:
    """Spearman's rho from joint counts of (x level, y level) (B x Lx x Ly): Pearson's r of the mid-ranks."""
    x_counts, y_counts = joint.sum(axis=2), joint.sum(axis=1)
    n = x_counts.sum(axis=1, keepdims=True)
    centre = (n + 1) / 2
    x_ranks = np.cumsum(x_counts, axis=1) - (x_counts - 1) / 2 - centre
    y_ranks = np.cumsum(y_counts, axis=1) - (y_counts - 1) / 2 - centre
    covariance = np.einsum("bij,bi,bj->b", joint, x_ranks, y_ranks)
    spread = np.sqrt((x_counts * x_ranks**2).sum(axis=1) * (y_counts * y_ranks**2).sum(axis=1))
    return _ratio(covariance, spread, np.divide)


def _ratio(numerator: np.ndarray, denominator: np.ndarray, combine: Callable) -> np.ndarray:
    """``combine(numerator, denominator)`` where the denominator is clearly non-zero, NaN elsewhere."""
    defined = np.abs(denominator) > 1e-12
    out = np.full(np.shape(denominator), np.nan)
    out[defined] = combine(numerator[defined], denominator[defined])
    return out


def _mean_defined(scores: np.ndarray) -> np.ndarray:
    """Row means over the finite entries (B x k -> B), NaN for a row with none."""
    finite = np.isfinite(scores)
    count = finite.sum(axis=1)
    total = np.where(finite, scores, 0.0).sum(axis=1)
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)
