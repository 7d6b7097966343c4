"""The one bootstrap helper (:mod:`affectlab.metrics.bootstrap`) gives every caller the intervals it gave before
the callers shared it: the values below were computed with each caller's own code before issue 31."""

from __future__ import annotations

import numpy as np
import pytest

from affectlab.annotation import bootstrap as agreement_bootstrap
from affectlab.labels import EKMAN
from affectlab.metrics.bootstrap import Resampling, bootstrap_ci, percentile_interval
from affectlab.metrics.intensity import pearson_intensity_ci
from affectlab.uatasks.multiple_choice import bootstrap_accuracy_ci

RNG = np.random.default_rng(7)
GOLD = RNG.random((150, 7)) < 0.3
PREDICTED = RNG.random((150, 7)) < 0.3
RATED = RNG.integers(0, 4, (80, 4)).astype(float)
RATED_PREDICTED = np.clip(RATED + RNG.normal(0, 1, RATED.shape), 0, 3)
CORRECT = RNG.random(60) < 0.6
RATINGS = RNG.integers(0, 3, (40, 4)).astype(float)
RATINGS[RNG.random(RATINGS.shape) < 0.2] = np.nan
UNIT_ITEMS = np.arange(40) // 2


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        ("macro_f1", (0.21447987620003742, 0.3041310592140102)),
        ("micro_f1", (0.22415270258312084, 0.3134641970932293)),
        ("micro_f1_emotions", (0.24072353326778104, 0.3283721934369603)),
        ("macro_f1_emotions", (0.23186731811746783, 0.32465774670238684)),
    ],
)
def test_f1_intervals_are_the_ones_drawn_before_the_shared_helper(metric, expected):
    assert bootstrap_ci(GOLD, PREDICTED, EKMAN, metric, n_resamples=300, seed=3) == expected


def test_the_intensity_interval_keeps_resampling_indices():
    assert pearson_intensity_ci(RATED, RATED_PREDICTED, n_resamples=200, seed=5) == (
        0.7054341752730207,
        0.7964366448032137,
    )


def test_the_accuracy_interval_of_multiple_choice_tasks_is_unchanged():
    assert bootstrap_accuracy_ci(CORRECT, n_resamples=500, seed=2) == (0.5333333333333333, 0.7833333333333333)


def test_agreement_intervals_drawn_in_chunks_are_unchanged():
    found = agreement_bootstrap.intervals(
        {"all": RATINGS, "half": RATINGS[:20]}, {"all": UNIT_ITEMS, "half": UNIT_ITEMS[:20]}, 20, "ordinal", 250, 4
    )
    assert found["all"] == {
        "krippendorff_alpha": (-0.11172525975862947, 0.1559353778838379),
        "fleiss_kappa": (-0.16567993082866916, 0.05679962655618654),
        "cohen_kappa_mean": (-0.10628771286070786, 0.19047111049089302),
        "interrater_correlation": (-0.15267484529823377, 0.2743459151950158),
    }
    assert found["half"]["fleiss_kappa"] == (-0.2894183239373292, -0.0055741742119003995)


def test_the_two_schemes_draw_counts_and_positions_of_the_same_items():
    counts = np.vstack(list(Resampling(7, seed=1, chunk=3).blocks(10)))
    positions = next(Resampling(7, seed=1, scheme="indices").blocks(10))
    assert counts.shape == positions.shape == (7, 10)
    assert (counts.sum(axis=1) == 10).all() and positions.min() >= 0 and positions.max() < 10


def test_a_statistic_undefined_in_every_resample_has_no_interval_and_no_items_give_nan():
    assert np.isnan(percentile_interval(lambda block: np.full(len(block), np.nan), 5, Resampling(10))).all()
    assert np.isnan(percentile_interval(lambda block: block.sum(axis=1), 0, Resampling())).all()


@pytest.mark.parametrize("scheme", ["counts", "indices"])
def test_no_resamples_give_nan_intervals_for_every_statistic(scheme) -> None:
    from affectlab.metrics.bootstrap import Resampling, percentile_interval, percentile_intervals

    def two_statistics(block: np.ndarray) -> np.ndarray:
        return np.stack([block.sum(axis=1), block.max(axis=1, initial=0)], axis=1)

    nothing = Resampling(0, scheme=scheme)
    found = percentile_intervals(two_statistics, 10, nothing)
    assert len(found) == 2 and all(np.isnan(low) and np.isnan(high) for low, high in found)
    low, high = percentile_interval(lambda block: block.sum(axis=1), 10, nothing)
    assert np.isnan(low) and np.isnan(high)


def test_bootstrap_ci_with_no_resamples_is_nan_not_an_error() -> None:
    from affectlab.labels import EKMAN
    from affectlab.metrics.bootstrap import bootstrap_ci

    gold = np.eye(7, dtype=np.int8)[[0, 1, 2, 3, 4, 5, 6, 0]]
    low, high = bootstrap_ci(gold, gold, EKMAN, "macro_f1", n_resamples=0)
    assert np.isnan(low) and np.isnan(high)


def test_a_paired_interval_of_identical_predictions_is_zero():
    from affectlab.metrics.bootstrap import paired_difference_ci

    assert paired_difference_ci(GOLD, PREDICTED, PREDICTED, EKMAN, n_resamples=200) == (0.0, 0.0)


def test_a_paired_interval_is_the_resampled_difference_of_the_two_scores():
    from affectlab.metrics.bootstrap import paired_difference_ci
    from affectlab.metrics.classification import macro_f1

    better = PREDICTED.copy()
    better[:40] = GOLD[:40]  # the candidate gets 40 texts right that the reference may not
    rng = np.random.default_rng(0)
    drawn = [rng.multinomial(150, np.full(150, 1 / 150)) for _ in range(300)]
    differences = [
        macro_f1(np.repeat(GOLD, d, axis=0), np.repeat(better, d, axis=0))
        - macro_f1(np.repeat(GOLD, d, axis=0), np.repeat(PREDICTED, d, axis=0))
        for d in drawn
    ]
    low, high = paired_difference_ci(GOLD, PREDICTED, better, EKMAN, n_resamples=300, confidence=0.90)
    assert 0 < low < high
    assert (low, high) == pytest.approx(tuple(np.percentile(differences, [5, 95])), abs=1e-9)
