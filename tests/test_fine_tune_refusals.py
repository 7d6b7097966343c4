"""``build-default --fine-tune`` refuses a run that cannot start at once, before loading any data or model, and leaves
no folder behind (issue 30: ``--resume`` into an empty folder used to refuse after 77 s of loading). No torch needed."""

import json
import time

import pytest

from affectlab.build.jobs import build_default
from affectlab.errors import InputError
from fuzz_support import invoke

NO_DATA = "/nonexistent/data"  # anything loaded from here would fail with another message


def test_resume_into_an_empty_folder_is_refused_before_loading_anything(tmp_path):
    trained = tmp_path / "empty"
    trained.mkdir()
    started = time.perf_counter()
    with pytest.raises(InputError, match=r"^nothing to resume: '.*empty' holds no checkpoint of an unfinished run$"):
        build_default(NO_DATA, tmp_path / "heads", fine_tune=True, trained_dir=trained, resume=True)
    assert time.perf_counter() - started < 5
    assert not any(trained.iterdir()) and not (tmp_path / "heads").exists()


def test_resume_into_a_finished_run_points_to_continue_from(tmp_path):
    (tmp_path / "training.json").write_text(json.dumps({"history": []}))
    with pytest.raises(InputError, match=r"has finished .*--continue-from"):
        build_default(NO_DATA, tmp_path / "heads", fine_tune=True, trained_dir=tmp_path, resume=True)


def test_continue_from_a_folder_without_a_finished_run_is_refused_and_creates_no_trained_dir(tmp_path):
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "training.json").write_text("{}")
    outcome = invoke(["build-default", "--fine-tune", "--continue-from", tmp_path / "half",
                      "--trained-dir", tmp_path / "new", "--data-dir", NO_DATA])  # fmt: skip
    half = str(tmp_path / "half")
    assert outcome.code == 2
    assert outcome.err.strip().splitlines() == [
        f"error: {half!r} holds no finished fine-tuning run (no config.json, encoder.safetensors, heads.safetensors)"
    ]
    assert not (tmp_path / "new").exists()


def test_a_missing_trained_dir_to_resume_is_refused_on_the_command_line_without_creating_it(tmp_path):
    outcome = invoke(["build-default", "--fine-tune", "--resume", "--trained-dir", tmp_path / "new",
                      "--data-dir", NO_DATA])  # fmt: skip
    assert outcome.code == 2 and "nothing to resume" in outcome.err
    assert not (tmp_path / "new").exists()
