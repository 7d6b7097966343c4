"""Random (Table 1), most-frequent (UA-CBT) and number-overlap (UP-Titles) baselines of the Eval-UA-tion tasks."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from affectlab.errors import InputError
from affectlab.uatasks.baselines import (
    all_baselines,
    baselines_for,
    most_frequent_baseline,
    number_overlap_baseline,
    number_overlap_choice,
    numbers_in,
    option_count,
    random_baseline,
)
from affectlab.uatasks.instances import TASKS, MCInstance
from affectlab.uatasks.loaders import load_task

LMES = "eval_ua_tion/LMentry-static-UA/artifacts"


def question(n_options: int, task: str = "lmes-cats-mc", **metadata: object) -> MCInstance:
    return MCInstance(task, "?", tuple(f"o{i}" for i in range(n_options)), 0, metadata=metadata)


def test_random_baseline_is_the_mean_of_one_over_the_option_counts() -> None:
    assert random_baseline([question(2), question(4), question(5)]) == pytest.approx((1 / 2 + 1 / 4 + 1 / 5) / 3)


def test_low_counts_the_letters_of_the_word_without_its_stress_mark() -> None:
    assert option_count(question(2, "lmes-low", word_raw="пуска́ти")) == 7


def test_wis_counts_len_haystack_and_falls_back_to_the_options() -> None:
    assert option_count(question(3, "lmes-wis", len_haystack=13)) == 13
    assert option_count(question(3, "lmes-wis")) == 3


def test_a_low_instance_without_its_word_is_an_input_error() -> None:
    with pytest.raises(InputError, match="no word"):
        option_count(question(2, "lmes-low"))


def test_no_instances_is_an_input_error() -> None:
    with pytest.raises(InputError):
        random_baseline([])


@pytest.mark.parametrize(
    ("name", "split", "expected"),
    [
        ("lmes-cats-bin", "test", 1 / 2),
        ("lmes-cats-mc", "test", 1 / 5),
        ("up-titles-masked", "test", 1 / 10),
        ("lmes-wordlength", "test", 1 / 2),
        ("lmes-wordalpha", "test", 1 / 2),
        ("ua-cbt", "fewshot", 1 / 6),
    ],
)
def test_random_baseline_on_the_published_artifacts(data_dir: Path, name: str, split: str, expected: float) -> None:
    assert random_baseline(load_task(name, data_dir, split=split)) == pytest.approx(expected)


def test_low_and_wis_random_baselines_follow_footnote_33_on_the_artifacts(data_dir: Path) -> None:
    low = json.loads((data_dir / LMES / "LOWTask.json").read_text("utf-8"))["instances"]
    wis = json.loads((data_dir / LMES / "WISTask.json").read_text("utf-8"))["instances"]
    letters = [len(r["additionalMetadata"]["word_raw"].replace("\u0301", "")) for r in low]
    haystacks = [r["additionalMetadata"]["len_haystack"] for r in wis]
    assert random_baseline(load_task("lmes-low", data_dir)) == pytest.approx(sum(1 / n for n in letters) / 100)
    assert random_baseline(load_task("lmes-wis", data_dir)) == pytest.approx(sum(1 / n for n in haystacks) / 100)


def titles(text: str, options: tuple[str, ...], answer: int = 0) -> MCInstance:
    return MCInstance("up-titles", text, options, answer)


def test_numbers_are_digit_runs() -> None:
    assert numbers_in("232 загиблих, 2022 рік, 1,5 млн") == {"232", "2022", "1", "5"}


def test_number_overlap_picks_the_title_sharing_most_numbers() -> None:
    article = titles("У 2022 році ідентифіковано 232 загиблих", ("232 загиблих", "Нова 15", "2022: 232"), answer=2)
    assert number_overlap_choice(article, random.Random(0)) == 2
    assert number_overlap_baseline([article]) == 1.0


def test_number_overlap_ties_are_drawn_among_the_tied_titles_only() -> None:
    article = titles("Збито 12 дронів і 3 ракети", ("12 дронів", "3 ракети", "Без чисел"))
    picks = {number_overlap_choice(article, random.Random(seed)) for seed in range(20)}
    assert picks == {0, 1}


def test_number_overlap_on_masked_data_has_no_numbers_to_match(data_dir: Path) -> None:
    instances = load_task("up-titles-masked", data_dir)
    assert not any(numbers_in(i.question) or any(numbers_in(o) for o in i.options) for i in instances)
    assert number_overlap_baseline(instances, seed=5) == number_overlap_baseline(instances, seed=5)


def test_baselines_for_gives_each_family_its_own_baselines(data_dir: Path) -> None:
    cbt = baselines_for("ua-cbt", load_task("ua-cbt", data_dir, split="fewshot"))
    up = baselines_for("up-titles-masked", load_task("up-titles-masked", data_dir))
    low = baselines_for("lmes-low", load_task("lmes-low", data_dir))
    assert set(cbt) == {"random", "n", "human", "most_frequent"} and cbt["n"] == 8
    assert (
        set(up) == {"random", "n", "human", "number_overlap"}
        and up["human"] == TASKS.get("up-titles-masked").human_baseline
    )
    assert set(low) == {"random", "n", "human"} and low["n"] == 100


def test_most_frequent_baseline_is_an_accuracy_over_the_instances(data_dir: Path) -> None:
    instances = load_task("ua-cbt", data_dir, split="fewshot")
    score = most_frequent_baseline(instances)
    assert score * len(instances) == pytest.approx(round(score * len(instances)))
    assert most_frequent_baseline(instances[:1]) in (0.0, 1.0)


def test_all_baselines_covers_every_task_and_says_why_one_is_skipped(data_dir: Path) -> None:
    results = all_baselines(data_dir)
    assert list(results) == list(TASKS)
    assert "anilev6/up_titles_unmasked" in results["up-titles"]["skipped"]
    assert results["ua-cbt"]["split"] == "fewshot" and results["lmes-cats-bin"]["n"] == 400


def test_cats_mc_counts_the_listed_words_even_when_one_repeats() -> None:
    listed = ["співчуття", "співчуття", "співчуття", "розчарованість", "єнот"]
    assert option_count(question(3, "lmes-cats-mc", all_options=listed)) == 5
