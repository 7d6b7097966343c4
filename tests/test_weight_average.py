"""A fine-tuning run averaged with the run it continued from (``affectlab.build.weight_average``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from affectlab.build.weight_average import average_runs, main
from affectlab.encoders.checkpoint import ENCODER_CONFIG, ENCODER_WEIGHTS, HEADS_WEIGHTS, TRAINING_RECORD
from affectlab.errors import InputError

safetensors_numpy = pytest.importorskip("safetensors.numpy")


def write_run(folder: Path, value: float, name: str, extra: dict | None = None) -> Path:
    folder.mkdir()
    encoder = {"layer.weight": np.full((3, 2), value, np.float32), "layer.bias": np.arange(3, dtype=np.float32) * value}
    safetensors_numpy.save_file({**encoder, **(extra or {})}, folder / ENCODER_WEIGHTS)
    safetensors_numpy.save_file({"ekman.weight": np.full((7, 2), value, np.float32)}, folder / HEADS_WEIGHTS)
    (folder / ENCODER_CONFIG).write_text(json.dumps({"name": name}))
    (folder / TRAINING_RECORD).write_text(json.dumps({"run": name}))
    return folder


def test_every_weight_is_the_share_weighted_mean_and_the_record_says_so(tmp_path: Path) -> None:
    start, tuned = write_run(tmp_path / "start", 1.0, "start"), write_run(tmp_path / "tuned", 3.0, "tuned")
    out = average_runs(start, tuned, tmp_path / "out", tuned_share=0.25)
    encoder = safetensors_numpy.load_file(out / ENCODER_WEIGHTS)
    assert encoder["layer.weight"].dtype == np.float32
    np.testing.assert_array_equal(encoder["layer.weight"], np.full((3, 2), 1.5, np.float32))
    np.testing.assert_array_equal(encoder["layer.bias"], np.arange(3, dtype=np.float32) * 1.5)
    np.testing.assert_array_equal(safetensors_numpy.load_file(out / HEADS_WEIGHTS)["ekman.weight"], 1.5)
    assert json.loads((out / ENCODER_CONFIG).read_text()) == {"name": "tuned"}
    record = json.loads((out / TRAINING_RECORD).read_text())
    assert record["run"] == "tuned"
    assert record["weights_averaged"]["tuned_share"] == 0.25
    assert record["weights_averaged"]["start"]["record"] == {"run": "start"}


def test_the_two_ends_of_the_share_give_each_run_back(tmp_path: Path) -> None:
    start, tuned = write_run(tmp_path / "start", 1.0, "start"), write_run(tmp_path / "tuned", 3.0, "tuned")
    for share, expected in ((0.0, 1.0), (1.0, 3.0)):
        out = average_runs(start, tuned, tmp_path / f"out{share}", tuned_share=share)
        np.testing.assert_array_equal(safetensors_numpy.load_file(out / ENCODER_WEIGHTS)["layer.weight"], expected)


def test_runs_of_different_models_are_refused(tmp_path: Path) -> None:
    start = write_run(tmp_path / "start", 1.0, "start")
    tuned = write_run(tmp_path / "tuned", 3.0, "tuned", {"extra": np.zeros(2, np.float32)})
    with pytest.raises(InputError, match="different tensors"):
        average_runs(start, tuned, tmp_path / "out")


def test_the_command_refuses_bad_input_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = write_run(tmp_path / "start", 1.0, "start")
    out = str(tmp_path / "out")
    cases = [([str(start), str(tmp_path / "none"), out], "is not a fine-tuning run"),
             ([str(start), str(start), out, "--tuned-share", "2"], "between 0 and 1")]  # fmt: skip
    for args, said in cases:
        with pytest.raises(SystemExit) as stopped:
            main(args)
        assert stopped.value.code == 2
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err and err.count("\n") == 1
