"""The results store: eval runs are recorded, listed, shown, compared and ranked; a broken store file is one
clear error."""

from __future__ import annotations

import json
import re

import pytest

from affectlab.cli import main
from affectlab.errors import InputError
from affectlab.evaluation.store import RunStore, model_label


def record(model: str, value: float, dataset: str = "d", ref: str | None = None) -> dict:
    return {
        "model": model, "model_ref": ref or model, "dataset": dataset, "split": "test", "n": 10, "seconds": 1.0,
        "metrics": {"primary": {"name": "macro_f1", "value": value}, "macro_f1": value, "macro_precision": 0.5,
                    "macro_recall": 0.4, "micro_f1": 0.6, "per_label": {"joy": {"f1": value}, "fear": {"f1": 0.1}}},
    }  # fmt: skip


def test_add_list_get_and_leaderboard(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    ids = [store.add(record("tfidf-lr", 0.4)), store.add(record("tfidf-lr", 0.5)), store.add(record("keywords", 0.3)),
           store.add(record("keywords", 0.9, dataset="other"))]  # fmt: skip
    assert ids == [1, 2, 3, 4]
    assert [r["id"] for r in store.list()] == [4, 3, 2, 1]
    assert [r["id"] for r in store.list(dataset="d", model="keywords")] == [3]
    assert store.get(2)["metrics"]["macro_f1"] == 0.5
    board = store.leaderboard("d")
    assert [(model_label(r), r["id"]) for r in board] == [("tfidf-lr", 2), ("keywords", 3)]
    with pytest.raises(InputError, match="no run 9"):
        store.get(9)


def test_model_labels():
    assert model_label({"model": "hf", "model_ref": "hf:/models/minilm"}) == "hf:minilm"
    assert model_label({"model": "ensemble", "model_ref": "models/my-ens"}) == "my-ens"
    assert model_label({"model": "tfidf-lr", "model_ref": "default --fast"}) == "default --fast"


def test_a_file_that_is_not_sqlite_is_one_error(tmp_path):
    path = tmp_path / "runs.sqlite"
    path.write_text("not a database" * 100)
    with pytest.raises(InputError, match="cannot use the runs database"):
        RunStore(path).add(record("x", 0.1))


@pytest.mark.slow
def test_eval_records_runs_and_the_cli_shows_them(capsys, data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("AFFECTLAB_RUNS_DB", str(tmp_path / "runs.sqlite"))
    for model in ("keywords", "tfidf-lr"):
        assert main(["eval", "--model", model, "--dataset", "emobench-ua", "--data-dir", str(data_dir),
                     "--bootstrap", "10", "--json"]) == 0  # fmt: skip
        assert json.loads(capsys.readouterr().out)["run_id"] > 0
    assert main(["eval", "--model", "keywords", "--dataset", "emobench-ua", "--data-dir", str(data_dir),
                 "--bootstrap", "10", "--no-record"]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["runs", "list", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)
    assert [r["model"] for r in runs] == ["tfidf-lr", "keywords"]
    assert main(["leaderboard", "--dataset", "emobench-ua", "--json", "--per-label"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert [row["model"] for row in board] == ["tfidf-lr", "keywords"] and "fear" in board[0]
    assert board[0]["macro-F1"] > board[1]["macro-F1"]
    assert main(["leaderboard", "--dataset", "emobench-ua"]) == 0
    assert "best run per model" in capsys.readouterr().out
    assert main(["runs", "compare", "1", "2"]) == 0
    assert "F1 joy" in capsys.readouterr().out
    assert main(["runs", "show", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["model"] == "keywords"
    assert main(["runs", "compare", "1"]) == 2
    assert "at least two run ids" in capsys.readouterr().err
    assert main(["leaderboard", "--dataset", "goemotions"]) == 2
    assert "no recorded runs on goemotions" in capsys.readouterr().err


def test_confusion_by_row_and_top_errors_by_hand():
    import numpy as np

    from affectlab.evaluation.report import confusion_by_row, top_errors

    gold = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    pred = np.array([[1, 0], [0, 1], [1, 1], [1, 0]])
    # gold joy (rows 0, 1): predicted joy in 1 of 2, fear in 1 of 2; gold fear (rows 1, 2): joy 1/2, fear 2/2
    assert confusion_by_row(gold, pred).tolist() == [[0.5, 0.5], [0.5, 1.0]]
    outputs = {"probs": np.array([[0.9, 0.1], [0.4, 0.8], [0.7, 0.9], [0.6, 0.2]]), "pred": pred, "gold": gold,
               "ids": ["a", "b", "c", "d"], "texts": ["A", "B", "C", "D"]}  # fmt: skip
    errors = top_errors(outputs, ["joy", "fear"], n=5)
    assert [(lab, i) for lab, _, i, _ in errors["false positives"]] == [("joy", "c"), ("joy", "d")]
    assert [(lab, p, i) for lab, p, i, _ in errors["false negatives"]] == [("joy", 0.4, "b")]


@pytest.mark.slow
def test_report_html_is_self_contained_with_its_plots(capsys, data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("AFFECTLAB_RUNS_DB", str(tmp_path / "runs.sqlite"))
    for model in ("keywords", "tfidf-lr"):
        assert main(["eval", "--model", model, "--dataset", "emobench-ua", "--data-dir", str(data_dir),
                     "--bootstrap", "10", "--limit", "300"]) == 0  # fmt: skip
    capsys.readouterr()
    out = tmp_path / "report.html"
    assert main(["report", "1", "2", "--html", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert page.count("<svg") == 1 + 2 * 2  # the F1 bars, then a confusion matrix and PR curves per run
    assert "<script" not in page and not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # nothing fetched
    assert "Highest-confidence false positives" in page and "t=0." in page  # tfidf-lr's thresholds are marked
    assert main(["report", "1", "--html", str(tmp_path / "x.txt")]) == 2


def narrow_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    monkeypatch.setattr("affectlab.cli.runs_cmd.stdout", Console(width=80))


def test_runs_list_fits_80_columns_with_id_model_dataset_and_primary_metric_in_full(monkeypatch, capsys):
    narrow_terminal(monkeypatch)
    store = RunStore()
    store.add(record("tfidf-lr", 0.41, dataset="semeval2025-ukr-intensity") | {"seconds": 1234.5})
    store.add(record("ensemble", 0.71, dataset="emocontext", ref="/home/user/models/my-ensemble-model"))
    run = record("keywords", 0.5, dataset="goemotions-ekman")
    primary = {"name": "micro_f1_emotions", "value": 0.5}
    store.add(run | {"split": "dev", "metrics": run["metrics"] | {"primary": primary}})
    assert main(["runs", "list"]) == 0
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= 80 and "…" not in out
    rows = [line.split() for line in out.splitlines()]
    assert ["1", "tfidf-lr", "semeval2025-ukr-intensity", "10", "0.4100", "macro_f1"] in rows
    assert ["2", "my-ensemble-model", "emocontext", "10", "0.7100", "macro_f1"] in rows
    assert ["3", "keywords", "goemotions-ekman", "(dev)", "10", "0.5000", "micro_f1_emotions"] in rows
    monkeypatch.setattr("affectlab.cli.runs_cmd.stdout", __import__("rich.console").console.Console(width=200))
    assert main(["runs", "list"]) == 0
    assert "1234.5" in capsys.readouterr().out  # a wide terminal gets every column


def test_leaderboard_ranks_a_run_on_part_of_the_split_below_whole_ones_and_says_so(monkeypatch, capsys):
    narrow_terminal(monkeypatch)
    store = RunStore()
    store.add(record("tfidf-lr", 0.55) | {"n": 5427, "split_size": 5427})
    store.add(record("llm", 0.9, ref="llm:gpt") | {"n": 150, "split_size": 5427})
    store.add(record("tfidf-lr", 0.95) | {"n": 150, "split_size": 5427})  # hidden: tfidf-lr has a whole run
    store.add(record("keywords", 0.3) | {"n": 5427})  # recorded before split_size: the largest n stands in
    assert [(r["model"], r["n"], r["partial"]) for r in store.leaderboard("d")] == [
        ("tfidf-lr", 5427, False), ("keywords", 5427, False), ("llm", 150, True)
    ]  # fmt: skip
    assert main(["leaderboard", "--dataset", "d"]) == 0
    out = capsys.readouterr().out
    rows = [line.replace("│", " ").split() for line in out.splitlines()]
    assert [row[:3] for row in rows if row and row[0] in ("tfidf-lr", "keywords", "llm:gpt")] == [
        ["tfidf-lr", "1", "5427"], ["keywords", "4", "5427"], ["llm:gpt", "2", "150*"]
    ]  # fmt: skip
    assert "* scored on part of test's 5,427 texts (eval --limit); ranked below full runs" in out
    assert max(map(len, out.splitlines())) <= 80
