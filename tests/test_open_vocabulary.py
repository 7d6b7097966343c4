"""The open-vocabulary predictor: it ranks states it never trained on, takes a user's states, never answers the
no-feeling word, saves without pickle, and the shipped one covers its lexicons."""

import json

import numpy as np
import pytest

from affectlab.errors import InputError, ModelFileError
from affectlab.openstates.predictors import load_predictor, resolve_predictor
from affectlab.openstates.predictors.open_training import dev_split, fit_map
from affectlab.openstates.predictors.open_vocabulary import OpenVocabularyPredictor

EXAMPLES = {
    "en": (
        ["I won the prize, I feel ___", "Best day of my life, I feel ___", "My dog died, I feel ___",
         "I miss her so much, I feel ___", "Nothing happened today, I feel ___", "The bus comes at ten, I feel ___",
         "They lied to me again, I feel ___", "He broke my phone on purpose, I feel ___"],
        ["happy", "happy", "sad", "sad", "nothing", "nothing", "angry", "angry"],
    )
}  # fmt: skip
LEXICONS = {"en": ["furious", "joyful", "heartbroken", "nervous"]}


@pytest.fixture(scope="module")
def predictor():
    return OpenVocabularyPredictor().fit(EXAMPLES, LEXICONS, progress=lambda _s: None)


def test_candidates_are_the_lexicon_and_the_training_states(predictor):
    assert predictor.candidates_["en"] == sorted({*LEXICONS["en"], "happy", "sad", "nothing", "angry"})
    assert predictor.training_["en"] == {"examples": 8, "seen_states": 4, "candidates": 8}


def test_ranks_a_state_it_never_trained_on(predictor):
    ranked = predictor.predict(["My grandmother passed away last night. I feel <extra_id_0>."], ["en"], k=8)
    terms = [t.term for t in ranked[0][0]]
    assert "nothing" not in terms and len(terms) == 7
    assert terms.index("heartbroken") < terms.index("joyful")
    assert all(a.score >= b.score for a, b in zip(ranked[0][0], ranked[0][0][1:], strict=False))


def test_users_states_are_added_or_ranked_alone(predictor):
    added = predictor.with_states("en", ["grief-stricken", "happy"])
    assert added.candidates_["en"][-1] == "grief-stricken" and len(added.candidates_["en"]) == 9
    assert predictor.candidates_["en"][-1] != "grief-stricken"  # the shipped object is unchanged
    alone = predictor.with_states("en", ["elated", "devastated"], only=True)
    ranked = alone.predict(["She said yes to my proposal! I feel <extra_id_0>."], ["en"], k=5)
    assert [t.term for t in ranked[0][0]] == ["elated", "devastated"]
    with pytest.raises(InputError, match="cannot read the state"):
        predictor.with_states("en", ["𓀀𓀁"])
    with pytest.raises(InputError, match="no 'es' states"):
        predictor.with_states("es", ["triste"])


def test_new_states_are_embedded_in_chunks_with_progress(predictor, monkeypatch):
    import affectlab.openstates.predictors.open_scoring as scoring

    monkeypatch.setattr(scoring, "STATE_CHUNK", 2)
    reports = []
    states = ["calm", "uneasy", "giddy", "sore", "bitter"]
    followed = predictor.with_states(
        "en", states, only=True, progress=lambda done, total: reports.append((done, total))
    )
    assert reports == [(2, 5), (4, 5), (5, 5)]
    unfollowed = predictor.with_states("en", [*states, "x"], only=True)
    np.testing.assert_allclose(followed._vectors["en"], unfollowed._vectors["en"][:5], atol=1e-6)


def test_every_mask_is_ranked(predictor):
    text = " ".join(f"<extra_id_{i}>" for i in range(10))
    ranked = predictor.predict([text, "<extra_id_0> was the word", "the word was <extra_id_0>"], ["en"] * 3, k=3)
    assert [len(r) for r in ranked] == [10, 1, 1] and all(len(mask) == 3 for r in ranked for mask in r)


def test_score_terms_is_normalised_over_the_candidates(predictor):
    scores = predictor.score_terms(["My cat died. I feel <extra_id_0>."], ["en"], ["happy", "sad", "bored"])
    assert np.exp(scores[0]).sum() == pytest.approx(1.0, abs=1e-5) and scores[0, 1] > scores[0, 0]


def test_save_and_load(predictor, tmp_path):
    predictor.save(tmp_path / "p")
    config = json.loads((tmp_path / "p" / "open_states.json").read_text(encoding="utf-8"))
    assert config["kind"] == "open" and config["seen"]["en"] == ["angry", "happy", "nothing", "sad"]
    loaded = load_predictor(tmp_path / "p")
    text = ["I feel <extra_id_0> after the funeral."]
    want = [t.to_dict() for t in predictor.predict(text, ["en"])[0][0]]
    got = [t.to_dict() for t in loaded.predict(text, ["en"])[0][0]]
    assert [t["term"] for t in got] == [t["term"] for t in want]
    assert [t["score"] for t in got] == pytest.approx([t["score"] for t in want], abs=2e-3)  # float16 vectors
    (tmp_path / "p" / "open_states.npz").write_bytes(b"not npz")
    with pytest.raises(ModelFileError, match="cannot load the open-state predictor"):
        load_predictor(tmp_path / "p")


def test_needs_two_states():
    with pytest.raises(InputError, match="at least two states"):
        OpenVocabularyPredictor().fit({"en": (["a", "b"], ["happy", "happy"])}, {}, progress=lambda _s: None)


def test_the_map_learns_to_point_contexts_at_their_states():
    rng = np.random.default_rng(0)
    states = rng.normal(size=(3, 8))
    states /= np.linalg.norm(states, axis=1, keepdims=True)
    targets = np.repeat(np.arange(3), 20)
    contexts = np.roll(states, 1, axis=1)[targets] + rng.normal(0, 0.05, (60, 8))  # a rotation away from them
    W = fit_map(contexts, targets, states, np.ones(60))
    assert ((contexts @ W @ states.T).argmax(axis=1) == targets).mean() > 0.95


def test_dev_split_holds_out_whole_families():
    states = [f"s{i % 40}" for i in range(400)]
    dev, unseen = dev_split(states)
    held = {s for s, u in zip(states, unseen, strict=True) if u}
    assert held and all(dev[i] for i, s in enumerate(states) if s in held)
    assert 0.1 < dev[~unseen].mean() < 0.2


def test_the_shipped_predictor_is_open_and_covers_its_lexicons():
    shipped = resolve_predictor("default")
    assert shipped.kind == "open" and set(shipped.blends_) == {"en", "es"}
    assert len(shipped.candidates_["en"]) >= 1000 and len(shipped.candidates_["es"]) >= 300
    ranked = shipped.predict(["I failed the exam again. I feel <extra_id_0>."], ["en"], k=5)
    assert len(ranked[0][0]) == 5


def test_the_ngram_member_features_are_scikit_learns_vectoriser():
    from affectlab.openstates.predictors.closed_members import NgramMember, _vectorizer

    contexts = ["i feel ___ today", "I FEEL ___ about it, don't you?", "me siento ___ y cansada", "i feel ___ :)"] * 3
    states = ["happy", "sad", "triste", "happy"] * 3
    member = NgramMember.fit([*contexts, "ça va ___ l'été", "x"], [*states, "bien", "sad"])
    reference = _vectorizer({ngram: i for i, ngram in enumerate(member.ngrams)})
    reference.idf_ = member.idf
    texts = [*contexts, "Ünïcödé ___ ÇA VA? l'été", "", "a b c", "i feel i feel ___ 😀"]
    assert np.allclose(member.features.transform(texts).toarray(), reference.transform(texts).toarray(), atol=1e-6)
