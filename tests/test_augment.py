"""Issue 41: the rows that teach answers that hold (edited and negated rows) and the labels a dataset leaves
unannotated, which neither the encoder's sources nor the heads' members and decisions may teach as absent."""

import numpy as np
import pytest
from datasets import Dataset

from affectlab.build.augment import EDITS, edited_texts, negated_sentence, negation_targets
from affectlab.build.sources import ROBUSTNESS, SplitRows, derived_rows, unannotated_labels
from affectlab.detectors.linear import fit_linear
from affectlab.labels import EKMAN, UNANNOTATED, UNKNOWN, LabelSpace
from affectlab.metrics.thresholds import tune_thresholds


@pytest.mark.parametrize(
    ("lang", "text", "denied", "emotion"),
    [
        ("en", "Ugh. I'm so angry right now, they lied again", "I'm not angry right now, they lied again", "anger"),
        ("en", "i feel really scared tonight", "i don't feel scared tonight", "fear"),
        ("uk", "Мені так страшно, що аж руки трусяться", "Мені не страшно, що аж руки трусяться", "fear"),
        ("uk", "я така зла на нього", None, None),  # "така" is not a listed intensifier: nothing is forced
        ("uk", "я зла на нього", "я не зла на нього", "anger"),
        ("es", "Estoy muy enojada con mi jefe", "no Estoy enojada con mi jefe", "anger"),
        ("es", "me da mucho asco esa comida", "no me da asco esa comida", "disgust"),
        ("de", "Ich habe so Angst vor morgen", "Ich habe keine Angst vor morgen", "fear"),
        ("ru", "меня бесит эта очередь", "меня не бесит эта очередь", "anger"),
        ("pt-BR", "tô muito triste hoje", "não tô triste hoje", "sadness"),
    ],
)
def test_a_first_person_statement_of_an_emotion_is_denied(lang, text, denied, emotion):
    found = negated_sentence(text, lang, set(EKMAN.emotion_labels))
    assert found == (None if denied is None else (denied, emotion))


def test_a_sentence_that_already_holds_a_negation_is_not_denied_again():
    assert negated_sentence("I'm not sure, I'm scared", "en", {"fear"}) is None
    assert negated_sentence("Мені не страшно", "uk", {"fear"}) is None


def test_only_the_asked_emotions_and_known_languages_are_denied():
    assert negated_sentence("I'm so angry", "en", {"joy"}) is None
    assert negated_sentence("I'm so angry", "sw", {"anger"}) is None


def test_a_denial_knows_only_the_denied_emotion():
    targets = negation_targets(["anger"])
    assert targets[0, EKMAN.labels.index("anger")] == 0
    assert np.isnan(np.delete(targets[0], EKMAN.labels.index("anger"))).all()


def test_every_edit_keeps_the_words_and_changes_the_text():
    text = "What a lovely morning 😊"
    for edit in EDITS:
        edited = edit(text, np.random.default_rng(0))
        assert edited != text
        assert "lovely" in edited.lower()
    assert edited_texts([text] * 50, seed=1) == edited_texts([text] * 50, seed=1)
    assert len(set(edited_texts([text] * 50, seed=1))) > 5


def test_derived_rows_keep_targets_or_know_only_the_denial():
    ekman = np.zeros((2, len(EKMAN)), dtype=np.float32)
    ekman[0, EKMAN.labels.index("anger")] = 1
    ekman[1, EKMAN.labels.index("none")] = 1
    rows = SplitRows(["I'm furious with them", "The bus leaves at 5"], None, {"ekman": ekman}, ["en", "en"])
    edited = derived_rows(rows, "edited")
    assert len(edited.texts) == 2 and edited.targets["ekman"] is ekman
    negated = derived_rows(rows, "negated")
    assert negated.texts == ["I'm not furious with them"]
    assert negated.targets["ekman"][0, EKMAN.labels.index("anger")] == 0
    assert len(derived_rows(rows, "negated-edited").texts) == 1


def test_robustness_sources_are_named_apart_and_draw_no_dev_rows():
    names = [source.key for source in ROBUSTNESS]
    assert len(names) == len(set(names))
    assert {source.derive for source in ROBUSTNESS} == {"edited", "negated", "negated-edited"}


def test_a_label_a_dataset_does_not_annotate_is_unknown_not_absent():
    english = LabelSpace("eng", ("anger", "fear", "joy", "sadness", "surprise"), multi_label=True)
    assert unannotated_labels(english, EKMAN) == ["disgust"]
    split = Dataset.from_dict({"labels": [["anger"], ["none"]], UNANNOTATED: ["disgust", ""]})
    encoded = EKMAN.encode_split(split)
    assert encoded[0, EKMAN.labels.index("disgust")] == UNKNOWN
    assert encoded[1, EKMAN.labels.index("disgust")] == 0
    assert encoded[0, EKMAN.labels.index("anger")] == 1


def test_thresholds_leave_unknown_cells_out():
    probs = np.array([[0.9], [0.8], [0.7], [0.2]])
    known = np.array([[1], [0], [0], [0]])
    unknown = np.array([[1], [UNKNOWN], [UNKNOWN], [0]])
    assert tune_thresholds(probs, known)[0] > 0.8  # two high negatives push the threshold up ...
    assert tune_thresholds(probs, unknown)[0] == 0.5  # ... rows that do not annotate the label do not
    assert tune_thresholds(probs, unknown)[0] == tune_thresholds(probs[[0, 3]], known[[0, 3]])[0]


def test_a_linear_member_learns_a_label_only_from_rows_that_annotate_it():
    X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]] * 5)
    Y = np.array([[1], [UNKNOWN], [0], [UNKNOWN]] * 5)
    coef, intercept = fit_linear(X, Y, multi_label=True, C=10.0, class_weight=None, max_iter=200)
    assert coef[0, 0] > 0 > coef[0, 1]
    all_unknown = np.full((20, 1), UNKNOWN)
    coef, intercept = fit_linear(X, all_unknown, multi_label=True, C=1.0, class_weight=None, max_iter=200)
    assert intercept[0] < 0 and not coef.any()
