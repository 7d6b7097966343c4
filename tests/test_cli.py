"""The command line: output shapes, and bad input giving one line and exit code 2 with nothing written."""

import json
import subprocess
import sys

import pytest


@pytest.fixture
def user_file(tmp_path):
    rows = ["text,label,split"]
    words = {"joy": "радість щастя чудово", "fear": "страшно боюся жах", "none": "вівторок автобус стіл"}
    for i in range(30):
        for label, text in words.items():
            split = "train" if i < 20 else ("dev" if i < 25 else "test")
            rows.append(f"{text} {i},{label},{split}")
    path = tmp_path / "mine.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_datasets_list_json(cli):
    code, out, _ = cli("datasets", "list", "--json")
    assert code == 0
    names = [d["name"] for d in json.loads(out)]
    assert "emobench-ua" in names and "emocontext" in names


def test_datasets_show_counts_rows(cli, data_dir):
    code, out, _ = cli("datasets", "show", "semeval2025-esp", "--data-dir", str(data_dir), "--json")
    assert code == 0
    assert json.loads(out)["splits"]["dev"]["rows"] == 184


def test_train_then_eval_a_saved_model_on_a_user_file(cli, user_file, tmp_path):
    out_dir = tmp_path / "model"
    code, out, _ = cli(
        "train",
        "tfidf-lr",
        "--dataset",
        str(user_file),
        "--split-col",
        "split",
        "--out",
        str(out_dir),
        "--json",
    )
    assert code == 0, out
    assert json.loads(out)["n_train"] == 60
    test_only = tmp_path / "test.csv"
    test_only.write_text("text,label\nрадість щастя,радість\nмені страшно жах,страх\n", encoding="utf-8")
    code, out, _ = cli("eval", "--model", str(out_dir), "--dataset", str(test_only), "--json")
    assert code == 0, out
    record = json.loads(out)
    assert record["split"] == "test" and record["n"] == 2
    assert set(record["metrics"]) >= {"primary", "macro_f1", "macro_precision", "macro_recall", "micro_f1", "per_label"}
    assert record["metrics"]["per_label"]["joy"]["support"] == 1


@pytest.mark.slow
def test_eval_json_schema_on_a_registered_dataset(cli, data_dir):
    code, out, _ = cli(
        "eval",
        "--model",
        "keywords",
        "--dataset",
        "emobench-ua",
        "--data-dir",
        str(data_dir),
        "--json",
        "--bootstrap",
        "50",
    )
    assert code == 0
    record = json.loads(out)
    assert {"model", "dataset", "split", "n", "metrics", "seconds"} <= set(record)
    assert record["n"] == 2234 and record["metrics"]["primary"]["name"] == "macro_f1"
    assert len(record["metrics"]["per_label"]) == 7
    low, high = record["metrics"]["primary"]["ci95"]
    assert low <= record["metrics"]["primary"]["value"] <= high


def test_eval_limit_scores_only_the_first_rows(cli, user_file):
    args = ("eval", "--model", "keywords", "--dataset", str(user_file), "--split-col", "split", "--json")
    code, out, err = cli(*args, "--limit", "4")
    assert code == 0, err
    assert json.loads(out)["n"] == 4
    code, out, _ = cli(*args)
    assert json.loads(out)["n"] == 15


def test_eval_table_is_shaped_like_emobench_table_1(cli, user_file):
    code, out, _ = cli("eval", "--model", "keywords", "--dataset", str(user_file), "--split-col", "split")
    assert code == 0
    assert "joy" in out and "precision" in out and "macro avg" in out and "95% CI" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["eval", "--model", "tfidf-lr", "--dataset", "emobench"], "unknown dataset 'emobench'"),
        (["eval", "--model", "svm", "--dataset", "emobench-ua"], "unknown model 'svm'"),
        (["eval", "--model", "keywords", "--dataset", "absent.csv"], "does not exist"),
        (["eval", "--model", "keywords", "--dataset", "x.csv", "--text-col", "tweet"], "no column 'tweet'"),
        (["train", "keywords", "--dataset", "x.csv", "--param", "top_k"], "not key=value"),
        (["eval", "--model", "keywords", "--dataset", "x.csv", "--prompt", "uk"], "apply only to --model llm:"),
        (["eval", "--model", "hf:", "--dataset", "x.csv"], "needs what to run after the colon"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.csv").write_text("text,label\nhello,joy\n", encoding="utf-8")
    code, _, err = cli(*args)
    assert code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "models").exists()


def test_empty_text_and_wrong_encoding_write_nothing(cli, tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("text,label\n   ,joy\n", encoding="utf-8")
    latin = tmp_path / "latin.csv"
    latin.write_bytes("text,label\nniño,joy\n".encode("latin-1"))
    for path, message in ((empty, "is empty"), (latin, "not UTF-8")):
        code, _, err = cli("train", "keywords", "--dataset", str(path), "--out", str(tmp_path / "m"))
        assert code == 2 and message in err
    assert not (tmp_path / "m").exists()


@pytest.mark.slow
def test_missing_data_dir_file_through_the_installed_script(tmp_path):
    (tmp_path / "goemotions").mkdir()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "affectlab",
            "eval",
            "--model",
            "tfidf-lr",
            "--dataset",
            "goemotions",
            "--data-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2
    assert "missing data file" in proc.stderr and "goemotions/train.tsv" in proc.stderr
    assert proc.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["detect", "hi", "--nope"], "No such option"),
        (["eval", "--model", "keywords", "--dataset", "x.csv", "--bootstrap", "abc"], "Invalid value"),
        (["eval", "--dataset", "x.csv"], "Missing option"),
    ],
)
def test_usage_errors_exit_2_with_one_error_line(cli, args, message):
    code, _, err = cli(*args)
    assert code == 2
    assert message in err and err.startswith("error: ") and err.count("\n") == 1 and "--help)" in err


def test_error_and_note_lines_keep_square_brackets(capsys):
    """Messages name extras as affectlab[hf]; Rich must not take the brackets for markup."""
    from affectlab.cli.output import print_error, print_notes

    print_error("the hf detector needs torch: pip install 'affectlab[hf]'")
    print_notes(["hf member left out: pip install 'affectlab[hf]'"])
    err = capsys.readouterr().err
    assert err.count("affectlab[hf]") == 2


# --- regressions found by fuzzing (tests/test_fuzz_readers.py) ---


def test_error_quoting_a_column_name_with_a_line_break_stays_one_line(cli, tmp_path):
    source = tmp_path / "in.csv"
    source.write_text('"tweet\ntext",id\nhello,1\n', encoding="utf-8")  # a quoted line break in the header
    code, _, err = cli("detect", "--fast", "--input", str(source), "--output", str(tmp_path / "out.csv"))
    assert code == 2
    assert err.count("\n") == 1 and "(columns: tweet\\ntext, id)" in err
    assert not (tmp_path / "out.csv").exists()


def test_error_quoting_a_huge_cell_is_shortened_to_one_readable_line(cli, tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("x" * 200_000 + ",id\nhello,1\n", encoding="utf-8")  # a header that is one huge cell
    code, _, err = cli("detect", "--fast", "--input", str(source), "--output", str(tmp_path / "out.csv"))
    assert code == 2
    assert err.count("\n") == 1 and len(err) < 1100
    assert err.startswith("error: in.csv has no column 'text'") and "characters left out" in err
    assert err.rstrip().endswith("xxx, id)")
