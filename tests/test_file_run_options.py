"""``detect --input``, ``affectlab.detect_file`` and ``score`` record every option that changes their output, and
a run stopped part way resumes only with the same options: otherwise one file would hold two models' scores
(issue 30). Also the ``notes`` column, path arguments of the wrong type and Ctrl-C before anything is written."""

from __future__ import annotations

import csv
import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import affectlab
from affectlab.cli import main
from affectlab.detectors import create_detector
from affectlab.errors import ArgumentTypeError
from affectlab.labels import EKMAN
from affectlab.scale import batch as batch_module

TEXTS = ["I am so happy today", "this is terrible and I am angry", "I am scared of the dark", "what a surprise",
         "I miss her so much", "the food was disgusting"]  # fmt: skip
START_OVER = (
    "run it again with the same options to resume it, or delete out.csv and out.csv.progress.json to start over"
)


@pytest.fixture
def texts_csv(tmp_path: Path) -> Path:
    path = tmp_path / "in.csv"
    with open(path, "w", encoding="utf-8", newline="") as file:
        csv.writer(file).writerows([["text", "body"], *([text, text.upper()] for text in TEXTS)])
    return path


def save_model(folder: Path, texts: list[str]) -> Path:
    model = create_detector("tfidf-lr").fit(texts, np.eye(len(texts), len(EKMAN), dtype=np.int8), EKMAN)
    model.save(folder)
    return folder


@contextmanager
def stopped_in_second_batch(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Ctrl-C while the second batch is scored: the first is on disk, with its sidecar."""
    real, calls = batch_module.Reader.detections, itertools.count(1)

    def detections(*args, **kwargs):
        if next(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(batch_module.Reader, "detections", detections)
        yield


def detect_input(source: Path, output: Path, *options: str, batch_size: int = 2) -> list[str]:
    return ["detect", "--input", str(source), "--output", str(output), "--batch-size", str(batch_size), *options]


def interrupt(monkeypatch, capsys, command: list[str]) -> None:
    with stopped_in_second_batch(monkeypatch):
        assert main(command) == 130
    assert "2 rows are kept in" in capsys.readouterr().err


def refusal(capsys, command: list[str]) -> str:
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    return err.removeprefix("error: ").strip()


@pytest.mark.parametrize(
    ("first", "then", "made"),
    [
        (["--fast"], [], "with --fast (this run: without --fast)"),
        (["--fast", "--lang", "uk"], ["--fast"], "with --lang uk (this run: without --lang)"),
        (["--fast"], ["--fast", "--lang", "de"], "without --lang (this run: with --lang de)"),
        (["--intensity"], [], "with --intensity (this run: without --intensity)"),
        (["--fast"], ["--fast", "-t", "goemotions"], "with --taxonomy ekman (this run: with --taxonomy goemotions)"),
        (["--fast"], ["--fast", "--text-col", "body"], "with --text-col text (this run: with --text-col body)"),
    ],
    ids=["fast", "lang", "lang-added", "intensity", "taxonomy", "text_col"],
)
def test_detect_input_resumed_with_another_option_is_refused_naming_it_with_both_values(
    monkeypatch, capsys, tmp_path, texts_csv, first, then, made
):
    output = tmp_path / "out.csv"
    interrupt(monkeypatch, capsys, detect_input(texts_csv, output, *first))
    before = output.read_bytes()

    message = refusal(capsys, detect_input(texts_csv, output, *then))

    assert message == f"out.csv is an unfinished run made {made}; {START_OVER}"
    assert output.read_bytes() == before


def test_detect_input_resumed_with_another_saved_model_is_refused(monkeypatch, capsys, tmp_path, texts_csv):
    first = save_model(tmp_path / "first", TEXTS)
    second = save_model(tmp_path / "second", TEXTS)
    interrupt(monkeypatch, capsys, detect_input(texts_csv, tmp_path / "out.csv", "--model", str(first)))

    message = refusal(capsys, detect_input(texts_csv, tmp_path / "out.csv", "--model", str(second)))

    assert message == f"out.csv is an unfinished run made with --model {first} (this run: with --model {second}); " + (
        START_OVER
    )


def test_detect_input_resumed_after_the_model_was_saved_again_in_place_is_refused(
    monkeypatch, capsys, tmp_path, texts_csv
):
    model = save_model(tmp_path / "model", TEXTS)
    interrupt(monkeypatch, capsys, detect_input(texts_csv, tmp_path / "out.csv", "--model", str(model)))
    sidecar = json.loads((tmp_path / "out.csv.progress.json").read_text(encoding="utf-8"))
    save_model(model, TEXTS[::-1])  # retrained in place: same path, other weights

    message = refusal(capsys, detect_input(texts_csv, tmp_path / "out.csv", "--model", str(model)))

    was = sidecar["details"]["model checksum"]
    assert message.startswith(f"out.csv is an unfinished run made with model checksum {was} (this run: with ")
    assert message.endswith(START_OVER)


def test_detect_input_records_every_option_that_changes_the_output_and_not_the_batch_size(
    monkeypatch, capsys, tmp_path, texts_csv
):
    output = tmp_path / "out.csv"
    interrupt(monkeypatch, capsys, detect_input(texts_csv, output, "--fast", "--lang", "uk"))
    sidecar = json.loads((tmp_path / "out.csv.progress.json").read_text(encoding="utf-8"))
    assert sidecar["options"] == {"--model": "default", "--taxonomy": "ekman", "--fast": True, "--lang": "uk",
                                  "--intensity": False, "--text-col": "text", "--sentences": False,
                                  "--lang-col": None, "--explain": False}  # fmt: skip
    assert set(sidecar["details"]) == {"model checksum", "text column", "labels", "extra columns"}

    assert main(detect_input(texts_csv, output, "--fast", "--lang", "uk", batch_size=3)) == 0

    assert "wrote 4 rows" in capsys.readouterr().out and len(list(csv.DictReader(output.open()))) == len(TEXTS)


def test_score_local_resumed_with_another_option_is_refused_naming_it(monkeypatch, capsys, tmp_path, texts_csv):
    command = ["score", "--input", str(texts_csv), "--output", str(tmp_path / "out"), "--batch-size", "2", "--fast"]
    interrupt(monkeypatch, capsys, command)
    sidecar = json.loads((tmp_path / "out" / "in.parquet.progress.json").read_text(encoding="utf-8"))
    assert sidecar["options"] == {"--model": "default", "--taxonomy": "ekman", "--fast": True, "--text-col": "text"}

    message = refusal(capsys, [*command, "--text-col", "body"])

    assert message == (
        "in.parquet is an unfinished run made with --text-col text (this run: with --text-col body); run it again "
        "with the same options to resume it, or delete in.parquet.progress.json to start over"
    )


@pytest.fixture
def two_files(tmp_path: Path, texts_csv: Path) -> Path:
    folder = tmp_path / "inputs"
    folder.mkdir()
    for name in ("a.csv", "b.csv"):
        (folder / name).write_bytes(texts_csv.read_bytes())
    return folder


def test_score_keeps_a_finished_file_only_for_a_run_with_the_same_options(monkeypatch, capsys, tmp_path, two_files):
    command = ["score", "--input", str(two_files), "--output", str(tmp_path / "out"), "--fast"]
    assert main(command) == 0
    (tmp_path / "out" / "b.parquet").unlink()  # as if the run had stopped before the second file
    capsys.readouterr()

    message = refusal(capsys, command[:-1])

    assert message == (
        f"{tmp_path / 'out'} holds files scored with --fast (this run: without --fast); run it again with the same "
        "options to finish it, or choose another output folder"
    )
    assert main(command) == 0 and (tmp_path / "out" / "b.parquet").is_file()


def test_score_into_a_folder_of_an_earlier_version_s_outputs_is_refused(capsys, tmp_path, two_files):
    command = ["score", "--input", str(two_files), "--output", str(tmp_path / "out"), "--fast"]
    assert main(command) == 0
    (tmp_path / "out" / ".affectlab-score.json").unlink()
    capsys.readouterr()

    assert "scored by an earlier version of affectlab" in refusal(capsys, command)


def test_detect_input_resumed_with_the_same_options_equals_an_uninterrupted_run(
    monkeypatch, capsys, tmp_path, texts_csv
):
    assert main(detect_input(texts_csv, tmp_path / "clean.csv", "--fast", "--lang", "en")) == 0
    interrupt(monkeypatch, capsys, detect_input(texts_csv, tmp_path / "out.csv", "--fast", "--lang", "en"))
    assert main(detect_input(texts_csv, tmp_path / "out.csv", "--fast", "--lang", "en")) == 0
    assert (tmp_path / "out.csv").read_bytes() == (tmp_path / "clean.csv").read_bytes()


def test_notes_column_gives_detect_s_notes_for_a_long_text_and_an_unsupported_language(tmp_path):
    long_text = "I am so happy today, " * 100  # 2,100 characters: read sentence by sentence
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"text": text}) + "\n" for text in [long_text, "what a surprise"]))

    affectlab.detect_file(source, tmp_path / "full.jsonl")
    affectlab.detect_file(source, tmp_path / "fast.jsonl", fast=True, lang="tlh")

    full = [json.loads(line) for line in (tmp_path / "full.jsonl").read_text().splitlines()]
    assert [row["notes"] for row in full] == [
        "; ".join(result.notes) for result in affectlab.detect([long_text, "what a surprise"])
    ]
    assert [row["notes"] for row in full] == ["read sentence by sentence: the text is over 1,000 characters", ""]
    fast = [json.loads(line) for line in (tmp_path / "fast.jsonl").read_text().splitlines()]
    unsupported = "the model was not trained on 'tlh' texts; take these scores as a guess"
    assert [row["notes"] for row in fast] == [
        f"{unsupported}; read sentence by sentence: the text is over 1,000 characters",
        unsupported,
    ]
    assert list(full[0])[-3:] == ["supported", "notes", "error"]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_notes_column_is_empty_text_in_csv_and_parquet_when_there_are_none(tmp_path, texts_csv, suffix):
    affectlab.detect_file(texts_csv, tmp_path / f"out{suffix}", fast=True)
    if suffix == ".parquet":
        notes = pq.read_table(tmp_path / "out.parquet").column("notes").to_pylist()
    else:
        notes = [row["notes"] for row in csv.DictReader((tmp_path / "out.csv").open(encoding="utf-8"))]
    assert notes == [""] * len(TEXTS)


@pytest.mark.parametrize("argument", ["input_path", "output_path"])
@pytest.mark.parametrize("value", [None, 7])
def test_detect_file_with_a_path_that_is_not_a_path_is_an_argument_type_error(tmp_path, texts_csv, argument, value):
    paths = {"input_path": texts_csv, "output_path": tmp_path / "out.csv", argument: value}
    shown = "None" if value is None else "int 7"
    with pytest.raises(ArgumentTypeError) as caught:
        affectlab.detect_file(**paths, fast=True)
    assert str(caught.value) == f"{argument} must be a file path (str or os.PathLike), not {shown}"


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_ctrl_c_before_the_first_batch_of_detect_input_leaves_nothing_and_says_so(
    monkeypatch, capsys, tmp_path, texts_csv, suffix
):
    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(batch_module.Reader, "detections", stopped)
    assert main(detect_input(texts_csv, tmp_path / f"int{suffix}", "--fast")) == 130
    assert capsys.readouterr().err == (
        f"interrupted: stopped before the first batch was scored: nothing was written, and no int{suffix} or "
        f"int{suffix}.progress.json is left behind\n"
    )
    assert list(tmp_path.iterdir()) == [texts_csv]
