"""The front door at its edges (issue 21): every case a new user hit, as a test. A command ends with exit code 0,
2 (bad input: one ``error:`` line) or 130 (Ctrl-C: one ``interrupted:`` line saying what was kept); no option or
input is silently ignored; output locations are checked before work starts and locked while written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import affectlab
from affectlab.detectors import create_detector, read_detector
from affectlab.errors import (
    AffectlabError,
    ArgumentTypeError,
    InputError,
    ModelFileError,
    OutputError,
    TextTypeError,
)
from affectlab.io.outputs import output_lock
from affectlab.labels import EKMAN
from fuzz_support import check_exit, invoke

TEXTS = ["I am so happy today", "this is terrible and I am angry", "I am scared of the dark", "what a surprise"]


def one_error(outcome, fragment: str) -> None:
    """Exit 2 with one error line that contains ``fragment``."""
    check_exit(outcome)
    assert outcome.code == 2 and fragment in outcome.err, outcome.err


@pytest.fixture
def unwritable_dir(tmp_path: Path) -> Path:
    """A folder this process cannot create files in: a read-only folder, or, for root (whom permissions do not
    stop), ``/sys``, where nobody can create a file."""
    if os.geteuid() != 0:
        folder = tmp_path / "read-only"
        folder.mkdir()
        folder.chmod(0o500)
        return folder
    try:
        Path("/sys/affectlab-probe").touch()
    except OSError:
        return Path("/sys")
    pytest.skip("no folder here refuses root's writes")


@pytest.fixture
def texts_csv(tmp_path: Path) -> Path:
    path = tmp_path / "texts.csv"
    path.write_text("text\n" + "\n".join(TEXTS) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    model = create_detector("keywords").fit(TEXTS, np.eye(4, len(EKMAN), dtype=np.int8), EKMAN)
    directory = tmp_path_factory.mktemp("models") / "keywords"
    model.save(directory)
    return directory


# ---- exit codes a script can trust -------------------------------------------------------------------------------


def test_ctrl_c_in_any_command_exits_130_with_one_line(monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("affectlab.cli.detect_cmd.detect", interrupted)
    outcome = invoke(["detect", "--fast", "hello"])
    assert outcome.code == 130 and outcome.err.strip() == "interrupted: stopped (Ctrl-C) before the command finished"


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_sigint_during_detect_input_exits_130_saying_how_to_resume(tmp_path, suffix):
    source = tmp_path / "many.csv"
    source.write_text("text\n" + "".join(f"I am so happy, day {i}\n" for i in range(200_000)), encoding="utf-8")
    output = tmp_path / f"scored{suffix}"
    command = [sys.executable, "-m", "affectlab", "detect", "--fast", "--input", source, "--output", output,
               "--batch-size", "100"]  # fmt: skip
    # as from a shell: Ctrl-C's default action, whatever an earlier test (Ray, uvicorn) left set in this process
    # (a child whose SIGINT is ignored at start never gets Python's KeyboardInterrupt handler)
    default_sigint = lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)  # noqa: E731
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint
    )
    sidecar = output.with_name(output.name + ".progress.json")
    deadline = time.monotonic() + 60
    while not (sidecar.exists() and json.loads(sidecar.read_text() or "{}").get("rows_done")):
        assert time.monotonic() < deadline and process.poll() is None, "the run never got going"
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert err.count("\n") == 1 and err.startswith("interrupted: ") and "run the same command again to resume" in err
    assert not output.with_name(output.name + ".lock").exists()
    resumed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0 and "already done" in resumed.stdout, resumed.stderr


# ---- output locations ------------------------------------------------------------------------------------------


def test_unwritable_output_folder_is_one_line_before_any_work(texts_csv, unwritable_dir):
    one_error(invoke(["detect", "--fast", "--input", texts_csv, "--output", unwritable_dir / "out.csv"]),
              "is not writable")  # fmt: skip


def test_train_out_an_existing_file_or_unwritable_is_one_line(tmp_path, unwritable_dir, data_dir):
    existing = tmp_path / "model"
    existing.write_text("not a folder")
    for out, fragment in ((existing, "it is a file"), (unwritable_dir / "model", "is not writable")):
        outcome = invoke(["train", "keywords", "--dataset", "emobench-ua", "--data-dir", data_dir, "--out", out])
        one_error(outcome, fragment)


def test_score_and_lm_eval_export_onto_an_existing_file_are_one_line(tmp_path, texts_csv):
    existing = tmp_path / "taken"
    existing.write_text("mine")
    one_error(invoke(["score", "--input", texts_csv, "--output", existing, "--fast"]), "it is a file")
    one_error(invoke(["ua", "export-lm-eval", existing]), "it is a file")
    assert existing.read_text() == "mine"


def test_serve_with_a_bad_or_damaged_model_is_one_line_before_the_server_starts(tmp_path, saved_model):
    pytest.importorskip("fastapi")
    one_error(invoke(["serve", "--model", tmp_path / "nowhere"]), "not an affectlab model directory")
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    for file in saved_model.iterdir():
        (damaged / file.name).write_bytes(file.read_bytes())
    (damaged / "arrays.npz").write_bytes(b"garbage")
    one_error(invoke(["serve", "--model", damaged]), "damaged")


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_second_run_on_the_same_output_is_refused_naming_the_first(tmp_path, texts_csv, suffix):
    output = tmp_path / f"scored{suffix}"
    with output_lock(output):
        outcome = invoke(["detect", "--fast", "--input", texts_csv, "--output", output])
        one_error(outcome, f"is being written by another run (process {os.getpid()}")
    assert not output.exists()
    check_exit(invoke(["detect", "--fast", "--input", texts_csv, "--output", output]))
    assert output.exists() and not output.with_name(output.name + ".lock").exists()


def test_the_lock_is_held_across_processes(tmp_path):
    output = tmp_path / "scored.csv"
    code = (
        f"from affectlab.io.outputs import output_lock\nwith output_lock({str(output)!r}):\n"
        "    print('held', flush=True)\n    input()"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(OutputError, match=f"process {holder.pid}"), output_lock(output):
            pass
    finally:
        holder.communicate("\n", timeout=30)
    with output_lock(output):
        pass


# ---- bad text and arguments ----------------------------------------------------------------------------------


def test_invalid_utf8_on_the_command_line_is_one_line():
    argv = [b"affectlab", b"detect", b"--fast", b"I am \xff happy"]
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from affectlab.cli import main; sys.exit(main())", *argv[1:]],
        capture_output=True,
    )
    assert done.returncode == 2 and done.stderr.count(b"\n") == 1, done.stderr
    assert b"not valid Unicode text" in done.stderr


def test_python_api_checks_its_arguments_as_the_command_line_does():
    with pytest.raises(InputError, match="not valid Unicode text"):
        affectlab.detect("I am \udcff happy", fast=True)
    with pytest.raises(ArgumentTypeError, match="top_k must be a whole number"):
        affectlab.detect("x", top_k="3", fast=True)
    for bad in (0, -1):
        with pytest.raises(InputError, match="top_k must be at least 1"):
            affectlab.detect("x", top_k=bad, fast=True)
    with pytest.raises(TypeError, match="for one turn, write"):
        affectlab.detect("x", taxonomy="emocontext", context="a string", fast=True)
    assert affectlab.detect("x", top_k=np.int64(1), fast=True)[0].labels


@pytest.mark.slow
@pytest.mark.parametrize("value", ["-1", "abc"])
def test_a_parameter_scikit_learn_refuses_is_one_line(data_dir, value):
    outcome = invoke(["eval", "--model", "tfidf-lr", "--param", f"C={value}", "--dataset", "emobench-ua",
                      "--data-dir", data_dir, "--no-record", "--limit", "5"])  # fmt: skip
    one_error(outcome, "'C' parameter")


def test_predict_proba_of_none_is_a_type_error_saying_what_is_accepted(saved_model):
    with pytest.raises(TextTypeError, match="must be a str, a list of str"):
        read_detector(saved_model).predict_proba(None)


def test_a_saved_decision_of_the_wrong_length_is_refused_on_load(tmp_path, saved_model):
    from affectlab.detectors.serialization import read_model_dir, write_model_dir

    config, arrays = read_model_dir(saved_model)
    config["decision"]["values"] = config["decision"]["values"][:-1]
    config = {k: v for k, v in config.items() if k not in ("format", "format_version", "arrays_sha256")}
    write_model_dir(tmp_path / "edited", config, arrays)  # checksums recomputed: only the content is wrong
    with pytest.raises(ModelFileError, match="decision has 6 values for 7 labels"):
        read_detector(tmp_path / "edited")


# ---- nothing silently ignored ------------------------------------------------------------------------------------


def test_build_default_options_of_fine_tuning_need_fine_tune(tmp_path):
    for option in ("--continue-from", "--trained-dir", "--encoder-out"):
        one_error(invoke(["build-default", option, str(tmp_path)]), "go with --fine-tune")


def test_texts_and_input_together_are_refused(texts_csv, tmp_path):
    one_error(invoke(["detect", "hello", "--input", texts_csv, "--output", tmp_path / "o.csv"]), "not both")
    one_error(invoke(["detect", "--input", texts_csv, "--output", tmp_path / "o.csv", "-c", "hi"]), "--context")
    one_error(invoke(["detect", "--input", texts_csv, "--output", tmp_path / "o.csv", "--top-k", "2"]), "--top-k")


def test_context_for_a_head_that_reads_texts_alone_is_refused():
    one_error(invoke(["detect", "--fast", "i hate you", "--context", "you are stupid"]), "reads each text alone")
    with pytest.raises(InputError, match="reads each text alone"):
        affectlab.detect("i hate you", context=["you are stupid"], fast=True)
    dialogue = affectlab.detect("i hate you", taxonomy="emocontext", context=["you are stupid"], fast=True)
    assert dialogue[0].labels


@pytest.mark.parametrize("text", ["\u200b\u200b", "\ufeff", "\u200d \u2060", "\x00\x01"])
def test_text_of_only_invisible_characters_is_refused_like_whitespace(text):
    with pytest.raises(InputError, match="text 1 is empty"):
        affectlab.detect(text, fast=True)
    one_error(invoke(["detect", "--fast", text.replace("\x00", "\x01")]), "text 1 is empty")


def test_the_service_refuses_what_the_api_refuses():
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from affectlab.serve.app import create_app

    client = TestClient(create_app(preload=False))
    for body, fragment in (
        ({"text": "\u200b"}, "text 1 is empty"),
        ({"text": "i hate you", "context": ["you are stupid"]}, "reads each text alone"),
        ({"text": "x", "top_k": 0}, "top_k"),
    ):
        response = client.post("/v1/detect", json=body)
        assert response.status_code == 422 and fragment in response.json()["error"], response.text


RATINGS = "text_id,text,emotion,Annotator-1,Annotator-2\n1,a,Joy,1,0\n1,a,Sad,0,1\n2,b,Joy,{},1\n2,b,Sad,0,0\n"


@pytest.mark.parametrize(
    ("rating", "fragment"),
    [("2.5", "data row 3: rating 2.5 in column 'Annotator-1' is not a whole number"),
     ("-3", "data row 3: rating -3 in column 'Annotator-1' is outside the scale 0-3"),
     ("99", "data row 3: rating 99 in column 'Annotator-1' is outside the scale 0-3")],
)  # fmt: skip
def test_ratings_off_the_scale_are_an_error_naming_the_row(tmp_path, rating, fragment):
    pytest.importorskip("crowdkit")
    ratings = tmp_path / "ratings.csv"
    ratings.write_text(RATINGS.format(rating), encoding="utf-8")
    for command in ("agreement", "aggregate"):
        one_error(invoke(["annotate", command, ratings]), fragment)


def test_a_declared_scale_and_the_interval_level_accept_such_ratings(tmp_path):
    pytest.importorskip("crowdkit")
    ratings = tmp_path / "ratings.csv"
    ratings.write_text(RATINGS.format("99"), encoding="utf-8")
    check_exit(invoke(["annotate", "agreement", ratings, "--scale", "0-100", "--bootstrap", "0"]))
    ratings.write_text(RATINGS.format("2.5"), encoding="utf-8")
    outcome = invoke(["annotate", "agreement", ratings, "--level", "interval", "--bootstrap", "0"])
    check_exit(outcome)
    assert outcome.code == 0
    one_error(invoke(["annotate", "agreement", ratings, "--scale", "3-0"]), "--scale must be LOW-HIGH")


def test_a_generator_asked_for_more_than_exists_says_how_many_it_made(tmp_path, data_dir):
    pytest.importorskip("pymorphy3")
    out = tmp_path / "low.jsonl"
    outcome = invoke(["ua", "generate", "lmes-low", "--data-dir", data_dir, "--n", "1000000", "--out", out, "--json"])
    check_exit(outcome)
    report = json.loads(outcome.out)
    made = sum(1 for _ in out.open(encoding="utf-8"))
    assert report["n"] == made < 1_000_000 and report["requested"] == 1_000_000
    assert f"only {made:,} distinct" in report["note"]


@pytest.mark.parametrize(
    ("variable", "value", "fragment"),
    [("HF_HUB_OFFLINE", "1", "HF_HUB_OFFLINE is set"), ("HF_ENDPOINT", "http://127.0.0.1:9", "cannot be reached")],
)
def test_an_offline_hub_download_fails_in_seconds_naming_the_local_copy(monkeypatch, variable, value, fragment):
    monkeypatch.setenv(variable, value)
    started = time.monotonic()
    outcome = invoke(["ua", "baselines"])
    one_error(outcome, fragment)
    assert "pass --data-dir" in outcome.err and time.monotonic() - started < 30


# ---- readable at first sight ---------------------------------------------------------------------------------------


def test_dataset_names_are_never_cut_in_an_80_column_terminal(monkeypatch):
    from affectlab.datasets import DATASETS

    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr("affectlab.cli.output.stdout", __import__("rich.console").console.Console(width=80))
    outcome = invoke(["datasets", "list"])
    check_exit(outcome)
    for name, _ in DATASETS.items():
        assert name in outcome.out


def test_one_name_per_model_in_the_table_the_json_and_the_runs_list(data_dir):
    args = ["eval", "--model", "default", "--fast", "--dataset", "emobench-ua", "--data-dir", data_dir, "--limit", "20"]
    table, record = invoke(args), json.loads(invoke([*args, "--json"]).out)
    runs = json.loads(invoke(["runs", "list", "--json"]).out)
    assert record["model"] == "default --fast" and record["model_kind"]
    assert "default --fast on emobench-ua" in " ".join(table.out.split())
    assert {run["model"] for run in runs} == {"default --fast"}


@pytest.mark.parametrize("command", ["detect", "eval", "train", "score", "serve", "annotate agreement", "ua generate"])
def test_help_shows_flags_without_type_labels(command, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    outcome = invoke([*command.split(), "--help"])
    assert outcome.code == 0
    for label in ("<bool>", "<str>", "<int", "<list[", "<path>", "<float"):
        assert label not in outcome.out, f"{label} in the help of {command}"
    if command == "detect":
        assert "a list of objects for several" in " ".join(outcome.out.split())


# ---- property: whatever the bytes, a clean end ---------------------------------------------------------------------

INVISIBLE = st.sampled_from(["\u200b", "\u200d", "\u2060", "\ufeff", "\u00ad", "\x01", "\x7f", " ", "\t"])
AWKWARD_TEXT = st.text(st.characters() | st.characters(categories=["Cs"]) | INVISIBLE, max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(raw=st.binary(max_size=60) | AWKWARD_TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_any_bytes_as_a_command_line_text_end_in_a_result_or_one_error_line(raw):
    text = os.fsdecode(raw.replace(b"\0", b""))  # what Python makes of argv bytes; argv cannot hold NUL
    outcome = invoke(["detect", "--fast", "--json", "--", text])
    check_exit(outcome)
    if outcome.code == 0:
        assert json.loads(outcome.out)["labels"]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(texts=st.lists(AWKWARD_TEXT, min_size=1, max_size=3), top_k=st.none() | st.integers(-2, 3) | st.text(max_size=2))
def test_any_text_and_top_k_to_the_api_are_scored_or_refused_with_an_affectlab_error(texts, top_k):
    try:
        results = affectlab.detect(texts, top_k=top_k)
    except AffectlabError:
        return
    assert len(results) == len(texts) and all(result.labels for result in results)


def test_score_run_again_keeps_the_files_an_earlier_run_finished(tmp_path, texts_csv):
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("a.csv", "b.csv"):
        (folder / name).write_bytes(texts_csv.read_bytes())
    out = tmp_path / "out"
    check_exit(invoke(["score", "--input", folder, "--output", out, "--fast"]))
    (out / "b.parquet").unlink()  # as if the first run had stopped before b.csv
    outcome = invoke(["score", "--input", folder, "--output", out, "--fast", "--json"])
    check_exit(outcome)
    files = {Path(f["input"]).name: f for f in json.loads(outcome.out)["files"]}
    assert files["a.csv"]["kept"] and not files["b.csv"]["kept"] and files["b.csv"]["rows"] == len(TEXTS)
