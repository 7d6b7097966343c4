"""``affectlab.detect`` and ``affectlab detect`` with a saved detector (the shipped heads: test_default_heads.py)."""

import csv
import json

import pytest

import affectlab
from affectlab.cli import main
from affectlab.detectors import create_detector
from affectlab.errors import InputError


@pytest.fixture(scope="module")
def saved_model(data_dir, tmp_path_factory):
    from affectlab.datasets import resolve_dataset

    spec, data = resolve_dataset("emobench-ua", data_dir)
    train = data["train"]
    model = create_detector("tfidf-lr").fit(train, spec.label_space.encode(train["labels"]), spec.label_space)
    path = tmp_path_factory.mktemp("models") / "ua"
    model.save(path)
    return str(path)


@pytest.mark.slow
def test_detect_returns_labels_and_every_score(saved_model):
    [result] = affectlab.detect("Мені дуже страшно, я боюся", model=saved_model)
    assert result.labels == ["fear"]
    assert set(result.scores) == {"anger", "disgust", "fear", "joy", "sadness", "surprise", "none"}
    assert result.to_dict()["text"] == "Мені дуже страшно, я боюся"


def test_top_k_keeps_the_most_probable_labels(saved_model):
    results = affectlab.detect(["Радію і водночас сумую", "Ого!"], model=saved_model, top_k=1)
    assert all(len(r.labels) == 1 for r in results)


def test_empty_text_is_refused_by_position(saved_model):
    with pytest.raises(InputError, match="text 2 is empty"):
        affectlab.detect(["fine", "   "], model=saved_model)


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        (None, "texts must be a str or a list .* of str, not None"),
        (123, "texts must be a str or a list .* of str, not int"),
        (b"I am happy", "not bytes: decode them first"),
        ({"text": "hi"}, "not dict"),
        (["fine", 7], "text 2 is int, not str"),
        (["fine", b"sad"], "text 2 is bytes, not str: decode it first"),
    ],
)
def test_texts_of_the_wrong_type_are_a_type_error_that_says_what_is_accepted(saved_model, texts, message):
    with pytest.raises(TypeError, match=message):
        affectlab.detect(texts, model=saved_model)


def test_open_states_refuse_texts_of_the_wrong_type_the_same_way():
    with pytest.raises(TypeError, match="not None"):
        affectlab.detect_open(None)


def test_any_iterable_of_texts_is_accepted(saved_model):
    results = affectlab.detect((t for t in ["Мені страшно", "Ого!"]), model=saved_model)
    assert [r.text for r in results] == ["Мені страшно", "Ого!"]


def test_long_text_is_read_whole_and_says_so():
    [result] = affectlab.detect("Я так чекала на цей день! " * 5000)
    assert result.labels == ["joy"]
    assert result.notes == ["read sentence by sentence: the text is over 1,000 characters"]


def test_a_model_without_an_encoder_reads_a_long_text_sentence_by_sentence_too(saved_model):
    for model, fast in ((saved_model, False), ("default", True)):
        [result] = affectlab.detect("Я так чекала на цей день! " * 5000, model=model, fast=fast)
        assert result.labels and result.notes == ["read sentence by sentence: the text is over 1,000 characters"]


def test_cli_json_is_one_object_per_text(capsys, saved_model):
    assert main(["detect", "Я так чекала на цей день!", "--model", saved_model, "--json"]) == 0
    single = json.loads(capsys.readouterr().out)
    assert set(single) == {"text", "labels", "scores", "lang", "supported"}
    assert main(["detect", "Ура!", "Жах", "--model", saved_model, "--json"]) == 0
    assert [r["text"] for r in json.loads(capsys.readouterr().out)] == ["Ура!", "Жах"]


def test_cli_prints_a_bar_per_label(capsys, saved_model):
    assert main(["detect", "Мені страшно", "--model", saved_model]) == 0
    out = capsys.readouterr().out
    assert "labels: fear" in out and "█" in out and "surprise" in out


def test_cli_scores_a_file_keeping_columns_and_reporting_bad_rows(capsys, saved_model, tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("id,message\n1,Мені страшно\n2,\n3,Ура! Свято!\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    code = main(
        [
            "detect",
            "--input",
            str(source),
            "--text-col",
            "message",
            "--output",
            str(out),
            "--model",
            saved_model,
            "--json",
        ]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rows_written"] == 3 and report["bad_rows"] == [[2, "empty text"]]
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["id"] for r in rows] == ["1", "2", "3"]
    assert rows[0]["labels"] == "fear" and rows[1]["error"] == "empty text" and "score_joy" in rows[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["detect"], "give one or more texts"),
        (["detect", "   "], "text 1 is empty"),
        (["detect", "hi", "--taxonomy", "plutchik"], "unknown taxonomy 'plutchik'"),
        (["detect", "--input", "missing.csv", "--output", "o.csv"], "does not exist"),
    ],
)
def test_cli_bad_input_exits_2(capsys, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_wrong_column_in_an_input_file(capsys, saved_model, tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("id,message\n1,hello\n", encoding="utf-8")
    code = main(["detect", "--input", str(source), "--output", str(tmp_path / "o.csv"), "--model", saved_model])
    assert code == 2 and "no column 'text'" in capsys.readouterr().err
    assert not (tmp_path / "o.csv").exists()


def test_detect_file_in_python_writes_what_detect_input_writes(capsys, tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text('{"text": "Мені страшно"}\n{"text": "Ура! Свято!"}\n', encoding="utf-8")
    assert main(["detect", "--fast", "--input", str(source), "--output", str(tmp_path / "cli.jsonl")]) == 0
    capsys.readouterr()
    summary = affectlab.detect_file(source, tmp_path / "api.jsonl", fast=True)
    assert summary.rows_written == 2
    assert (tmp_path / "api.jsonl").read_text(encoding="utf-8") == (tmp_path / "cli.jsonl").read_text(encoding="utf-8")
