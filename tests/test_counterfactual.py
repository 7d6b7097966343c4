"""Issue 52's counterfactual training rows (denials joined to train texts, "not A but B") and the n-gram member's
negation scope: what each row is known to say, in every language with clauses, and which words a negation governs."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from affectlab.build.counterfactual import PHRASES_DIR, contrast_rows, denied_rows, phrases, sentence_case
from affectlab.build.sources import COUNTERFACTUAL, SplitRows, derived_rows
from affectlab.detectors import create_detector
from affectlab.detectors.negation import MARK, negation_marked
from affectlab.labels import EKMAN

LANGUAGES = ("af", "am", "ar", "de", "en", "es", "hi", "pt", "ru", "uk", "zh")
ANGER, JOY, NONE = (EKMAN.labels.index(label) for label in ("anger", "joy", "none"))


def test_every_language_has_clauses_for_every_emotion_and_patterns_that_take_both():
    assert tuple(sorted(p.stem for p in PHRASES_DIR.glob("*.json"))) == LANGUAGES
    for lang in LANGUAGES:
        clauses = phrases(lang)
        assert clauses is not None and clauses.lang == lang
        for emotion in EKMAN.emotion_labels:
            assert len(clauses.affirm[emotion]) >= 12 and len(clauses.deny[emotion]) >= 12, (lang, emotion)
        assert all("{deny}" in p and "{affirm}" in p for p in clauses.but), lang
    assert phrases("pt-BR") is phrases("pt") and phrases("arq") is phrases("ar") and phrases("sw") is None


def test_a_denied_row_keeps_the_texts_targets_and_denies_an_emotion_it_lacks():
    targets = np.array([[0, 0, 0, 1, 0, 0, 0], [1, np.nan, 0, 0, 0, 0, 0]], dtype=np.float32)
    texts, out, langs = denied_rows(["Got the job today", "Stop lying to me"], targets, ["en", "es"], seed=3)
    assert langs == ["en", "es"] and len(texts) == 2
    assert np.array_equal(out[0], targets[0])  # the denied emotion was already known absent
    assert out[1, ANGER] == 1 and np.isnan(out[1, EKMAN.labels.index("disgust")])
    assert all("Got the job today" in texts[0] or "Stop lying to me" in t for t in texts[1:])
    _, unknown_none, _ = denied_rows(["Got the job today"], targets[:1], ["es"], seed=3, none_known=False)
    assert np.isnan(unknown_none[0, NONE])


def test_a_text_with_no_absent_emotion_or_no_clauses_gives_no_denied_row():
    every = np.array([[1, 1, 1, 1, 1, 1, 0]], dtype=np.float32)
    assert denied_rows(["all of it"], every, ["en"], seed=0)[0] == []
    assert denied_rows(["habari"], np.zeros((1, len(EKMAN)), np.float32), ["sw"], seed=0)[0] == []


def test_a_contrast_row_knows_b_present_a_absent_and_nothing_else():
    texts, targets, _ = contrast_rows(["uk"] * 50, seed=1)
    assert len(texts) == 50 and all(t[0].isupper() for t in texts)
    for row in targets:
        known = {EKMAN.labels[j]: row[j] for j in np.flatnonzero(~np.isnan(row))}
        assert sorted(known.values()) == [0.0, 0.0, 1.0] and known["none"] == 0.0


def test_sentence_case_capitalises_each_sentence_start():
    assert sentence_case("¿enfadado? para nada. y tú") == "¿Enfadado? Para nada. Y tú"


def test_the_counterfactual_sources_derive_rows_in_their_language():
    rows = SplitRows(["I lost my keys", "Мене звільнили"], None,
                     {"ekman": np.array([[0, 0, 0, 0, 1, 0, 0]] * 2, dtype=np.float32)}, ["en", "uk"])  # fmt: skip
    denied = derived_rows(rows, "denied")
    assert len(denied.texts) == 2 and denied.targets["ekman"].shape == (2, len(EKMAN))
    contrast = derived_rows(rows, "contrast")
    assert contrast.langs == ["en", "uk"]
    assert {s.derive for s in COUNTERFACTUAL} == {"denied", "contrast"}
    assert len({s.key for s in COUNTERFACTUAL}) == len(COUNTERFACTUAL)


@pytest.mark.parametrize(
    ("text", "words", "chars"),
    [
        (
            "I'm not angry with you, don't worry.",
            f"I'm not {MARK}angry {MARK}with {MARK}you, don't {MARK}worry.",
            "I'm not   , don't .",
        ),
        ("Мені не страшно, я впевнений.", f"Мені не {MARK}страшно, я впевнений.", "Мені не , я впевнений."),
        ("У мене немає страху.", f"У мене немає {MARK}страху.", "У мене немає ."),
        ("No estoy enfadada pero sí triste", f"No {MARK}estoy {MARK}enfadada pero sí triste", "No   pero sí triste"),
        ("मैं नाराज़ नहीं हूँ", f"{MARK}मैं {MARK}नाराज़ नहीं हूँ", "  नहीं हूँ"),
        ("What a horrible day.", "What a horrible day.", "What a horrible day."),
    ],
)
def test_a_negation_marks_the_words_it_governs_and_leaves_the_rest_as_it_is(text, words, chars):
    assert negation_marked(text) == (words, chars)


@given(st.text(alphabet=st.sampled_from(list("nots'’ ,.!ніеnichtजनहीं اليسa")), max_size=40))
def test_a_text_without_a_cue_word_is_returned_as_tokenising_it_would_return_it(text):
    from affectlab.detectors.negation import _TOKEN, _scoped

    tokens = [match.group() for match in _TOKEN.finditer(text)]
    if not any(_scoped(tokens, 4)):
        assert negation_marked(text) == (text, text)
    else:
        assert negation_marked(text) != (text, text)


def test_an_ngram_member_with_negation_scope_reads_a_denial_apart_from_the_emotion():
    texts = ["i am so angry", "i am angry at you", "what a nice day", "the bus is late"] * 3
    targets = np.zeros((len(texts), len(EKMAN)), dtype=np.int8)
    for i, text in enumerate(texts):
        targets[i, ANGER if "angry" in text else NONE] = 1
    scoped = create_detector("tfidf-lr", negation_scope=4).fit(texts, targets, EKMAN)
    plain = create_detector("tfidf-lr").fit(texts, targets, EKMAN)
    denial = ["i am not angry at all"]
    assert scoped.predict_proba(denial)[0, ANGER] < plain.predict_proba(denial)[0, ANGER]
    assert json.loads(json.dumps(scoped.params))["negation_scope"] == 4
