"""The shared decision step: per-label thresholds, the none label, arg-max with a prior shift."""

import numpy as np
import pytest

from affectlab.labels import EKMAN, EMOCONTEXT, LabelSpace
from affectlab.metrics.classification import micro_f1_emotions
from affectlab.metrics.thresholds import Decision, fit_decision, tune_prior_shift, tune_thresholds

TWO = LabelSpace(name="two", labels=("x", "y"), multi_label=True)


def test_tuned_threshold_separates_the_dev_examples():
    probs = np.array([[0.9, 0.1], [0.35, 0.2], [0.3, 0.6], [0.1, 0.05]])
    gold = np.array([[1, 0], [1, 0], [0, 1], [0, 0]])
    thresholds = tune_thresholds(probs, gold)
    assert 0.30 < thresholds[0] <= 0.35  # x: positives at 0.9 and 0.35, negatives at 0.3 and below
    assert 0.2 < thresholds[1] <= 0.6
    predicted = Decision("thresholds", thresholds).apply(probs, TWO)
    assert predicted[:3].tolist() == gold[:3].tolist()  # row 4 has no label over threshold: it gets its best


def test_label_without_dev_positives_keeps_half():
    assert tune_thresholds(np.array([[0.7], [0.2]]), np.array([[0], [0]]))[0] == 0.5


def test_text_with_no_label_over_threshold_gets_its_best_ratio():
    decision = Decision("thresholds", np.array([0.8, 0.4]))
    assert decision.apply(np.array([[0.6, 0.35]]), TWO).tolist() == [[0, 1]]  # 0.35/0.4 > 0.6/0.8


def test_exclusive_none_is_dropped_beside_an_emotion():
    probs = np.array([[0.9, 0, 0, 0, 0, 0, 0.9]])
    predicted = Decision("thresholds", np.full(7, 0.5)).apply(probs, EKMAN)
    assert EKMAN.decode(predicted) == [["anger"]]


def test_prior_shift_recovers_a_rarer_emotion_prior():
    rng = np.random.default_rng(0)
    n = 2000
    gold = np.where(rng.random(n) < 0.85, 3, rng.integers(0, 3, n))  # 85 % others, like EmoContext dev/test
    # a model trained on balanced data: over-confident in the emotions
    logits = rng.normal(0, 1, (n, 4))
    logits[np.arange(n), gold] += 1.5
    logits[:, 3] -= 1.0
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = np.eye(4)[gold]
    plain = micro_f1_emotions(y, Decision("argmax", np.zeros(4)).apply(probs, EMOCONTEXT), EMOCONTEXT)
    bias = tune_prior_shift(probs, y, EMOCONTEXT, "micro_f1_emotions", train_prior=np.full(4, 0.25))
    shifted = micro_f1_emotions(y, Decision("argmax", bias).apply(probs, EMOCONTEXT), EMOCONTEXT)
    assert shifted > plain + 0.05
    assert bias[3] > bias[:3].max()  # "others" is favoured


def test_untuned_decision_and_round_trip():
    decision = fit_decision("thresholds", None, None, EKMAN, "macro_f1")
    assert decision.values.tolist() == [0.5] * 7
    assert Decision.from_dict(decision.to_dict()).values.tolist() == decision.values.tolist()
    with pytest.raises(ValueError):
        Decision("vote", np.zeros(7)).apply(np.zeros((1, 7)), EKMAN)


def test_per_group_values_apply_to_their_rows_only():
    probs = np.array([[0.6, 0.1], [0.6, 0.1], [0.6, 0.1]])
    decision = Decision("thresholds", np.array([0.5, 0.5]), groups={"uk": np.array([0.7, 0.05])})
    predicted = decision.apply(probs, TWO, groups=["en", "uk", ""])
    assert predicted.tolist() == [[1, 0], [0, 1], [1, 0]]  # uk: x misses 0.7, y passes 0.05


def test_groups_with_enough_rows_get_their_own_thresholds():
    rng = np.random.default_rng(1)
    probs = rng.random((400, 2))
    gold = np.vstack([probs[:200] > 0.2, probs[200:] > 0.8]).astype(int)
    decision = fit_decision("thresholds", probs, gold, TWO, "macro_f1", groups=["a"] * 200 + ["b"] * 200)
    assert set(decision.groups) == {"a", "b"}
    assert decision.groups["a"][0] < 0.3 < 0.7 < decision.groups["b"][0]
    assert Decision.from_dict(decision.to_dict()).groups["b"].tolist() == decision.groups["b"].tolist()


def test_decision_scores_put_each_threshold_at_one_half():
    decision = Decision("thresholds", np.array([0.2, 0.8]))
    scores = decision.scores(np.array([[0.2, 0.8], [0.1, 0.4], [1.0, 0.9], [0.0, 1.0]]), TWO)
    np.testing.assert_allclose(scores, [[0.5, 0.5], [0.25, 0.25], [1.0, 0.75], [0.0, 1.0]])


def test_labels_given_are_the_top_of_the_decision_scores_even_under_a_likely_none():
    """'my dog died': sadness passes its low threshold while none has the higher probability; the labels say
    sadness, and so must the score order."""
    thresholds = np.array([0.08, 0.06, 0.17, 0.22, 0.19, 0.13, 0.4])
    probs = np.array([[0.02, 0.03, 0.05, 0.04, 0.25, 0.02, 0.56], [0.01, 0.01, 0.02, 0.1, 0.05, 0.02, 0.7]])
    decision = Decision("thresholds", thresholds)
    scores, predicted = decision.scores(probs, EKMAN), decision.apply(probs, EKMAN)
    for row_scores, row_pred in zip(scores, predicted, strict=True):
        given = set(np.flatnonzero(row_pred))
        top = set(np.argsort(-row_scores)[: len(given)])
        assert given == top and all(row_scores[j] >= 0.5 for j in given)
    assert EKMAN.decode(predicted) == [["sadness"], ["none"]]


def test_argmax_scores_are_the_prior_shifted_probabilities():
    bias = np.array([0.5, -0.5, 0.0, 0.0])
    probs = np.array([[0.3, 0.4, 0.1, 0.2]])
    decision = Decision("argmax", bias)
    scores = decision.scores(probs, EMOCONTEXT)
    assert scores.sum() == pytest.approx(1.0)
    assert scores.argmax() == decision.apply(probs, EMOCONTEXT).argmax() == 0


def test_decision_scores_use_each_groups_thresholds():
    decision = Decision("thresholds", np.array([0.5, 0.5]), groups={"uk": np.array([0.1, 0.9])})
    scores = decision.scores(np.array([[0.1, 0.9], [0.1, 0.9]]), TWO, groups=["uk", "en"])
    np.testing.assert_allclose(scores, [[0.5, 0.5], [0.1, 0.9]])


def test_a_none_gate_answers_none_alone_where_none_reaches_it_and_survives_saving():
    probs = np.array([[0.6, 0.1, 0.1, 0.1, 0.1, 0.1, 0.8], [0.6, 0.1, 0.1, 0.1, 0.1, 0.1, 0.3]])
    thresholds = np.full(len(EKMAN), 0.3)
    plain, gated = Decision("thresholds", thresholds), Decision("thresholds", thresholds, none_gate=0.7)
    assert EKMAN.decode(plain.apply(probs, EKMAN)) == [["anger"], ["anger"]]  # an emotion drops none
    assert EKMAN.decode(gated.apply(probs, EKMAN)) == [["none"], ["anger"]]
    scores = gated.scores(probs, EKMAN)
    assert scores[0].argmax() == EKMAN.labels.index("none") and scores[0, 0] < 0.5 <= scores[0, -1]
    restored = Decision.from_dict(gated.to_dict()).check(len(EKMAN))
    assert restored.none_gate == 0.7 and Decision.from_dict(plain.to_dict()).none_gate is None
    with pytest.raises(ValueError, match="none gate"):
        Decision("argmax", np.zeros(len(EKMAN)), none_gate=0.5).check(len(EKMAN))
