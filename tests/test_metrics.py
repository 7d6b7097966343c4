"""Scores checked by hand and against scikit-learn."""

import numpy as np
import pytest
from sklearn.metrics import f1_score

from affectlab.labels import EKMAN, EMOCONTEXT, LabelSpace
from affectlab.metrics.bootstrap import bootstrap_ci
from affectlab.metrics.classification import classification_scores, macro_f1, micro_f1, micro_f1_emotions

SPACE = LabelSpace(name="abc", labels=("a", "b", "c"), multi_label=True)
TRUE = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]])
PRED = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 0]])


def test_hand_computed_per_label_macro_and_micro():
    scores = classification_scores(TRUE, PRED, SPACE)
    # a: TP 1, FP 1, FN 1; b: TP 2; c: FN 1
    assert scores["per_label"]["a"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5, "support": 2}
    assert scores["per_label"]["b"]["f1"] == 1.0
    assert scores["per_label"]["c"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 1}
    assert scores["macro_f1"] == pytest.approx(0.5)
    assert scores["micro_f1"] == pytest.approx(6 / 9)  # TP 3, FP 1, FN 2
    assert scores["primary"] == {"name": "macro_f1", "value": pytest.approx(0.5)}


def test_emocontext_micro_f1_ignores_others():
    gold = EMOCONTEXT.encode([["happy"], ["others"], ["sad"], ["angry"], ["others"]])
    pred = EMOCONTEXT.encode([["happy"], ["happy"], ["others"], ["angry"], ["others"]])
    # happy/sad/angry pooled: TP 2, FP 1 (row 2), FN 1 (row 3); the correct "others" counts for nothing
    assert micro_f1_emotions(gold, pred, EMOCONTEXT) == pytest.approx(4 / 6)
    scores = classification_scores(gold, pred, EMOCONTEXT, primary="micro_f1_emotions")
    assert scores["primary"]["value"] == pytest.approx(4 / 6)


def test_agrees_with_scikit_learn_on_random_matrices():
    rng = np.random.default_rng(3)
    gold = rng.random((300, 6)) < 0.2
    pred = rng.random((300, 6)) < 0.25
    assert macro_f1(gold, pred) == pytest.approx(f1_score(gold, pred, average="macro", zero_division=0))
    assert micro_f1(gold, pred) == pytest.approx(f1_score(gold, pred, average="micro", zero_division=0))
    single_gold, single_pred = rng.integers(0, 4, 500), rng.integers(0, 4, 500)
    expected = f1_score(single_gold, single_pred, labels=[0, 1, 2], average="micro")
    got = micro_f1_emotions(np.eye(4)[single_gold], np.eye(4)[single_pred], EMOCONTEXT)
    assert got == pytest.approx(expected)


def test_empty_label_scores_zero_not_nan():
    scores = classification_scores(np.zeros((3, 3)), np.zeros((3, 3)), SPACE)
    assert scores["macro_f1"] == 0.0 and scores["micro_f1"] == 0.0


def test_bootstrap_interval_brackets_the_score_and_is_reproducible():
    rng = np.random.default_rng(0)
    gold = rng.random((400, 3)) < 0.3
    pred = gold ^ (rng.random((400, 3)) < 0.2)
    low, high = bootstrap_ci(gold, pred, SPACE, "macro_f1", n_resamples=500, seed=1)
    assert low < macro_f1(gold, pred) < high
    assert (low, high) == bootstrap_ci(gold, pred, SPACE, "macro_f1", n_resamples=500, seed=1)
    assert 0.02 < high - low < 0.2


def test_bootstrap_of_a_perfect_prediction_is_a_point():
    assert bootstrap_ci(TRUE, TRUE, SPACE, "micro_f1", n_resamples=100) == (1.0, 1.0)


def test_every_primary_metric_name_has_one_function_and_typos_get_a_suggestion():
    from affectlab.errors import UnknownNameError
    from affectlab.metrics.classification import primary_score
    from affectlab.metrics.registry import PRIMARY_METRIC_NAMES, PRIMARY_METRICS

    assert [name for name, _ in PRIMARY_METRICS.items()] == list(PRIMARY_METRIC_NAMES)
    assert PRIMARY_METRIC_NAMES == ("macro_f1", "micro_f1_emotions", "macro_f1_emotions")
    with pytest.raises(UnknownNameError, match="did you mean 'macro_f1'"):
        primary_score("macro-f1", np.zeros((1, 2)), np.zeros((1, 2)), EKMAN)


def test_the_taxonomy_record_is_what_the_heads_the_encoder_recipe_and_user_files_read():
    from affectlab.detectors.default import RECIPES
    from affectlab.labels import EMOCONTEXT, TAXONOMY_RECORDS, primary_metric_for

    for name, recipe in RECIPES.items():
        record = TAXONOMY_RECORDS.get(name)
        assert (recipe.space, recipe.primary_metric) == (record.space, record.primary_metric)
    assert primary_metric_for(EMOCONTEXT) == "micro_f1_emotions" and primary_metric_for(EKMAN) == "macro_f1"
    assert [name for name, t in TAXONOMY_RECORDS.items() if t.reads_context] == ["emocontext"]


def test_the_official_track_a_score_averages_the_emotions_and_counts_neutral_texts_only_through_false_positives():
    from affectlab.metrics.classification import macro_f1_emotions

    gold = EKMAN.encode([["joy"], ["none"], ["fear", "joy"], ["none"]])
    pred = EKMAN.encode([["joy"], ["fear"], ["fear"], ["none"]])
    emotions = [i for i, label in enumerate(EKMAN.labels) if label != "none"]
    expected = f1_score(gold[:, emotions], pred[:, emotions], average="macro", zero_division=0)
    assert macro_f1_emotions(gold, pred, EKMAN) == pytest.approx(expected)  # fear: TP 1, FP 1 (a neutral text)
    low, high = bootstrap_ci(gold, pred, EKMAN, "macro_f1_emotions", n_resamples=200)
    assert 0.0 <= low <= high <= 1.0
