"""UA-CBT generation (Eval-UA-tion 1.0, section 3.1) on the authors' few-shot story and on small stories of ours.

The agreement checks read the options with pymorphy3 directly, not through the generator's own helpers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from affectlab.errors import InputError
from affectlab.uatasks.cbt import (
    MIN_MENTIONS,
    SOURCE_ANY_GENDER,
    SOURCE_EXTERNAL,
    generate_cbt,
    generate_cbt_report,
    load_external_words,
    read_stories,
)
from affectlab.uatasks.cbt_published import load_cbt_artifact, most_frequent_baseline
from affectlab.uatasks.cbt_story import KINDS
from affectlab.uatasks.instances import GAP, MCInstance

pymorphy3 = pytest.importorskip("pymorphy3")

MORPH = pymorphy3.MorphAnalyzer(lang="uk")

# Our own little story: two characters and two verbs that keep coming back, for verb gaps and plural forms.
FARM_STORY = (
    "Жили собі кіт Мурко і пес Бровко. Кіт любив співати, а пес любив бігати. "
    "Щоранку кіт співав біля річки, а пес бігав навколо хати. Одного разу пес побачив лисицю. "
    "Лисиця хотіла вкрасти курку. Пес гавкав, а кіт співав голосно. Лисиця злякалася і втекла до лісу. "
    "Кури дякували собакам і котам. Наступного дня кіт знову співав, а пес знову бігав. "
    "Мурко співав пісню про лисицю, а Бровко бігав за метеликами. Лисиця більше не приходила до хати. "
    "Кури спокійно жили біля хати, а кіт і пес співали та бігали разом."
)


@pytest.fixture(scope="module")
def few_shot_story(data_dir: Path) -> tuple[str, str]:
    stories = read_stories(data_dir / "eval_ua_tion" / "UA-CBT" / "artifacts" / "stories" / "few_shot_split.csv")
    assert len(stories) == 1
    return stories[0]


@pytest.fixture(scope="module")
def generated(few_shot_story: tuple[str, str]) -> list[MCInstance]:
    story_id, story = few_shot_story
    return generate_cbt(story, story_id, seed=0, few_shot=True)


@pytest.fixture(scope="module")
def published(data_dir: Path) -> list[MCInstance]:
    return load_cbt_artifact(data_dir / "eval_ua_tion" / "UA-CBT" / "artifacts" / "tasks" / "stories_train.jsonl")


def _readings(word: str, lemma: str) -> list[Any]:
    """pymorphy3 readings of ``word`` as a form of ``lemma``; surname/patronymic homonyms of common words (the
    dictionary makes ``ластівка`` a masculine surname too) only where the lemma has no other reading."""
    parses = [p for p in MORPH.parse(word.lower()) if p.normal_form == lemma]
    common = [p for p in parses if not {"Surn", "Patr"} & p.tag.grammemes]
    return common or parses


def _same_form(p: Any, gap: dict[str, str]) -> bool:
    """Same case and number (nouns), or same tense/mood, person and number (verbs), as the gap."""
    number = "plur" if "plur" in p.tag else "sing"
    if gap["pos"] == "NOUN":
        return p.tag.POS == "NOUN" and p.tag.case == gap["case"] and number == gap["number"]
    form = "infn" if "infn" in p.tag else "impr" if "impr" in p.tag else p.tag.tense
    same = p.tag.POS == "VERB" and form == gap["form"]
    return same and gap.get("number") in (None, number) and gap.get("person") in (None, p.tag.person)


def _check_agreement(instances: list[MCInstance]) -> int:
    """Every option is read by pymorphy3 in the gap's case and number (verbs: form, person, number); for a
    singular noun or past-tense verb, also in one of the genders pymorphy3 gives the gap word itself."""
    checked = 0
    for instance in instances:
        gap = instance.metadata["gap_features"]
        gap_readings = [
            p for p in _readings(instance.answer_text, instance.metadata["gap_lemma"]) if _same_form(p, gap)
        ]
        assert gap_readings, instance.id
        genders = {p.tag.gender for p in gap_readings}
        gendered = "number" in gap and gap["number"] == "sing" and gap.get("form") in (None, "past")
        for option, lemma, source in zip(
            instance.options, instance.metadata["option_lemmas"], instance.metadata["option_sources"], strict=True
        ):
            readings = [p for p in _readings(option, lemma) if _same_form(p, gap)]
            if gendered and source != SOURCE_ANY_GENDER:
                readings = [p for p in readings if p.tag.gender in genders]
            assert readings, (instance.id, option, source)
            checked += 1
    return checked


def test_cbt_generates_six_option_questions_from_the_few_shot_story(generated: list[MCInstance]) -> None:
    assert len(generated) >= 5
    for instance in generated:
        assert instance.task == "ua-cbt" and instance.few_shot
        assert len(instance.options) == 6 and len({o.lower() for o in instance.options}) == 6
        assert instance.question.count(GAP) == 1
        assert instance.answer_text == instance.metadata["gap_word"]
        assert instance.metadata["task_type"] in KINDS
        assert instance.metadata["option_sources"].count("answer") == 1
    assert {i.metadata["task_type"] for i in generated} >= {"NAMED_ENTITY", "COMMON_NOUN"}


def test_cbt_is_deterministic_for_a_seed(few_shot_story: tuple[str, str], generated: list[MCInstance]) -> None:
    story_id, story = few_shot_story
    assert generate_cbt(story, story_id, seed=0, few_shot=True) == generated
    reseeded = generate_cbt(story, story_id, seed=1, few_shot=True)
    assert [i.options for i in reseeded] != [i.options for i in generated]
    assert [sorted(i.options) for i in reseeded] == [sorted(i.options) for i in generated]


def test_cbt_max_per_story_keeps_a_seeded_sample_in_story_order(few_shot_story: tuple[str, str]) -> None:
    story_id, story = few_shot_story
    first = generate_cbt(story, story_id, seed=3, max_per_story=3)
    assert first == generate_cbt(story, story_id, seed=3, max_per_story=3)
    offsets = [i.metadata["gap_offset_in_question"] for i in first]
    assert len(first) == 3 and offsets == sorted(offsets)


def test_cbt_distractors_agree_with_the_gap_in_case_number_and_gender(generated: list[MCInstance]) -> None:
    assert _check_agreement(generated) == 6 * len(generated)


def test_cbt_verb_distractors_take_the_gap_tense_number_and_gender() -> None:
    instances = generate_cbt(FARM_STORY, "farm", seed=0)
    verbs = [i for i in instances if i.metadata["task_type"] == "VERB"]
    assert verbs and {i.metadata["gap_features"]["number"] for i in verbs} == {"sing", "plur"}
    assert _check_agreement(instances) == 6 * len(instances)


def test_cbt_keeps_the_capitalisation_of_the_gap(generated: list[MCInstance]) -> None:
    assert any(i.answer_text[0].isupper() for i in generated) and any(i.answer_text[0].islower() for i in generated)
    for instance in generated:
        assert {o[0].isupper() for o in instance.options} == {instance.answer_text[0].isupper()}


def test_cbt_filled_gap_reproduces_the_story(few_shot_story: tuple[str, str], generated: list[MCInstance]) -> None:
    _, story = few_shot_story
    for instance in generated:
        filled = instance.question.replace(GAP, instance.answer_text)
        assert story.strip().startswith(instance.context)
        assert story.strip().endswith(filled)
        between = story.strip()[len(instance.context) : len(story.strip()) - len(filled)]
        assert between.strip() == ""


def test_cbt_context_is_65_percent_of_the_sentences(generated: list[MCInstance]) -> None:
    for instance in generated:
        meta = instance.metadata
        assert meta["num_context_sents"] + meta["num_question_sents"] == meta["num_sentences"]
        assert abs(meta["num_question_sents"] / meta["num_sentences"] - 0.35) < 0.5 / meta["num_sentences"] + 1e-9


def test_cbt_gap_lemmas_were_mentioned_often_enough_before_the_gap(generated: list[MCInstance]) -> None:
    for instance in generated:
        offset = instance.metadata["gap_offset_in_question"]
        before = f"{instance.context} {instance.question[:offset]}"
        lemma, kind = instance.metadata["gap_lemma"], instance.metadata["task_type"]
        mentions = sum(any(p.normal_form == lemma for p in MORPH.parse(w)) for w in before.lower().split())
        assert mentions >= MIN_MENTIONS[kind] <= instance.metadata["gap_lemma_mentions_before"]


def test_cbt_common_noun_needs_four_earlier_mentions() -> None:
    context = "Камінь лежав у полі. Хлопчик побачив камінь. Хлопчик підняв камінь. Птах сів на гілку. Птах заспівав. "
    challenge = "Потім хлопчик знайшов камінь. Птах полетів."
    three = generate_cbt_report(context + challenge, "three")
    four = generate_cbt_report(context.replace("Птах заспівав.", "Хлопчик кинув камінь.") + challenge, "four")
    assert "камінь" not in {i.metadata["gap_lemma"] for i in three.instances}
    assert "камінь" in {i.metadata["gap_lemma"] for i in four.instances}


@pytest.mark.parametrize("story", ["Кіт спав.", "Кіт спав. Пес біг. Сонце світило.", "   "])
def test_cbt_story_too_short_for_any_gap_is_an_input_error(story: str) -> None:
    with pytest.raises(InputError, match="story 'tiny'"):
        generate_cbt(story, "tiny")


def test_cbt_external_words_fill_in_when_the_story_has_too_few(tmp_path: Path) -> None:
    words = {"NAMED_ENTITY": ["дракон", "велетень", "гном", "лицар", "король"]}
    instances = generate_cbt(FARM_STORY, "farm", seed=0, external_words=words)
    external = {
        o
        for i in instances
        for o, s in zip(i.options, i.metadata["option_sources"], strict=True)
        if s == SOURCE_EXTERNAL
    }
    assert external and {MORPH.parse(o)[0].normal_form for o in external} <= set(words["NAMED_ENTITY"])
    bad = tmp_path / "words.yaml"
    bad.write_text("ANIMALS: [кіт]\n", encoding="utf-8")
    with pytest.raises(InputError, match="unknown keys"):
        load_external_words(bad)


def test_cbt_default_external_list_is_shipped_for_every_kind() -> None:
    words = load_external_words()
    assert set(words) == set(KINDS)
    assert all(len(words[kind]) >= 20 for kind in KINDS)


def test_read_stories_reads_a_folder_and_rejects_a_csv_without_fixed_story(tmp_path: Path) -> None:
    (tmp_path / "farm.txt").write_text(FARM_STORY, encoding="utf-8")
    assert read_stories(tmp_path) == [("farm", FARM_STORY)]
    bad = tmp_path / "stories.csv"
    bad.write_text("id,story\n1,Кіт спав.\n", encoding="utf-8")
    with pytest.raises(InputError, match="fixed_story"):
        read_stories(bad)


def test_most_frequent_baseline_picks_the_most_mentioned_lemma() -> None:
    context = "Кіт спав. Кота шукав пес. Котові снилося молоко."
    for options in (("кота", "пса"), ("пса", "кота")):
        instance = MCInstance(
            "ua-cbt", f"Пес побачив {GAP}.", options, 0, context=context, metadata={"task_type": "NAMED_ENTITY"}
        )
        assert instance.options[most_frequent_baseline(instance)] == "кота"


def test_most_frequent_baseline_on_generated_instances(generated: list[MCInstance]) -> None:
    accuracy = sum(most_frequent_baseline(i) == i.answer for i in generated) / len(generated)
    # The gaps are on the story's most frequent lemmas, so the baseline is strong (the paper: 57 % over 1,061).
    assert 0.5 <= accuracy <= 1.0


def test_published_instances_load_with_their_answers(published: list[MCInstance]) -> None:
    assert len(published) == 8 and all(i.few_shot for i in published)
    assert [i.metadata["task_type"] for i in published].count("NAMED_ENTITY") == 6
    for instance in published:
        assert instance.answer_text == instance.metadata["md_opts_correct_answer"][0]
        assert instance.question.count(GAP) == 1


def test_most_frequent_baseline_on_published_instances(published: list[MCInstance]) -> None:
    ours = [most_frequent_baseline(i) for i in published]
    theirs = [i.metadata["md_opts_baseline_most_frequent_idx"][0] for i in published]
    assert sum(a == b for a, b in zip(ours, theirs, strict=True)) >= 6
    assert sum(o == i.answer for o, i in zip(ours, published, strict=True)) >= 4
