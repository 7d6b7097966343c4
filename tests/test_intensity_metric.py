"""Track B's score: Pearson's r per emotion, averaged."""

import numpy as np
import pytest
from scipy.stats import pearsonr

from affectlab.metrics.intensity import pearson_intensity, pearson_per_emotion


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
