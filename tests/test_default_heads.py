"""The shipped default heads: they load, fit the size budget, and reproduce the scores recorded in their model
card (scores.json) on the first rows of each test split."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import affectlab
from affectlab.cli import main
from affectlab.datasets import resolve_dataset
from affectlab.detectors.default import HEADS_DIR, SLICE_ROWS, TAXONOMIES, load_default, shipped_scores
from affectlab.encoders.onnx_encoder import int8_kernels
from affectlab.evaluation.evaluate import evaluate

RECORD = shipped_scores()["heads"]


def test_every_head_is_shipped_with_its_scores():
    assert set(RECORD) == set(TAXONOMIES)
    for head in TAXONOMIES:
        assert (HEADS_DIR / head / "config.json").is_file()


def test_heads_and_their_encoder_fit_the_80_mb_budget():
    """Issue 23's budget for the 28-language default (issue 15's was 60 MB for three languages)."""
    from affectlab.encoders.sentence import E5_AFFECT_DIR

    files = [*HEADS_DIR.rglob("*"), *E5_AFFECT_DIR.rglob("*")]
    assert sum(path.stat().st_size for path in files if path.is_file()) <= 80 * 1000 * 1000


RECORDED_ON = "avx2"
"""The int8 kernels the slices were recorded with (issue 41's rebuild, on an AVX2-only AMD EPYC)."""
OTHER_KERNELS_TOLERANCE = 0.02
"""How far a slice's score may be on other int8 kernels, which round apart in the last bits and flip a few of the
300 decisions near a threshold (an AVX-512 VNNI CPU: up to 0.009 over the 44 slices, issue 42)."""


ALWAYS_CHECKED = {"emobench-ua", "goemotions-ekman", "semeval2025-eng", "semeval2025-ukr", "semeval2025-esp"}


def checked_slices(head: str) -> list[str]:
    """The recorded slices this test scores: every one of a head with few; of the ekman head's 41, the first three
    languages', EmoBench-UA's and GoEmotions', and every fourth of the rest (one scoring path serves them all, and
    the whole set took 110 s of the suite). ``benchmarks/quality/rescore_shipped.py`` rescores every one."""
    names = sorted(RECORD[head]["scores"])
    if len(names) <= len(ALWAYS_CHECKED):
        return names
    rest = [name for name in names if name not in ALWAYS_CHECKED]
    return sorted(ALWAYS_CHECKED & set(names)) + rest[::4]


SLICES = [(head, dataset) for head in TAXONOMIES for dataset in checked_slices(head)]


@pytest.mark.slow
@pytest.mark.parametrize(("head", "dataset"), SLICES)
def test_head_reproduces_its_recorded_scores_on_a_test_slice(head, dataset, data_dir):
    """Exact on the kernels the slices were recorded with: a text's scores no longer depend on the texts batched
    with it (issue 22), although the build scored these rows within their whole split. One test a slice, so the
    test workers share them (the head is loaded once a process)."""
    model = load_default(head)
    tolerance = 1e-12 if int8_kernels() == RECORDED_ON else OTHER_KERNELS_TOLERANCE
    recorded = RECORD[head]["scores"][dataset]
    spec, data = resolve_dataset(dataset, data_dir)
    rows = {"test": data["test"].select(range(min(SLICE_ROWS, len(data["test"]))))}
    score = evaluate(model, spec, rows, "test", n_bootstrap=10).metrics["primary"]["value"]
    assert score == pytest.approx(recorded[f"first_{SLICE_ROWS}"], abs=tolerance), dataset


def test_default_detects_ukrainian_english_and_spanish_joy():
    results = affectlab.detect(["Я так чекала на цей день!", "Best day ever, I love it!", "¡Qué alegría!"])
    assert all("joy" in r.labels for r in results)


@pytest.mark.parametrize(
    ("text", "emotion"),
    [
        ("This is absolutely unacceptable, I am furious with you!", "anger"),
        ("I am so furious with you", "anger"),
        ("my dog died yesterday", "sadness"),
        ("Я так чекала на цей день!", "joy"),
        ("Tengo mucho miedo de la oscuridad", "fear"),
    ],
)
def test_an_obvious_sentence_gets_its_emotion_first_in_the_labels_and_the_bars(text, emotion):
    [result] = affectlab.detect(text)
    assert result.labels[0] == emotion
    assert max(result.scores, key=result.scores.__getitem__) == emotion


@pytest.mark.slow
def test_detecting_imports_no_torch():
    code = "import sys, affectlab; affectlab.detect('hi'); sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


SHIPPED_BUDGET_BYTES = 80 * 1024 * 1024


def test_the_shipped_model_files_fit_the_80_mb_budget():
    from affectlab.encoders.sentence import E5_AFFECT_DIR

    files = [path for root in (HEADS_DIR, Path(E5_AFFECT_DIR)) for path in root.rglob("*") if path.is_file()]
    assert sum(path.stat().st_size for path in files) <= SHIPPED_BUDGET_BYTES


def test_fast_profile_needs_no_encoder():
    [result] = affectlab.detect("Мені дуже страшно", fast=True)
    assert "fear" in result.labels


def test_other_taxonomies_and_dialogue_context(capsys):
    assert main(["detect", "thank you so much, this is wonderful", "--taxonomy", "goemotions", "--json"]) == 0
    assert "gratitude" in json.loads(capsys.readouterr().out)["labels"]
    args = [
        "detect",
        "i hate you so much",
        "--taxonomy",
        "emocontext",
        "--context",
        "you are stupid",
        "--context",
        "what did you say",
        "--json",
    ]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["labels"] == ["angry"]


def test_eval_default_on_a_user_file_with_ekman_labels(capsys, tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("text,label\nЯ так чекала на цей день!,радість\nМені страшно,страх\n", encoding="utf-8")
    assert main(["eval", "--model", "default", "--dataset", str(path), "--json", "--bootstrap", "10"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 2


def test_eval_default_fast_profile(capsys, tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("text,label\nthank you so much!,gratitude\nwhat a great day,joy\n", encoding="utf-8")
    args = ["eval", "--model", "default", "--fast", "--dataset", str(path), "--json", "--bootstrap", "10"]
    assert main(args) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["model"] == "default --fast" and record["model_kind"] == "tfidf-lr"


def test_fast_applies_only_to_the_default(capsys):
    assert main(["eval", "--model", "tfidf-lr", "--fast", "--dataset", "emobench-ua"]) == 2
    assert "--fast applies only" in capsys.readouterr().err
