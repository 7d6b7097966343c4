"""Right in kind: the word affect (a state's six-emotion profile), the agreement of a context's affect with a
state's, how the open predictor adds it, and the CARER labels it learns from."""

import numpy as np
import pytest

from affectlab.openstates.predictors.affect_agreement import (
    EMOTIONS,
    WordAffect,
    agreement,
    context_affect,
    label_words,
    word_affect_examples,
)
from affectlab.openstates.predictors.open_scoring import embed_states
from affectlab.openstates.predictors.open_vocabulary import OpenVocabularyPredictor

WORDS = {
    "anger": ["furious", "angry", "enraged"], "disgust": ["disgusted", "grossed out", "repulsed"],
    "fear": ["terrified", "scared", "afraid"], "joy": ["happy", "overjoyed", "delighted"],
    "sadness": ["sad", "heartbroken", "miserable"], "surprise": ["surprised", "astonished", "stunned"],
}  # fmt: skip


@pytest.fixture(scope="module")
def reader():
    words = [(family, word) for family, of_family in WORDS.items() for word in of_family]
    vectors = embed_states([word for _, word in words], "en")
    return WordAffect.fit(vectors, [family for family, _ in words], np.ones(len(words)))


def test_the_word_affect_reads_a_feeling_word_it_never_saw_in_its_family(reader):
    profiles = reader.profiles(embed_states(["elated", "devastated"], "en"))
    assert profiles.shape == (2, 6) and np.allclose(profiles.sum(axis=1), 1.0)
    assert EMOTIONS[profiles[0].argmax()] == "joy"
    assert profiles[1][EMOTIONS.index("joy")] < profiles[0][EMOTIONS.index("joy")]


def test_the_word_affect_needs_all_six_emotions():
    vectors = embed_states(["happy", "sad"], "en")
    with pytest.raises(ValueError, match="needs examples of"):
        WordAffect.fit(vectors, ["joy", "sadness"], np.ones(2))


def test_saved_arrays_give_the_same_reader(reader):
    again = WordAffect.from_arrays(reader.arrays("affect"), "affect")
    vectors = embed_states(["calm"], "en")
    np.testing.assert_allclose(again.profiles(vectors), reader.profiles(vectors), rtol=1e-6)
    with pytest.raises(ValueError, match="six"):
        WordAffect.from_arrays({"affect/weights": np.zeros((3, 384)), "affect/bias": np.zeros(3)}, "affect")


def test_examples_weigh_a_word_by_its_posts_families_then_add_the_label_words():
    words, labels, weights = word_affect_examples(
        [("en", "gutted"), ("en", "gutted"), ("en", "gutted"), ("en", "chuffed"), ("en", "meh")],
        ["sadness", "sadness", "anger", "joy", None],
        {"es": [("joy", "feliz")]},
    )
    assert words == [("en", "chuffed"), ("en", "gutted"), ("en", "gutted"), ("es", "feliz")]
    assert labels == ["joy", "anger", "sadness", "joy"]
    np.testing.assert_allclose(weights[:3], [1.0, 3**0.5 / 3, 2 * 3**0.5 / 3])


def test_the_label_words_are_the_papers_with_their_ekman_family():
    words = label_words()
    assert ("disgust", "disgusted") in words["en"] and ("joy", "relieved") in words["en"]
    assert ("fear", "asustado") in words["es"] and all(family in EMOTIONS for family, _ in words["en"])
    assert "nothing" not in {word for _, word in words["en"]}


def test_a_context_that_says_no_emotion_leaves_the_ranking_alone(reader):
    profiles = reader.profiles(embed_states(["happy", "sad", "scared"], "en"))
    none = np.array([[0, 0, 0, 0, 0, 0, 1.0]])
    assert np.ptp(agreement(none, profiles)) < 1e-6
    joyful = np.array([[0.05, 0.0, 0.05, 0.9, 0.05, 0.0, 0.1]])
    assert agreement(joyful, profiles)[0].argmax() == 0


@pytest.mark.parametrize(
    ("lang", "context", "read"),
    [
        ("es", "Ganamos el partido y me siento ___", "Ganamos el partido"),
        ("en", "My daughter took her first steps today, I feel so ___", "My daughter took her first steps today"),
        ("en", "im feeling ___ about the move", "about the move"),
        ("en", "I found out ___ and I feel ___ and loved", "I found out and loved"),
        ("es", "___", ""),
    ],
)
def test_the_situation_is_the_context_without_its_feeling_phrase(lang, context, read):
    from affectlab.openstates.predictors.affect_agreement import situation

    assert situation(context, lang) == read


def test_context_affect_reads_the_context_without_its_mask_through_the_scoring_door(monkeypatch):
    # the default detector's decision scores, unrounded (detector.score), of each context without its mask
    import types

    import numpy as np

    import affectlab.detectors.batch as batch_module
    import affectlab.detectors.resolve as resolve_module
    from affectlab.labels import EKMAN

    read = []

    class Scoring:
        label_space = EKMAN

        def score(self, batch):
            read.append((list(batch.texts), list(batch.langs)))
            row = [0.912345 if label == "joy" else 0.1 for label in EKMAN.labels]
            return types.SimpleNamespace(scores=np.array([row] * len(batch.texts)))

    monkeypatch.setattr(resolve_module, "default_head", lambda taxonomy: Scoring())
    monkeypatch.setattr(batch_module, "prepare_batch", lambda detector, inputs: inputs)
    scores = context_affect(["I got the job and I feel ___", "___"], ["en", "en"])
    assert read == [(["I got the job"], ["en"])]
    assert scores[0][EMOTIONS.index("joy")] == pytest.approx(0.912345) and list(scores[1]) == [0] * 6 + [1]


EXAMPLES = {
    "en": (
        ["I won the prize, I feel ___", "Best day of my life, I feel ___", "My dog died, I feel ___",
         "I miss her so much, I feel ___", "They lied to me again, I feel ___", "He broke my phone, I feel ___"],
        ["happy", "happy", "sad", "sad", "angry", "angry"],
    )
}  # fmt: skip


@pytest.mark.slow
def test_the_predictor_adds_the_agreement_with_its_blends_weight_and_saves_the_reader(reader, monkeypatch, tmp_path):
    import dataclasses

    import affectlab.openstates.predictors.open_vocabulary as open_module

    predictor = OpenVocabularyPredictor().fit(EXAMPLES, {"en": ["elated", "miserable"]}, progress=lambda _s: None)
    predictor.affect_ = reader
    text = "Something happened, I feel <extra_id_0>."
    joyful = np.array([[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]], dtype=np.float32)
    monkeypatch.setattr(open_module, "context_affect", lambda contexts, langs: np.repeat(joyful, len(contexts), 0))
    predictor.blends_["en"] = dataclasses.replace(predictor.blends_["en"], affect=8.0)
    agreed = [t.term for t in predictor.predict([text], ["en"], k=5)[0][0]]
    assert agreed[0] in {"happy", "elated"} and agreed.index("elated") < agreed.index("miserable")
    predictor.save(tmp_path)
    loaded = OpenVocabularyPredictor.load(tmp_path)
    assert loaded.blends_["en"].affect == 8.0 and loaded.affect_ is not None
    assert [t.term for t in loaded.predict([text], ["en"], k=5)[0][0]] == agreed


@pytest.mark.slow
def test_a_predictor_without_affect_weight_loads_no_detector(monkeypatch):
    import affectlab.openstates.predictors.open_vocabulary as open_module

    predictor = OpenVocabularyPredictor().fit(EXAMPLES, {"en": ["elated"]}, progress=lambda _s: None)
    monkeypatch.setattr(open_module, "context_affect", lambda *a: pytest.fail("read the context's affect"))
    assert predictor.predict(["I feel <extra_id_0>."], ["en"], k=2)


def test_carer_labels_are_each_posts_label_by_its_id(tmp_path):
    from affectlab.openstates.collect.carer import carer_labels, carer_posts

    (tmp_path / "carer").mkdir()
    (tmp_path / "carer" / "train.txt").write_text("i feel gutted;sadness\ni am so chuffed;joy\n", encoding="utf-8")
    (tmp_path / "carer" / "validation.txt").write_text("sentence;emotion\ni feel adored;love\ncut sho", "utf-8")
    labels = carer_labels(tmp_path)
    ids, texts = carer_posts(tmp_path)
    assert labels == {"carer:train:1": "sadness", "carer:train:2": "joy", "carer:validation:2": "love"}
    assert ids[-1] == "carer:validation:3" and texts[-1] == "cut sho"
