"""Selecting texts to annotate (affectlab.annotation.selection, ``annotate select``): every stage of EmoBench-UA
section 3.2 keeps and drops what it says, the draw spreads over emotions with the protocol's neutral share, and the
command writes the texts and a manifest of every stage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from affectlab.annotation import selection
from affectlab.annotation.selection import SelectionSettings, normalised, select_texts
from affectlab.errors import InputError

UK = [
    "Я так чекала на цей день, нарешті ми разом!",
    "Мені дуже страшно залишатися тут одному вночі.",
    "Це абсолютно неприпустимо, я страшенно злий на них!",
    "Сьогодні вранці йшов дощ і було холодно на вулиці.",
    "Моє серце розривається від болю, я сумую за тобою.",
    "Фу, це просто огидно, як можна таке їсти взагалі.",
    "Ваууу, який неймовірний поворот подій, я в шоці!",
    "Він прочитав цю книгу за два дні минулого тижня.",
]


FAMILIES = ["joy", "fear", "anger", "none", "sadness", "disgust", "surprise", "none"]


def by_position(texts: list[str]) -> list[str]:
    """A stand-in for the detector: the family of the text's position in UK."""
    return [FAMILIES[UK.index(text)] if text in UK else "none" for text in texts]


def test_normalised_sets_links_mentions_case_and_spacing_aside():
    assert normalised("@ola Look   HERE https://t.co/x!!") == normalised("look here") == "look here"


def test_each_stage_keeps_and_drops_what_it_says():
    long_text = (
        "Учора ввечері ми довго гуляли містом, говорили про плани на літо, згадували старих друзів, сміялися з "
        "дурниць і навіть не помітили, як настала північ і закрилися всі кав'ярні на площі"
    )
    texts = [
        *UK,
        "Так.",  # too short
        "This is plainly an English sentence about the weather today.",  # another language
        UK[0].upper() + " https://t.co/abc",  # a duplicate once links and case are set aside
        long_text,
        long_text.replace("площі", "розі"),  # a near duplicate: one word of 30 differs
        "Ці люди просто покидьки і я їх ненавиджу всіх.",  # a toxic word
    ]
    settings = SelectionSettings(min_words=5, max_words=49, languages=("uk",), toxic_words=frozenset({"покидьки"}))
    result = select_texts(texts, settings, by_position)
    assert [(s["stage"], s["dropped"]) for s in result.stages] == [
        ("read", 0), ("length", 1), ("duplicates", 1), ("near duplicates", 1), ("language", 1), ("toxicity", 1),
        ("emotional pre-selection", 0),
    ]  # fmt: skip
    assert sorted(result.rows) == [*range(len(UK)), 11]


def test_toxicity_scores_above_the_limit_are_dropped():
    scores = [0.9, 0.1, None, 0.5, 0.51, 0.0, 0.2, 0.3]
    result = select_texts(UK, SelectionSettings(min_words=5, max_toxicity=0.5), by_position, toxicity=scores)
    assert sorted(result.rows) == [1, 2, 3, 5, 6, 7]


def test_the_draw_spreads_over_emotions_with_the_neutral_share(monkeypatch):
    texts = [f"{text} {n}" for n in range(20) for text in UK]
    read = {text: FAMILIES[i % 8] for i, text in enumerate(texts)}

    def reader(chosen: list[str]) -> list[str]:
        return [read[text] for text in chosen]

    monkeypatch.setattr(selection, "_without_near_duplicates", lambda texts, rows: rows)  # they differ by one word
    settings = SelectionSettings(min_words=5, size=60, neutral_share=0.1, seed=3)
    first, again = select_texts(texts, settings, reader), select_texts(texts, settings, reader)
    assert first.rows == again.rows and len(first.rows) == 60
    counts = {emotion: sum(read[texts[i]] == emotion for i in first.rows) for emotion in set(FAMILIES)}
    assert counts["none"] == 6 and all(counts[e] == 9 for e in counts if e != "none")
    other = select_texts(texts, SelectionSettings(min_words=5, size=60, neutral_share=0.1, seed=4), reader)
    assert other.rows != first.rows


def test_a_pool_smaller_than_the_size_gives_every_text():
    result = select_texts(UK, SelectionSettings(min_words=5, size=100, neutral_share=0.5), by_position)
    assert sorted(result.rows) == list(range(len(UK)))


def test_bad_settings_are_one_line():
    with pytest.raises(InputError, match="at least 1"):
        SelectionSettings(size=0)
    with pytest.raises(InputError, match="max_words 3 is below min_words 5"):
        SelectionSettings(min_words=5, max_words=3)


@pytest.fixture
def pool(tmp_path: Path) -> Path:
    path = tmp_path / "pool.csv"
    rows = [f'u{i},"{text}",{0.1 * i:.1f}' for i, text in enumerate(UK)]
    path.write_text("id,text,toxicity\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def protocol(cli, tmp_path: Path) -> Path:
    path = tmp_path / "protocol.yaml"
    assert cli("annotate", "init", "--preset", "emobench-ua", "--out", path, "--json")[0] == 0
    return path


@pytest.mark.slow
def test_select_writes_the_texts_and_a_manifest_of_every_stage(cli, tmp_path, pool, protocol):
    out = tmp_path / "selected.jsonl"
    args = ["annotate", "select", pool, "--protocol", protocol, "--size", 5, "--out", out, "--id-col", "id"]
    code, stdout, _ = cli(*args, "--toxicity-col", "toxicity", "--max-toxicity", "0.65", "--json")
    manifest = json.loads(stdout)
    assert code == 0 and manifest["protocol"] == "emobench-ua" and manifest["settings"]["min_words"] == 5
    assert [s["stage"] for s in manifest["stages"]] == [
        "read", "length", "duplicates", "near duplicates", "language", "toxicity", "emotional pre-selection"
    ]  # fmt: skip
    assert manifest["stages"][-2]["dropped"] == 1  # u7's 0.7
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 5 and {r["lang"] for r in records} == {"uk"}
    assert {r["id"] for r in records} <= {f"u{i}" for i in range(7)}
    assert json.loads((tmp_path / "selected.jsonl.manifest.json").read_text(encoding="utf-8")) == manifest


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--text-col", "body"], "has no column 'body'"),
        (["--max-toxicity", "0.5"], "--max-toxicity needs --toxicity-col"),
        (["--toxicity-col", "text"], "is not a number"),
    ],
)
def test_select_refusals_are_one_line_and_write_nothing(cli, tmp_path, pool, protocol, extra, message):
    out = tmp_path / "selected.csv"
    code, _, stderr = cli("annotate", "select", pool, "--protocol", protocol, "--size", 5, "--out", out, *extra)
    assert code == 2 and message in stderr and len(stderr.strip().splitlines()) == 1
    assert not out.exists()
