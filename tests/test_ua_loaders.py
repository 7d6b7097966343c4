"""Loading the published Eval-UA-tion artifacts, and the UP-Titles generator (masking, tag-similarity ranking)."""

from __future__ import annotations

import ast
import json
import math
import socket
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from affectlab.errors import DataNotFoundError, InputError, UnknownNameError
from affectlab.uatasks.instances import TASKS
from affectlab.uatasks.loaders import load_task
from affectlab.uatasks.titles import generate_up_titles, mask_numbers, parse_tags, rank_similar, tag_vectors

LMES = "eval_ua_tion/LMentry-static-UA/artifacts"
UP_CSV = "eval_ua_tion/UP-Titles/artifacts/up_titles_15000-20-ukr.csv"
CBT_JSONL = "eval_ua_tion/UA-CBT/artifacts/tasks/stories_train.jsonl"

LMES_FILES = {
    "lmes-low": ("LOWTask.json", 100),
    "lmes-wis": ("WISTask.json", 100),
    "lmes-wordlength": ("WordLengthComparison.json", 100),
    "lmes-wordalpha": ("WordsAlphabetOrder.json", 100),
    "lmes-cats-mc": ("WhichWordWrongCatTask.json", 200),
    "lmes-cats-bin": ("DoAllWordsBelongToCatTask.json", 400),
}


def published(data_dir: Path, name: str) -> list[dict]:
    file_name, _ = LMES_FILES[name]
    return json.loads((data_dir / LMES / file_name).read_text("utf-8"))["instances"]


def up_rows(data_dir: Path) -> pd.DataFrame:
    return pd.read_csv(data_dir / UP_CSV)


@pytest.mark.parametrize("name", sorted(LMES_FILES))
def test_lmes_artifact_loads_every_published_instance(data_dir: Path, name: str) -> None:
    instances = load_task(name, data_dir)
    assert len(instances) == LMES_FILES[name][1]
    assert {i.task for i in instances} == {name} and not any(i.few_shot for i in instances)


@pytest.mark.parametrize("name", sorted(set(LMES_FILES) - {"lmes-cats-bin"}))
def test_lmes_answers_are_the_published_correct_answers(data_dir: Path, name: str) -> None:
    instances = load_task(name, data_dir)
    assert [i.answer_text for i in instances] == [record["correctAnswer"] for record in published(data_dir, name)]


def test_cats_bin_yes_and_no_answers_follow_the_published_booleans(data_dir: Path) -> None:
    instances = load_task("lmes-cats-bin", data_dir)
    by_truth: dict[bool, set[str]] = {}
    for instance, record in zip(instances, published(data_dir, "lmes-cats-bin"), strict=True):
        by_truth.setdefault(record["correctAnswer"], set()).add(instance.answer_text)
    assert len(by_truth[True]) == len(by_truth[False]) == 1 and by_truth[True] != by_truth[False]


def test_ua_cbt_sample_is_the_fewshot_split_with_the_published_answers(data_dir: Path) -> None:
    records = [json.loads(line) for line in (data_dir / CBT_JSONL).read_text("utf-8").splitlines()]
    instances = load_task("ua-cbt", data_dir, split="fewshot")
    assert len(instances) == 8 and all(i.few_shot for i in instances)
    assert [i.answer_text for i in instances] == [r["answer"] for r in records]
    assert [list(i.options) for i in instances] == [r["options"] for r in records]


def test_ua_cbt_test_split_is_not_local_and_the_error_names_what_is(data_dir: Path) -> None:
    with pytest.raises(DataNotFoundError, match=r"available: fewshot.*shamotskyi/ua_cbt"):
        load_task("ua-cbt", data_dir)


def test_lmes_has_no_local_fewshot_split(data_dir: Path) -> None:
    with pytest.raises(DataNotFoundError, match="available: test"):
        load_task("lmes-low", data_dir, split="fewshot")


def test_up_titles_masked_matches_the_published_columns(data_dir: Path) -> None:
    rows = up_rows(data_dir)
    instances = load_task("up-titles-masked", data_dir)
    assert len(instances) == 20
    assert [i.question for i in instances] == list(rows["masked_text"])
    assert [list(i.options) for i in instances] == [ast.literal_eval(s) for s in rows["similar_titles"]]
    assert [i.answer for i in instances] == [int(label) for label in rows["label"]]
    assert [i.answer_text for i in instances] == list(rows["masked_title"])


def test_data_dir_may_be_the_eval_ua_tion_folder_itself(data_dir: Path) -> None:
    assert load_task("up-titles-masked", data_dir / "eval_ua_tion") == load_task("up-titles-masked", data_dir)


def test_unmasked_up_titles_cannot_be_recovered_from_the_published_csv(data_dir: Path) -> None:
    with pytest.raises(DataNotFoundError, match=r"15 of its 20 articles.*anilev6/up_titles_unmasked"):
        load_task("up-titles", data_dir)


def write_up_csv(folder: Path, rows: list[dict]) -> Path:
    path = folder / UP_CSV
    path.parent.mkdir(parents=True)
    for row in rows:
        row.update(masked_title=mask_numbers(row["ukr_title"]), masked_text=mask_numbers(row["ukr_text"]))
        row["similar_titles"] = repr([mask_numbers(t) for t in row["similar_titles"]])
    pd.DataFrame(rows).to_csv(path, index=False)
    return folder


def test_unmasked_up_titles_load_when_every_masked_candidate_is_a_title_of_the_file(tmp_path: Path) -> None:
    titles = ["Збито 12 дронів", "Погода на завтра", "Ціни зросли на 5%"]
    rows = [
        {
            "index": i,
            "tags": "t",
            "ukr_title": t,
            "ukr_text": f"текст {i} про {t}",
            "similar_titles": titles,
            "label": i,
        }
        for i, t in enumerate(titles)
    ]
    instances = load_task("up-titles", write_up_csv(tmp_path, rows))
    assert [i.options for i in instances] == [tuple(titles)] * 3
    assert [i.answer_text for i in instances] == titles and instances[0].question == "текст 0 про Збито 12 дронів"


def test_a_masked_candidate_shared_by_two_titles_is_not_guessed(tmp_path: Path) -> None:
    titles = ["Загинули 5 людей", "Загинули 7 людей"]  # both mask to "Загинули X людей"
    rows = [
        {"index": i, "tags": "t", "ukr_title": t, "ukr_text": "текст", "similar_titles": [t, "Інше"], "label": 0}
        for i, t in enumerate(titles)
    ]
    with pytest.raises(DataNotFoundError, match="2 of its 2 articles"):
        load_task("up-titles", write_up_csv(tmp_path, rows))


def test_unknown_task_name_suggests_the_close_ones(data_dir: Path) -> None:
    with pytest.raises(UnknownNameError, match="did you mean 'lmes-low'"):
        load_task("lmes-lwo", data_dir)


def test_unknown_split_lists_the_splits(data_dir: Path) -> None:
    with pytest.raises(InputError, match="splits: test, fewshot"):
        load_task("lmes-low", data_dir, split="dev")


@pytest.fixture
def reachable_hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A Hub endpoint that accepts connections (a loopback listener), so that the reachability check passes and
    the (patched) ``datasets.load_dataset`` is what answers."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{listener.getsockname()[1]}")
        yield


@pytest.mark.usefixtures("reachable_hub")
def test_hub_rows_map_like_the_published_csv(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> None:
    import datasets

    hub_rows = up_rows(data_dir).assign(similar_titles=lambda df: df["similar_titles"].map(ast.literal_eval))
    requested: list[tuple[str, str]] = []

    def from_hub(path: str, split: str) -> datasets.Dataset:
        requested.append((path, split))
        return datasets.Dataset.from_pandas(hub_rows, preserve_index=False)

    monkeypatch.setattr(datasets, "load_dataset", from_hub)
    assert load_task("up-titles-masked") == load_task("up-titles-masked", data_dir)
    assert requested == [(TASKS.get("up-titles-masked").hub_id, "train")]


@pytest.mark.usefixtures("reachable_hub")
def test_hub_ua_cbt_rows_are_few_shot_only_in_the_fewshot_split(
    monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    import datasets

    hub_rows = [json.loads(line) for line in (data_dir / CBT_JSONL).read_text("utf-8").splitlines()]
    requested: list[str] = []

    def from_hub(path: str, split: str) -> datasets.Dataset:
        requested.append(split)
        return datasets.Dataset.from_list(hub_rows)

    monkeypatch.setattr(datasets, "load_dataset", from_hub)
    test, fewshot = load_task("ua-cbt", split="test"), load_task("ua-cbt", split="fewshot")
    assert requested == ["train", "fewshot"] and len(test) == len(fewshot) == len(hub_rows)
    assert not any(i.few_shot for i in test) and all(i.few_shot for i in fewshot)


@pytest.mark.usefixtures("reachable_hub")
def test_unreachable_hub_names_the_hub_id_and_the_local_alternative(monkeypatch: pytest.MonkeyPatch) -> None:
    import datasets

    def offline(path: str, split: str) -> None:
        raise ConnectionError("no network")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    with pytest.raises(DataNotFoundError, match=r"shamotskyi/lmes_LOW split 'train'.*--data-dir"):
        load_task("lmes-low")


# UP-Titles generation (section 3.3.1)


def test_masking_reproduces_the_published_masked_columns(data_dir: Path) -> None:
    rows = up_rows(data_dir)
    assert [mask_numbers(t) for t in rows["ukr_title"]] == list(rows["masked_title"])
    assert [mask_numbers(t) for t in rows["ukr_text"]] == list(rows["masked_text"])


def test_masking_replaces_each_digit_not_each_number() -> None:
    assert mask_numbers("Буча: 232 загиблих у 2022 році, 3-й день") == "Буча: XXX загиблих у XXXX році, X-й день"


def articles(tags: list[str], titles: list[str] | None = None) -> pd.DataFrame:
    titles = titles or [f"Заголовок {i}" for i in range(len(tags))]
    return pd.DataFrame({"title": titles, "text": [f"Текст статті {t}" for t in titles], "tags": tags})


def test_ranking_puts_same_tags_first_then_shared_tags_then_the_rest() -> None:
    vectors = tag_vectors(["війна,рф", "рф,війна", "рф", "погода", "війна,рф,сша"])
    (order,) = rank_similar(vectors, [0])
    # similarities to article 0: 1 (same tags), 0.707 (one of two), 0 (none), 0.816 (two of three)
    assert list(order) == [1, 4, 2, 3]


def test_ties_are_broken_by_the_seed_and_the_same_seed_gives_the_same_order() -> None:
    vectors = tag_vectors(["a"] * 12)
    orders = {tuple(rank_similar(vectors, [0], seed=seed)[0]) for seed in range(5)}
    assert len(orders) > 1
    assert tuple(rank_similar(vectors, [0], seed=3)[0]) == tuple(rank_similar(vectors, [0], seed=3)[0])


def test_generated_options_are_the_title_and_the_nine_most_similar() -> None:
    tags = ["a,b"] * 3 + ["a"] * 7 + ["c"] * 5
    instance = generate_up_titles(articles(tags), n=1, seed=7)[0]
    assert instance.answer_text == "Заголовок 0" and instance.question == "Текст статті Заголовок 0"
    assert set(instance.options) == {f"Заголовок {i}" for i in range(10)}


def test_generation_on_the_published_articles_ranks_by_tag_cosine(data_dir: Path) -> None:
    table = up_rows(data_dir).rename(columns={"ukr_title": "title", "ukr_text": "text"})
    instances = generate_up_titles(table, masked=True, seed=0)
    tag_sets = [set(parse_tags(t)) for t in table["tags"]]

    def cosine(i: int, j: int) -> float:
        return len(tag_sets[i] & tag_sets[j]) / math.sqrt(len(tag_sets[i]) * len(tag_sets[j]))

    for row, instance in enumerate(instances):
        assert instance.task == "up-titles-masked" and len(set(instance.options)) == 10
        assert (instance.answer_text, instance.question) == (table["masked_title"][row], table["masked_text"][row])
        chosen = instance.metadata["similar_rows"]
        left_out = set(range(20)) - set(chosen) - {row}
        assert min(cosine(row, j) for j in chosen) >= max(cosine(row, j) for j in left_out)


def test_the_same_seed_gives_the_same_instances_and_another_seed_reshuffles(data_dir: Path) -> None:
    table = up_rows(data_dir).rename(columns={"ukr_title": "title", "ukr_text": "text"})
    assert generate_up_titles(table, seed=1) == generate_up_titles(table, seed=1)
    assert [i.answer for i in generate_up_titles(table, seed=1)] != [
        i.answer for i in generate_up_titles(table, seed=2)
    ]


def test_a_repeated_title_is_passed_over_for_the_next_similar_article() -> None:
    titles = [f"Заголовок {i}" for i in range(11)] + ["Заголовок 0"]
    instance = generate_up_titles(articles(["a"] * 12, titles), n=1)[0]
    assert len(set(instance.options)) == 10 and instance.answer_text == "Заголовок 0"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (articles(["a"] * 9), "at least 10 articles"),
        (articles(["a"] * 12).drop(columns="tags"), "lacks column.*tags"),
        (articles(["a"] * 12, ["Той самий"] * 4 + [f"Заголовок {i}" for i in range(8)]), "only 8 other distinct"),
    ],
)
def test_bad_article_tables_are_input_errors(table: pd.DataFrame, message: str) -> None:
    with pytest.raises(InputError, match=message):
        generate_up_titles(table)
