"""LMentry-static-UA generators, the published-artifact loader and regeneration (Eval-UA-tion section 3.2)."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import pytest

from affectlab.errors import DataNotFoundError, InputError, UnknownNameError
from affectlab.uatasks.lmes import (
    generate_cats_bin,
    generate_cats_mc,
    generate_lmes,
    generate_low,
    generate_wis,
    generate_wordalpha,
    generate_wordlength,
)
from affectlab.uatasks.lmes_instances import alphabet_key, low_instance, sentence_tokens, sentence_words
from affectlab.uatasks.lmes_published import load_lmes_artifact, regenerate_instance, regenerate_published
from affectlab.uatasks.lmes_resources import TASK_FILES, lmes_dir, load_categories, load_resources
from affectlab.uatasks.numerals import LAST


@pytest.fixture(scope="module")
def resources_dir(data_dir: Path) -> Path:
    return data_dir / "eval_ua_tion" / "LMentry-static-UA" / "resources"


@pytest.fixture(scope="module")
def artifacts_dir(data_dir: Path) -> Path:
    return data_dir / "eval_ua_tion" / "LMentry-static-UA" / "artifacts"


@pytest.fixture(scope="module")
def sentences(artifacts_dir: Path) -> list[str]:
    """The published WIS sentences (no sentences are shipped with the resources)."""
    published = load_lmes_artifact(artifacts_dir / "WISTask.json", "lmes-wis")
    return list(dict.fromkeys(instance.metadata["sentence"] for instance in published))


@pytest.mark.parametrize("task", list(TASK_FILES))
def test_the_same_seed_gives_the_same_instances(resources_dir: Path, sentences: list[str], task: str) -> None:
    first = generate_lmes(task, resources_dir, n=40, seed=7, sentences=sentences)
    again = generate_lmes(task, resources_dir, n=40, seed=7, sentences=sentences)
    other = generate_lmes(task, resources_dir, n=40, seed=8, sentences=sentences)
    assert len(first) == 40 and first == again
    assert [i.question for i in first] != [i.question for i in other]
    assert len({i.id for i in first}) == 40 and all(i.task == task for i in first)


def test_low_answer_is_the_asked_letter(resources_dir: Path) -> None:
    for instance in generate_low(resources_dir, n=200, seed=1):
        word, needle = instance.metadata["word"], instance.metadata["needle"]
        assert instance.answer_text == (word[-1] if needle == LAST else word[needle - 1])
        assert instance.options == tuple(dict.fromkeys(word)) and f'"{word}"' in instance.question


def test_low_asks_every_fourth_letter_and_the_last_through_each_template(resources_dir: Path) -> None:
    instances = generate_low(resources_dir, n=300, seed=2)
    word = instances[0].metadata["word"]
    asked = {(i.metadata["needle"], i.metadata["template_n"]) for i in instances if i.metadata["word"] == word}
    expected = {(needle, t) for needle in [*range(1, len(word), 4)] for t in range(4)} | {(LAST, t) for t in range(3)}
    assert asked == expected  # no "під номером ОДИН" for the last letter: a cardinal has no "last"


def test_low_leaves_out_words_with_apostrophes_or_hyphens(resources_dir: Path) -> None:
    assert all(i.metadata["word"].isalpha() for i in generate_low(resources_dir, n=2000, seed=3))


def test_wis_answer_is_the_asked_word_and_punctuation_is_not_a_word(resources_dir: Path, sentences: list[str]) -> None:
    for instance in generate_wis(resources_dir, sentences, n=100, seed=1):
        words, needle = sentence_words(instance.metadata["sentence"]), instance.metadata["needle"]
        assert instance.answer_text == (words[-1] if needle == LAST else words[needle - 1])
        assert "," not in instance.options


def test_wis_token_count_matches_the_published_len_haystack(artifacts_dir: Path) -> None:
    published = load_lmes_artifact(artifacts_dir / "WISTask.json", "lmes-wis")
    assert [len(sentence_tokens(i.metadata["sentence"])) for i in published] == [
        i.metadata["len_haystack"] for i in published
    ]


def test_wis_without_sentences_is_a_clear_error(resources_dir: Path) -> None:
    with pytest.raises(InputError, match="needs sentences"):
        generate_lmes("lmes-wis", resources_dir, n=5)


def test_wordlength_answer_is_really_longer_or_shorter(resources_dir: Path) -> None:
    for instance in generate_wordlength(resources_dir, n=200, seed=4):
        answer, other = instance.answer_text, next(o for o in instance.options if o != instance.answer_text)
        assert len(answer) > len(other) if instance.metadata["kind"] == "more" else len(answer) < len(other)


def test_wordalpha_answer_is_really_first_or_last(resources_dir: Path) -> None:
    for instance in generate_wordalpha(resources_dir, n=200, seed=4):
        answer, other = instance.answer_text, next(o for o in instance.options if o != instance.answer_text)
        earlier = alphabet_key(answer) < alphabet_key(other)
        assert earlier == (instance.metadata["kind"] == "less")


def test_the_alphabet_is_ukrainian() -> None:
    words = ["яма", "їжак", "іній", "єнот", "ґанок", "гора", "еней", "ирій"]
    assert sorted(words, key=alphabet_key) == ["гора", "ґанок", "еней", "єнот", "ирій", "іній", "їжак", "яма"]


def test_comparisons_come_in_both_orders_and_both_kinds(resources_dir: Path) -> None:
    instances = generate_wordlength(resources_dir, n=8, seed=5)
    pair = set(instances[0].options)
    variants = {(i.metadata["kind"], i.metadata["template_n"], i.metadata["reversed"]) for i in instances}
    assert all(set(i.options) == pair for i in instances)
    assert variants == {(k, t, r) for k, ts in (("less", (2, 3)), ("more", (0, 1))) for t in ts for r in (False, True)}
    assert {i.answer_text for i in instances} == pair  # the shorter for "less", the longer for "more"


def test_cats_mc_odd_word_is_from_another_category(resources_dir: Path) -> None:
    categories = load_categories(resources_dir / "word_classes.yaml")
    for instance in generate_cats_mc(resources_dir, n=100, seed=6, odd_position="random"):
        main = categories[instance.metadata["cat_name_main"]]
        assert instance.answer_text not in main
        assert instance.answer_text in categories[instance.metadata["cat_name_other"]]
        assert all(word in main for word in instance.options if word != instance.answer_text)


def test_cats_mc_puts_the_odd_word_last_like_the_published_data_unless_asked(resources_dir: Path) -> None:
    assert {i.answer for i in generate_cats_mc(resources_dir, n=50, seed=6)} == {4}
    assert len({i.answer for i in generate_cats_mc(resources_dir, n=50, seed=6, odd_position="random")}) > 1


def test_cats_bin_says_yes_exactly_when_all_words_are_in_the_category(resources_dir: Path) -> None:
    categories = load_categories(resources_dir / "word_classes.yaml")
    instances = generate_cats_bin(resources_dir, n=100, seed=6)
    for instance in instances:
        inside = all(w in categories[instance.metadata["cat_name_main"]] for w in instance.metadata["all_options"])
        assert instance.answer_text == ("так" if inside else "ні")
    assert sum(i.answer_text == "так" for i in instances) == 50
    assert {i.metadata["kind"] for i in instances} == {"direct", "reversed"}


def test_few_shot_uses_its_own_words_and_categories(resources_dir: Path) -> None:
    main_words = {row["word"] for row in csv.DictReader((resources_dir / "words" / "sampled_words.csv").open())}
    few_shot = load_resources(resources_dir, few_shot=True)
    low = generate_low(resources_dir, n=100, seed=0, few_shot=True)
    assert all(i.few_shot and i.metadata["word"] in few_shot.words for i in low)
    assert not {i.metadata["word"] for i in low} & main_words
    cats = generate_cats_mc(resources_dir, n=100, seed=0, few_shot=True)
    assert {i.metadata["cat_name_main"] for i in cats} <= set(few_shot.categories)
    assert all(w in {x for ws in few_shot.categories.values() for x in ws} for i in cats for w in i.options)
    assert {i.metadata["cat_name_main"] for i in generate_cats_mc(resources_dir, n=100, seed=0)} - set(
        few_shot.categories
    )


@pytest.mark.parametrize("task", list(TASK_FILES))
def test_options_are_distinct_and_include_the_answer(resources_dir: Path, sentences: list[str], task: str) -> None:
    for instance in generate_lmes(task, resources_dir, n=60, seed=9, sentences=sentences):
        assert len(set(instance.options)) == len(instance.options) >= 2


def test_published_cats_mc_lists_with_repeated_words_load_with_distinct_options(artifacts_dir: Path) -> None:
    published = load_lmes_artifact(artifacts_dir / "WhichWordWrongCatTask.json", "lmes-cats-mc")
    repeated = [i for i in published if len(i.options) < len(i.metadata["all_options"])]
    assert len(published) == 200 and len(repeated) == 100  # the authors drew with replacement
    assert all(i.answer_text == i.metadata["other_word"] for i in published)


def test_published_cats_bin_answers_become_yes_or_no(artifacts_dir: Path) -> None:
    published = load_lmes_artifact(artifacts_dir / "DoAllWordsBelongToCatTask.json", "lmes-cats-bin")
    assert {i.answer_text for i in published if "other_word" in i.metadata} == {"ні"}
    assert {i.answer_text for i in published if "other_word" not in i.metadata} == {"так"}


def test_every_published_instance_is_regenerated_identically(resources_dir: Path, artifacts_dir: Path) -> None:
    report = regenerate_published(resources_dir, artifacts_dir)
    assert {task: row["n"] for task, row in report.items()} == {
        "lmes-low": 100,
        "lmes-wis": 100,
        "lmes-wordlength": 100,
        "lmes-wordalpha": 100,
        "lmes-cats-bin": 400,
        "lmes-cats-mc": 200,
    }
    # measured: 100% in every task (benchmarks/ua_tasks/lmes_regeneration.py)
    assert {task: row["share"] for task, row in report.items()} == dict.fromkeys(report, 1.0), report


def test_regeneration_notices_a_changed_input(resources_dir: Path, artifacts_dir: Path) -> None:
    resources = load_resources(resources_dir, few_shot=True)
    published = load_lmes_artifact(artifacts_dir / "LOWTask.json", "lmes-low", few_shot=True)[4]  # п'ята літера
    moved = replace(published, metadata={**published.metadata, "needle": 1})
    ours = regenerate_instance(moved, resources)
    assert ours is not None and ours.question != published.question and ours.answer_text == "п"


def test_regeneration_with_the_wrong_categories_reports_mismatches(resources_dir: Path, artifacts_dir: Path) -> None:
    report = regenerate_published(resources_dir, artifacts_dir, few_shot=False)
    assert report["lmes-cats-mc"]["share"] == 0.0
    assert any("unknown LMES category" in kind for kind in report["lmes-cats-mc"]["mismatch_kinds"])


def test_a_template_with_an_unknown_numeral_is_a_clear_error(resources_dir: Path) -> None:
    template = load_resources(resources_dir).templates["lmes-low"][0]
    broken = replace(template, text='Яка ВЕЛИКА літера в слові "{WORD}"?')
    with pytest.raises(InputError, match="'ВЕЛИКА' is not a Ukrainian numeral"):
        low_instance("слово", 2, broken)


def test_unknown_task_names_suggest_close_ones(resources_dir: Path) -> None:
    with pytest.raises(UnknownNameError, match="did you mean 'lmes-low'"):
        generate_lmes("lmes-lw", resources_dir)
    with pytest.raises(InputError, match="not an LMES task"):
        generate_lmes("ua-cbt", resources_dir)


def test_the_resources_are_found_from_any_level_of_the_data_directory(data_dir: Path, resources_dir: Path) -> None:
    assert lmes_dir(data_dir) == lmes_dir(data_dir / "eval_ua_tion") == lmes_dir(resources_dir.parent) == resources_dir
    with pytest.raises(DataNotFoundError, match="no LMentry-static-UA artifacts folder"):
        lmes_dir(resources_dir, "artifacts")
