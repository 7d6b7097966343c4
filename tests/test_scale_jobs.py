"""The batch jobs (``detect --input``, ``score``) check their paths and options once, before the model loads: a
bad file or option is refused without loading anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from affectlab.errors import InputError, OutputError
from affectlab.scale import jobs


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("the model was loaded before the checks")

    monkeypatch.setattr(jobs, "resolve_detector", refuse)


@pytest.fixture
def texts_csv(tmp_path: Path) -> Path:
    path = tmp_path / "in.csv"
    path.write_text("text\nI am happy\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"input_path": "binary.csv"}, InputError, "is not UTF-8 text"),
        ({"input_path": "in.xlsx"}, InputError, "unsupported input file type '.xlsx'"),
        ({"output_path": "out.xml"}, InputError, "unsupported output file type '.xml'"),
        ({"output_path": "missing/out.csv"}, OutputError, "does not exist"),
        ({"lang": "en us"}, InputError, "lang must be a language tag"),
        ({"batch_size": 0}, InputError, "batch_size must be at least 1, got 0"),
    ],
    ids=["binary", "input-type", "output-type", "output-folder", "lang", "batch-size"],
)
def test_detect_file_refuses_a_bad_file_or_option_before_the_model_loads(
    no_model, tmp_path, texts_csv, change, error, message
):
    (tmp_path / "binary.csv").write_bytes(b"text\n\x00\xff\xfe\n")
    (tmp_path / "in.xlsx").write_bytes(b"PK")
    arguments = {"input_path": texts_csv, "output_path": tmp_path / "out.csv", "fast": True}
    arguments |= {key: tmp_path / value if key.endswith("_path") else value for key, value in change.items()}

    with pytest.raises(error, match=message):
        jobs.detect_file(**arguments)


def test_score_refuses_a_csv_that_is_not_utf8_before_the_model_loads(no_model, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.csv").write_text("text\nfine\n", encoding="utf-8")
    (folder / "b.csv").write_bytes("text\nCafé\n".encode("latin-1"))

    with pytest.raises(InputError, match=r"b\.csv' is not UTF-8 text"):
        jobs.score_files(folder, tmp_path / "out", fast=True)
    assert not (tmp_path / "out").exists()
