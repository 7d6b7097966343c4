"""Track B's score: Pearson's r per emotion, averaged."""

import numpy as np
import pytest
from scipy.stats import pearsonr

from affectlab.metrics.intensity import intensity_levels, pearson_intensity, pearson_intensity_ci, pearson_per_emotion


def test_the_score_is_the_mean_of_scipys_r_per_emotion_over_rated_rows():
    rng = np.random.default_rng(0)
    gold = rng.integers(0, 4, size=(50, 3)).astype(float)
    predicted = gold + rng.normal(0, 1.0, size=gold.shape)
    gold[:5, 2] = np.nan  # rows without a rating of that emotion are left out of its r
    expected = [pearsonr(gold[:, 0], predicted[:, 0])[0], pearsonr(gold[:, 1], predicted[:, 1])[0],
                pearsonr(gold[5:, 2], predicted[5:, 2])[0]]  # fmt: skip
    assert pearson_per_emotion(gold, predicted) == pytest.approx(expected)
    assert pearson_intensity(gold, predicted) == pytest.approx(np.mean(expected))


def test_a_constant_prediction_or_gold_earns_nothing_and_shapes_must_agree():
    gold = np.array([[0.0, 1.0], [2.0, 1.0], [3.0, 1.0]])
    assert pearson_per_emotion(gold, np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])) == [0.0, 0.0]
    with pytest.raises(ValueError):
        pearson_intensity(gold, gold[:, :1])


def test_shown_levels_are_0_where_an_emotion_is_not_predicted_and_1_to_3_where_it_is():
    raw = np.array([[0.2, 2.6, 1.4, 0.0], [3.0, 0.4, 2.5, 1.1]])
    predicted = np.array([[1, 1, 0, 0], [0, 1, 1, 1]])
    assert intensity_levels(raw, predicted).tolist() == [[1, 3, 0, 0], [0, 1, 2, 1]]


def test_the_bootstrap_interval_brackets_the_score():
    rng = np.random.default_rng(1)
    gold = rng.integers(0, 4, size=(200, 6)).astype(float)
    predicted = gold + rng.normal(0, 1.5, size=gold.shape)
    low, high = pearson_intensity_ci(gold, predicted, n_resamples=200)
    assert low < pearson_intensity(gold, predicted) < high
