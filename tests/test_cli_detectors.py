"""``train``/``eval``/``detect`` with the stronger detectors: ``hf:ENCODER`` on a tiny random BERT built here,
``llm:MODEL`` against a real OpenAI-compatible server on loopback, ``--limit``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from chat_server import completion, send_json, serve
from tiny_models import save_tiny_bert

WORDS = {"joy": "радість щастя чудово", "fear": "страшно боюся жах", "none": "вівторок автобус стіл"}


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    rows = ["text,label,split"]
    for i in range(30):
        for label, text in WORDS.items():
            rows.append(f"{text} {i},{label},{'train' if i < 20 else 'dev' if i < 25 else 'test'}")
    path = tmp_path / "mine.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.slow
def test_train_hf_then_eval_and_detect_the_saved_model(cli, user_file: Path, tmp_path: Path) -> None:
    encoder = save_tiny_bert(tmp_path / "encoder", [line for text in WORDS.values() for line in text.split()])
    out = tmp_path / "model"
    params = ("-p", "epochs=3", "-p", "lr=0.01", "-p", "batch_size=8")
    code, stdout, err = cli("train", f"hf:{encoder}", "--dataset", user_file, "--split-col", "split",
                            *params, "--out", out, "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(stdout)["n_train"] == 60
    assert (out / "encoder" / "model.safetensors").is_file()
    code, stdout, err = cli("eval", "--model", out, "--dataset", user_file, "--split-col", "split", "--json")
    assert code == 0, err
    record = json.loads(stdout)
    assert record["model"] == "model" and record["model_kind"] == "hf" and record["n"] == 15
    code, stdout, err = cli("detect", "страшно боюся", "--model", out, "--json")
    assert code == 0, err
    assert {"fear", "joy", "none"} <= set(json.loads(stdout)["scores"])


def _answer_joy(handler, body) -> None:
    send_json(handler, 200, completion(body["model"], "Answer: joy"))


def test_eval_llm_asks_only_for_the_limited_test_rows_and_reports_invalid_answers(cli, user_file: Path) -> None:
    with serve(_answer_joy) as (url, received):
        code, stdout, err = cli("eval", "--model", "llm:tiny-chat", "--llm-base-url", url, "--prompt", "en",
                                "--dataset", user_file, "--split-col", "split", "--limit", 4, "--json")  # fmt: skip
    assert code == 0, err
    record = json.loads(stdout)
    assert record["n"] == 4 and len(received) == 4  # no training calls, no dev tuning
    assert record["metrics"]["invalid_answer_rate"] == 0.0
    assert all(request["model"] == "tiny-chat" for request in received)


def test_eval_llm_against_a_dead_endpoint_is_one_line(cli, user_file: Path) -> None:
    code, _, err = cli("eval", "--model", "llm:tiny-chat", "--llm-base-url", "http://127.0.0.1:9/v1",
                       "--dataset", user_file, "--split-col", "split", "--limit", 2, "-p", "max_retries=0")  # fmt: skip
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_eval_llm_on_a_file_without_splits_needs_no_train_split(cli, tmp_path: Path) -> None:
    test_only = tmp_path / "test_only.csv"
    test_only.write_text("text,label\nрадість щастя,joy\nстрашно боюся,fear\n", encoding="utf-8")
    with serve(_answer_joy) as (url, received):
        code, stdout, err = cli("eval", "--model", "llm:tiny-chat", "--llm-base-url", url,
                                "--dataset", test_only, "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(stdout)["n"] == 2 and len(received) == 2


def test_a_trainable_model_still_needs_a_train_split(cli, tmp_path: Path) -> None:
    test_only = tmp_path / "test_only.csv"
    test_only.write_text("text,label\nрадість щастя,joy\nстрашно боюся,fear\n", encoding="utf-8")
    code, _, err = cli("eval", "--model", "tfidf-lr", "--dataset", test_only)
    assert code == 2 and "no train split" in err
