"""The command line at its edges (issue 30): an output that cannot be written is one line and exit 2, a reader that
went away is exit 141 and silence, options that do not apply are refused, a model with NaN weights is refused, and a
language tag is checked wherever --lang is read. Real pipes and /dev/full run the installed module in a subprocess."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import typer

import affectlab
from affectlab.cli.output import OutputWriteError, ReaderGone, guarded_stdout, print_json, stdout
from affectlab.detectors import create_detector, read_detector
from affectlab.detectors.results import Detection
from affectlab.detectors.serialization import read_model_dir, write_model_dir
from affectlab.errors import AffectlabError, ArgumentTypeError, ModelFileError
from affectlab.labels import EKMAN
from fuzz_support import check_exit, invoke

TEXTS = ["I am so happy today", "this is terrible and I am angry", "I am scared of the dark", "what a surprise"]
MANY_TEXTS = [f"text{i}" for i in range(300)]


def one_error(outcome, fragment: str) -> None:
    """Exit 2 with one error line that contains ``fragment``."""
    check_exit(outcome)
    assert outcome.code == 2 and fragment in outcome.err and outcome.err.count("\n") == 1, outcome.err


def affectlab_process(args: list[str], stdout, unbuffered: bool = False) -> subprocess.CompletedProcess:
    """``affectlab ARGS`` in a process of its own with ``stdout``; Python's output buffered as a user's is, unless
    ``unbuffered`` (``PYTHONUNBUFFERED``, as a test runner or a container may set it)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    command = [sys.executable, "-m", "affectlab", *args]
    return subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, env=env, timeout=300, check=False)


def in_shell(script: str, unbuffered: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    env["AFFECTLAB"] = f"{sys.executable} -m affectlab"
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=300, check=False)


# ---- an output that cannot be written: one line, exit 2 ------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("unbuffered", [False, True])
@pytest.mark.parametrize(
    "args",
    [["detect", "--fast", "I am happy"], ["detect", "--fast", "--json", "I am happy"], ["--version"]],
    ids=["rich", "json", "typer-echo"],
)
def test_a_full_disk_under_the_output_is_one_error_line_and_exit_2(args, unbuffered):
    with open("/dev/full", "w") as full:
        done = affectlab_process(args, full, unbuffered)
    assert done.returncode == 2
    assert done.stderr == b"error: cannot write the output: No space left on device\n"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_eval_json_onto_a_full_disk_is_one_error_line(data_dir):
    args = ["eval", "--model", "keywords", "--dataset", "emobench-ua", "--data-dir", str(data_dir), "--json",
            "--no-record", "--limit", "20", "--bootstrap", "10"]  # fmt: skip
    with open("/dev/full", "w") as full:
        done = affectlab_process(args, full)
    assert done.returncode == 2
    assert done.stderr == b"error: cannot write the output: No space left on device\n"


@pytest.mark.slow
@pytest.mark.parametrize("redirect", [">&-", "1</dev/null"], ids=["closed", "read-only"])
def test_stdout_closed_or_not_open_for_writing_is_one_error_line(redirect):
    done = in_shell(f'$AFFECTLAB detect --fast "I am happy" {redirect}')
    assert done.returncode == 2
    assert done.stderr == "error: cannot write the output: Bad file descriptor\n"


# ---- the reader went away: exit 141, nothing on stderr -------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [["detect", "--fast", "I am happy"], ["detect", "--fast", "--json", "I am happy"], ["--version"], ["--help"]],
    ids=["rich", "json", "typer-echo", "typer-help"],
)
def test_a_reader_gone_before_the_output_exits_141_quietly(args):
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write gets EPIPE: no race with a reader still reading
    try:
        done = affectlab_process(args, write_end)
    finally:
        os.close(write_end)
    assert done.returncode == 141 and done.stderr == b""


@pytest.mark.slow
@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["rich", "json"])
@pytest.mark.parametrize("unbuffered", [False, True])
def test_head_closing_the_pipe_exits_141_quietly(json_flag, unbuffered):
    texts = MANY_TEXTS * (10 if json_flag else 1)  # more than a pipe holds
    script = f"$AFFECTLAB detect --fast {' '.join(json_flag + texts)} | head -n 1; echo ${{PIPESTATUS[0]}}"
    done = in_shell(script, unbuffered)
    first, status = done.stdout.splitlines()
    assert status == "141" and first in ("text0", "[") and done.stderr == ""


class FailingStream(io.StringIO):
    def __init__(self, error: OSError) -> None:
        super().__init__()
        self.error = error

    def write(self, text: str) -> int:
        raise self.error


@pytest.mark.parametrize(
    "write",
    # a console of the CLI's kind, not its own, which would keep the text that failed in its buffer
    [print, typer.echo, type(stdout)().print, lambda text: print_json({"text": text})],
    ids=["print", "echo", "rich", "json"],
)
def test_every_writer_fails_the_same_way_in_a_guarded_stdout(monkeypatch, write):
    monkeypatch.setattr(sys, "stdout", FailingStream(BrokenPipeError(32, "Broken pipe")))
    with pytest.raises(ReaderGone), guarded_stdout():
        write("hello")
    monkeypatch.setattr(sys, "stdout", FailingStream(OSError(5, "Input/output error")))
    with pytest.raises(OutputWriteError, match="cannot write the output: Input/output error"), guarded_stdout():
        write("hello")


def test_an_oserror_from_elsewhere_is_not_taken_for_the_output():
    with pytest.raises(FileNotFoundError), guarded_stdout():
        Path("/nonexistent/affectlab").read_text()


# ---- JSON output never holds NaN ----------------------------------------------------------------------------------


def test_json_output_writes_an_undefined_number_as_null(capsys):
    print_json({"model": "m", "metrics": {"primary": {"value": 0.5, "ci95": [0.1, float("nan")]}}})
    assert json.loads(capsys.readouterr().out)["metrics"]["primary"]["ci95"] == [0.1, None]
    print_json([{"scores": {"joy": float("inf")}}, (1.5, float("-inf"))])
    assert json.loads(capsys.readouterr().out) == [{"scores": {"joy": None}}, [1.5, None]]


def test_a_nan_score_in_detect_json_is_null(monkeypatch):
    nan_result = [Detection("I am happy", ["joy"], {"joy": float("nan")})]
    monkeypatch.setattr("affectlab.cli.detect_cmd.detect", lambda *args: nan_result)
    outcome = invoke(["detect", "--fast", "--json", "I am happy"])
    assert outcome.code == 0 and json.loads(outcome.out)["scores"] == {"joy": None}


# ---- options that do not apply are refused, not ignored ------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["I am happy", "--output", "out.csv"], "--output applies only to --input FILE"),
        (["I am happy", "--text-col", "message"], "--text-col applies only to --input FILE"),
        (["I am happy", "--batch-size", "8"], "--batch-size applies only to --input FILE"),
        (["I am happy", "--batch-size", "1024"], "--batch-size applies only to --input FILE"),  # the default, given
        (["--open", "I feel <extra_id_0>", "--output", "out.csv"], "--output applies only to --input FILE"),
        (
            ["--open", "I feel <extra_id_0>", "--taxonomy", "goemotions"],
            "--taxonomy applies to emotions, not to --open",
        ),
        (["--open", "I feel <extra_id_0>", "-t", "ekman"], "--taxonomy applies to emotions, not to --open"),
        (["--open", "I feel <extra_id_0>", "--intensity"], "--intensity applies to emotions, not to --open"),
        (["--open", "I feel <extra_id_0>", "--fast"], "--fast applies to emotions, not to --open"),
        (["--open", "I feel <extra_id_0>", "--context", "hi"], "--context applies to emotions, not to --open"),
    ],
)
def test_a_detect_option_that_does_not_apply_is_refused(tmp_path, monkeypatch, args, fragment):
    monkeypatch.chdir(tmp_path)
    one_error(invoke(["detect", *args]), fragment)
    assert not (tmp_path / "out.csv").exists()


# ---- a saved model with NaN or infinite numbers is refused -------------------------------------------------------


def rewritten(source: Path, target: Path, edit) -> Path:
    """The model at ``source`` with ``edit(config, arrays)`` applied, saved to ``target`` with checksums recomputed
    (so that only its content is wrong)."""
    config, saved = read_model_dir(source)
    arrays = {name: np.array(saved[name]) for name in saved}
    edit(config, arrays)
    config = {k: v for k, v in config.items() if k not in ("format", "format_version", "arrays_sha256")}
    return write_model_dir(target, config, arrays)


@pytest.fixture(scope="module")
def tfidf_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    model = create_detector("tfidf-lr").fit(TEXTS, np.eye(4, len(EKMAN), dtype=np.int8), EKMAN)
    directory = tmp_path_factory.mktemp("models") / "tfidf-lr"
    model.save(directory)
    return directory


@pytest.fixture(scope="module")
def nan_model(tmp_path_factory: pytest.TempPathFactory, tfidf_model: Path) -> Path:
    def poison(_config, arrays):
        arrays["coef"][0, 0] = np.nan

    return rewritten(tfidf_model, tmp_path_factory.mktemp("models") / "nan", poison)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_read_detector_refuses_a_non_finite_array_naming_it(tmp_path, tfidf_model, value):
    def poison(_config, arrays):
        arrays["intercept"][-1] = value

    model = rewritten(tfidf_model, tmp_path / "m", poison)
    with pytest.raises(ModelFileError, match="array 'intercept' holds NaN or infinite values"):
        read_detector(model)


def test_read_detector_refuses_nan_in_config_json(tmp_path, tfidf_model):
    def poison(config, _arrays):
        config["decision"]["values"][0] = float("nan")

    model = rewritten(tfidf_model, tmp_path / "m", poison)
    with pytest.raises(ModelFileError, match=r"config\.json' holds NaN"):
        read_detector(model)


def test_the_unedited_model_loads(tfidf_model):
    assert read_detector(tfidf_model).predict(["I am so happy today"]).shape == (1, len(EKMAN))


def test_detect_and_eval_refuse_a_model_with_nan_weights_in_one_line(tmp_path, nan_model):
    one_error(invoke(["detect", "--model", nan_model, "--json", "I am happy"]), "array 'coef' holds NaN")
    labelled = tmp_path / "test.csv"
    labelled.write_text("text,label\nI am so happy,joy\nI am scared,fear\n", encoding="utf-8")
    outcome = invoke(["eval", "--model", nan_model, "--dataset", labelled, "--json", "--no-record"])
    one_error(outcome, "array 'coef' holds NaN")
    assert outcome.out == ""


# ---- --lang is checked wherever it is read ------------------------------------------------------------------------


@pytest.fixture
def texts_csv(tmp_path: Path) -> Path:
    path = tmp_path / "texts.csv"
    path.write_text("text\n" + "\n".join(TEXTS) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("lang", ["en us", "en\x00", "en\t", "en\udcff", "англ"], ids=repr)
def test_a_bad_lang_is_one_line_for_texts_files_and_open_states(tmp_path, texts_csv, lang):
    fragment = "lang must be a language tag"
    one_error(invoke(["detect", "--fast", "--lang", lang, "I am happy"]), fragment)
    output = tmp_path / "out.csv"
    one_error(invoke(["detect", "--fast", "--lang", lang, "--input", texts_csv, "--output", output]), fragment)
    assert not output.exists()
    one_error(invoke(["detect", "--open", "--lang", lang, "I feel <extra_id_0>"]), fragment)


@pytest.mark.slow
@pytest.mark.parametrize("extra", [[], ["--open"]], ids=["emotions", "open"])
def test_invalid_utf8_in_lang_is_one_line(extra):
    argv = [b"-m", b"affectlab", b"detect", *[e.encode() for e in extra], b"--lang", b"en\xff", b"I am happy"]
    done = subprocess.run([sys.executable.encode(), *argv], capture_output=True, timeout=300, check=False)
    assert done.returncode == 2 and done.stderr.count(b"\n") == 1, done.stderr
    assert b"lang must be a language tag" in done.stderr and b"udcff" in done.stderr


def test_python_api_refuses_a_lang_that_is_not_a_string():
    with pytest.raises(ArgumentTypeError, match="lang must be a language tag \\(str\\)") as raised:
        affectlab.detect("I am happy", lang=5)
    assert isinstance(raised.value, AffectlabError) and isinstance(raised.value, TypeError)


# ---- long work shows progress in a log too -------------------------------------------------------------------------


def test_detect_input_reports_progress_in_plain_lines_when_stderr_is_not_a_terminal(monkeypatch, tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("text\n" + "".join(f"I am so happy, day {i}\n" for i in range(30)), encoding="utf-8")
    monkeypatch.setattr("affectlab.cli.output.PLAIN_PROGRESS_SECONDS", 0.0)

    outcome = invoke(["detect", "--fast", "--input", source, "--output", tmp_path / "out.csv", "--batch-size", "10"])

    assert outcome.code == 0, outcome.err
    lines = outcome.err.splitlines()  # the share done is of the bytes read
    assert [line.split(" (")[0] for line in lines] == ["scoring: 10 rows", "scoring: 20 rows", "scoring: 30 rows"]
    assert "left" in lines[0] and "(100%)" in lines[-1]
