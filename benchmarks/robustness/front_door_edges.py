"""Issue 21's and issue 30's cases, run as a user runs them: each command in a fresh process of the interpreter
given, its exit code and whether it ended in one line (no traceback), for the tables in BENCHMARKS.md ("The front
door at its edges", "Nothing mixed, nothing starved"). Run once with the interpreter of a checkout before the change
and once after (``--cases 21`` or ``30``, the default):

    python benchmarks/robustness/front_door_edges.py --python /path/to/old-venv/bin/python --out before.json
    python benchmarks/robustness/front_door_edges.py --python "$(which python)" --out after.json
    python benchmarks/robustness/front_door_edges.py --table before.json after.json

Needs the dev install (annotate, ua, serve extras) and the data directory (``AFFECTLAB_DATA_DIR`` or
``../shared/data``). The offline Hub case waits as long as the installed code does (up to ``--hub-timeout``).

``--out`` writes the JSON (recorded: ``benchmarks/results/front_door_edges_{before,after}.json`` for issue 21,
``front_door_edges_issue30_{before,after}.json`` for issue 30); ``--table`` prints the before/after table.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("AFFECTLAB_DATA_DIR") or REPO.parent / "shared" / "data")
RATINGS = "text_id,text,emotion,Annotator-1,Annotator-2\n1,a,Joy,1,0\n1,a,Sad,0,1\n2,b,Joy,{},1\n2,b,Sad,0,0\n"


@dataclass
class Case:
    """One line of the table: ``argv`` after the interpreter (``-m affectlab ...`` or ``-c CODE``)."""

    group: str
    name: str
    argv: list[str]
    sigint_after: float | None = None  # seconds; -1: when the first batch is on disk; -2: when more rows are
    first: Case | None = None  # run (and forget) before this one: an interrupted run that this one resumes
    stdout_to: str | None = None  # a file to write stdout to (/dev/full) instead of a pipe
    head: bool = False  # read one line of stdout, then close the pipe (``| head -n 1``)
    kill_after: float | None = None  # seconds, for a command that would run for minutes
    env: dict[str, str] = field(default_factory=dict)
    concurrent: bool = False  # start a second copy while the first runs
    observe: Callable[[str], str] | None = None  # what to report of stdout (default: its first line)


def names_cut(out: str) -> str:
    from affectlab.datasets import DATASETS

    names = [name for name, _ in DATASETS.items()]
    return f"{sum(name not in out for name in names)} of {len(names)} dataset names cut"


def model_name(out: str) -> str:
    found = re.search(r"(\S+(?: --fast)?) on emobench-ua", " ".join(out.split()))
    return f"table names the model {found[1]!r}" if found else "no table title"


def type_labels(out: str) -> str:
    return f"{len(re.findall(r'<(?:bool|str|int|list|path|float)[^>]*>', out))} Python type labels"


def cli(*args: object) -> list[str]:
    return ["-m", "affectlab", *map(str, args)]


API_RUN = """import affectlab, affectlab.errors
try:
    {code}
except Exception as exc:
    kind = " (an AffectlabError)" if isinstance(exc, affectlab.errors.AffectlabError) else ""
    print(f"raises {{type(exc).__name__}}{{kind}}: {{str(exc)[:60]}}")
else:
    print("returns without a word")
"""


def api(code: str) -> list[str]:
    """A Python snippet; prints what it raised (class, whether it is an AffectlabError, message) or that it
    returned, as a user of the Python API would see it."""
    return ["-c", API_RUN.format(code=code)]


def issue_21_cases(work: Path) -> list[Case]:
    small = work / "small.csv"
    small.write_text("text\nI am so happy\nthis is awful\n", encoding="utf-8")
    big = work / "big.csv"
    big.write_text("text\n" + "".join(f"I am so happy, day {i}\n" for i in range(200_000)), encoding="utf-8")
    taken = work / "taken"
    taken.write_text("a file")
    model = work / "model"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "affectlab",
            "train",
            "keywords",
            "--dataset",
            "emobench-ua",
            "--data-dir",
            DATA,
            "--out",
            model,
        ],
        check=True,
        capture_output=True,
    )
    damaged = work / "damaged"
    damaged.mkdir()
    for file in model.iterdir():
        (damaged / file.name).write_bytes(file.read_bytes())
    (damaged / "arrays.npz").write_bytes(b"garbage")
    edited = work / "edited"
    subprocess.run(
        [
            sys.executable,
            "-c",
            (
                "import sys\nfrom affectlab.detectors.serialization import read_model_dir, write_model_dir\n"
                f"config, arrays = read_model_dir({str(model)!r})\n"
                "config['decision']['values'] = config['decision']['values'][:-1]\n"
                "config = {k: v for k, v in config.items() if k not in ('format', 'format_version', 'arrays_sha256')}\n"
                f"write_model_dir({str(edited)!r}, config, arrays)"
            ),
        ],
        check=True,
    )
    ratings = {value: work / f"ratings_{value}.csv" for value in ("2.5", "-3", "99")}
    for value, path in ratings.items():
        path.write_text(RATINGS.format(value), encoding="utf-8")
    service = (
        "from fastapi.testclient import TestClient\nfrom affectlab.serve.app import create_app\n"
        "r = TestClient(create_app(preload=False)).post('/v1/detect', json={body})\nprint(r.status_code, r.text)"
    )
    return [
        Case("exit codes", "Ctrl-C in `detect TEXT`", cli("detect", "hello there"), sigint_after=0.8),
        Case(
            "exit codes",
            "Ctrl-C in `detect --input` (csv out)",
            cli("detect", "--fast", "--input", big, "--output", work / "i.csv", "--batch-size", "100"),
            sigint_after=-1,
        ),
        Case(
            "exit codes",
            "Ctrl-C in `detect --input` (parquet out)",
            cli("detect", "--fast", "--input", big, "--output", work / "i.parquet", "--batch-size", "100"),
            sigint_after=-1,
        ),
        Case(
            "outputs", "output folder not writable", cli("detect", "--fast", "--input", small, "--output", "/sys/o.csv")
        ),
        Case(
            "outputs",
            "`train --out` an existing file",
            cli("train", "keywords", "--dataset", "emobench-ua", "--data-dir", DATA, "--out", taken),
        ),
        Case(
            "outputs",
            "`train --out` not writable",
            cli("train", "keywords", "--dataset", "emobench-ua", "--data-dir", DATA, "--out", "/sys/model"),
        ),
        Case(
            "outputs", "`score --output` an existing file", cli("score", "--input", small, "--output", taken, "--fast")
        ),
        Case(
            "outputs",
            "`ua export-lm-eval` onto an existing file",
            cli("ua", "export-lm-eval", taken, "--data-dir", DATA),
        ),
        Case("outputs", "`serve --model` a bad path", cli("serve", "--model", work / "nowhere", "--port", "8931")),
        Case("outputs", "`serve --model` a damaged model", cli("serve", "--model", damaged, "--port", "8932")),
        Case(
            "outputs",
            "two runs, one Parquet output (the second)",
            cli("detect", "--fast", "--input", big, "--output", work / "c.parquet", "--batch-size", "100"),
            concurrent=True,
        ),
        Case(
            "outputs",
            "two runs, one CSV output (the second)",
            cli("detect", "--fast", "--input", big, "--output", work / "c.csv", "--batch-size", "100"),
            concurrent=True,
        ),
        Case(
            "bad text",
            "invalid UTF-8 on the command line",
            ["-m", "affectlab", "detect", "--fast", "I am \udcff happy"],
        ),
        Case("bad text", "lone surrogate to `affectlab.detect`", api("affectlab.detect('I am \\udcff happy')")),
        Case("bad text", "`detect('x', top_k='3')`", api("affectlab.detect('x', top_k='3', fast=True)")),
        Case(
            "bad text",
            "`eval --param C=-1`",
            cli(
                "eval",
                "--model",
                "tfidf-lr",
                "--param",
                "C=-1",
                "--dataset",
                "emobench-ua",
                "--data-dir",
                DATA,
                "--no-record",
            ),
        ),
        Case(
            "bad text",
            "`eval --param C=abc`",
            cli(
                "eval",
                "--model",
                "tfidf-lr",
                "--param",
                "C=abc",
                "--dataset",
                "emobench-ua",
                "--data-dir",
                DATA,
                "--no-record",
            ),
        ),
        Case("bad text", "rating 2.5 in `annotate agreement`", cli("annotate", "agreement", ratings["2.5"])),
        Case(
            "bad text",
            "`load_detector(DIR).predict_proba(None)`",
            api(f"affectlab.load_detector({str(model)!r}).predict_proba(None)"),
        ),
        Case(
            "bad text",
            "saved decision of the wrong length (checksums recomputed)",
            api(f"affectlab.load_detector({str(edited)!r}).predict(['I am so happy'])"),
        ),
        Case(
            "ignored",
            "`detect TEXT --input FILE`",
            cli("detect", "--fast", "hello", "--input", small, "--output", work / "both.csv"),
        ),
        Case(
            "ignored",
            "`--context` with the ekman head (CLI)",
            cli("detect", "--fast", "i hate you", "--context", "you are stupid"),
        ),
        Case(
            "ignored",
            "`context` with the ekman head (service)",
            ["-c", service.format(body="{'text': 'i hate you', 'context': ['you are stupid']}")],
        ),
        Case(
            "ignored",
            "`detect(..., context='a string')`",
            api("affectlab.detect('i hate you', taxonomy='emocontext', context='you are stupid', fast=True)"),
        ),
        Case("ignored", "API `top_k=0`", api("affectlab.detect('x', top_k=0, fast=True)")),
        Case("ignored", "API `top_k=-1`", api("affectlab.detect('x', top_k=-1, fast=True)")),
        Case("ignored", "zero-width-only text", cli("detect", "--fast", "\u200b\u200b")),
        Case("ignored", "rating -3 in `annotate agreement`", cli("annotate", "agreement", ratings["-3"])),
        Case("ignored", "rating 99 in `annotate aggregate`", cli("annotate", "aggregate", ratings["99"])),
        Case(
            "ignored",
            "`ua generate lmes-low --n 1000000`",
            cli("ua", "generate", "lmes-low", "--data-dir", DATA, "--n", "1000000", "--out", work / "low.jsonl"),
        ),
        Case(
            "ignored",
            "`ua baselines`, no data directory, offline",
            cli("ua", "baselines"),
            env={"AFFECTLAB_DATA_DIR": ""},
        ),
        Case(
            "help", "`datasets list` in 80 columns", cli("datasets", "list"), env={"COLUMNS": "80"}, observe=names_cut
        ),
        Case(
            "help",
            "`eval --model default` name (table)",
            cli(
                "eval",
                "--model",
                "default",
                "--fast",
                "--dataset",
                "emobench-ua",
                "--data-dir",
                DATA,
                "--limit",
                "50",
                "--no-record",
            ),
            env={"COLUMNS": "200"},
            observe=model_name,
        ),
        Case(
            "help", "`detect --help` type labels", cli("detect", "--help"), env={"COLUMNS": "200"}, observe=type_labels
        ),
    ]


NAN_MODEL = """import numpy as np
from affectlab.detectors.serialization import read_model_dir, write_model_dir
config, arrays = read_model_dir({source!r})
arrays = {{name: np.asarray(arrays[name]) for name in arrays}}
name = next(name for name, values in arrays.items() if values.dtype.kind == "f")
arrays[name] = np.full_like(arrays[name], np.nan)
config = {{k: v for k, v in config.items() if k not in ("format", "format_version", "arrays_sha256")}}
write_model_dir({target!r}, config, arrays)"""

SAVED_MODEL_TESTS = """import pathlib, subprocess, sys, affectlab
tests = pathlib.Path(affectlab.__file__).parents[2] / "tests" / "test_saved_models.py"  # of this interpreter's checkout
run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)], capture_output=True,
                     text=True)
print(run.stdout.strip().splitlines()[-1])
sys.exit(run.returncode)"""

BURSTS = """import subprocess, sys
runs = [subprocess.run([sys.executable, "-c", {burst!r}], capture_output=True, text=True) for _ in range(5)]
failed = [int(run.stdout.split()[0]) if run.returncode == 0 else 120 for run in runs]
print(f"{{sum(n > 0 for n in failed)}} of 5 fresh servers answered some of 120 requests with an error "
      f"({{sum(failed)}} of 600 requests)")"""

BURST = """import threading, time, socket, uvicorn, httpx
from affectlab.serve.app import create_app
with socket.socket() as s:
    s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
server = uvicorn.Server(uvicorn.Config(create_app(concurrency=4), port=port, log_level="error"))
threading.Thread(target=server.run, daemon=True).start()
while not server.started: time.sleep(0.05)
texts = ["Я так чекала на цей день!", "What a horrible day", "¡Qué miedo tengo!"]
codes = []
def send(i):
    for j in range(10):
        codes.append(httpx.post(f"http://127.0.0.1:{{port}}/v1/detect", json={{"text": texts[(i + j) % 3]}},
                                timeout=120).status_code)
threads = [threading.Thread(target=send, args=(i,)) for i in range(12)]
[t.start() for t in threads]; [t.join() for t in threads]
print(f"{{sum(c != 200 for c in codes)}} of {{len(codes)}} requests failed ({{sorted(set(codes))}})")
server.should_exit = True"""


def served(body: str, method: str = "post", path: str = "/v1/detect") -> list[str]:
    """A request to the service (TestClient), printing the status and the start of the body."""
    return ["-c", (
        "from fastapi.testclient import TestClient\nfrom affectlab.serve.app import create_app\n"
        f"r = TestClient(create_app(preload=False)).{method}({path!r}{', json=' + body if body else ''})\n"
        "print(r.status_code, r.text[:80])"
    )]  # fmt: skip


def notes_column(output: Path) -> Callable[[str], str]:
    def seen(_out: str) -> str:
        if not output.is_file():
            return "no output"
        header, *rows = output.read_text(encoding="utf-8").splitlines()
        noted = sum("characters were read" in row for row in rows)
        return f"{'a notes column' if 'notes' in header.split(',') else 'no notes column'}, {noted} rows noted"

    return seen


def lines_over(width: int) -> Callable[[str], str]:
    def seen(out: str) -> str:
        lines = out.splitlines()
        cut = sum("…" in line for line in lines)
        return f"{len(lines)} lines, {cut} with a cut cell (…)"

    return seen


def line_with(words: str, count: int = 150) -> Callable[[str], str]:
    """The first line of stdout that holds ``words`` (Rich may wrap it: the output is read unwrapped)."""

    def seen(out: str) -> str:
        found = next((line.strip() for line in out.splitlines() if words in line), None)
        return f"says: {found[:count]}" if found else f"no line says {words!r}"

    return seen


def partial_runs(out: str) -> str:
    rows = [line for line in out.splitlines() if "keywords" in line or "tfidf-lr" in line]
    order = " above ".join("the 150-text run" if "tfidf-lr" in row else "the whole-test run" for row in rows)
    marked = any("part of" in line for line in out.splitlines())
    return f"{order}; {'a note says the 150-text run is partial' if marked else 'nothing says n differs'}"


def issue_30_cases(work: Path) -> list[Case]:
    big = work / "big.csv"
    big.write_text(
        "text\n" + "".join(f"I am so happy on day {i}\n" for i in range(200_000)), encoding="utf-8"
    )  # no comma: one CSV field
    small = work / "small.csv"
    small.write_text("text\nI am so happy\nthis is awful\n", encoding="utf-8")
    long = work / "long.csv"
    long.write_text("text\n" + "I am so happy today. " * 150 + "\nshort and sad\n", encoding="utf-8")
    model = work / "model"
    python = [sys.executable, "-m", "affectlab"]
    subprocess.run([*python, "train", "tfidf-lr", "--dataset", "emobench-ua", "--data-dir", DATA, "--out", model],
                   check=True, capture_output=True)  # fmt: skip
    nan_model = work / "nan_model"
    subprocess.run([sys.executable, "-c", NAN_MODEL.format(source=str(model), target=str(nan_model))], check=True)
    runs = {"AFFECTLAB_RUNS_DB": str(work / "runs.sqlite"), "COLUMNS": "80"}
    for kind, limit in (("keywords", None), ("tfidf-lr", "150")):  # another model, on part of test
        subprocess.run([*python, "eval", "--model", kind, "--dataset", "emobench-ua", "--data-dir", DATA,
                        *(["--limit", limit] if limit else [])], check=True, capture_output=True,
                       env={**os.environ, **runs})  # fmt: skip
    labels = work / "ukr_labels.csv"
    ratings = DATA / "semeval2025_task11" / "individual_labels" / "ukr" / "ukr_individuals.csv"
    aggregate = ["annotate", "aggregate", ratings, "--text-col", "text", "--binarize", "--method", "dawid-skene",
                 "--min-confidence", "0.9", "--out", labels]  # fmt: skip
    subprocess.run([*python, *aggregate], check=True, capture_output=True)
    released = sorted((DATA / "semeval2025_task11" / "track_a").glob("*/ukr.csv"))
    fast_run = cli("detect", "--fast", "--input", big, "--output", work / "mixed.csv", "--batch-size", "100")
    lang_run = cli("detect", "--fast", "--lang", "uk", "--input", big, "--output", work / "langs.csv",
                   "--batch-size", "100")  # fmt: skip
    return [
        Case("fresh machine", "saved-model tests with another C library's erff", ["-c", SAVED_MODEL_TESTS],
             env={"LD_PRELOAD": str(work / "erff.so")}),
        Case("resume", "Ctrl-C in `--fast` run, then without `--fast`",
             cli("detect", "--input", big, "--output", work / "mixed.csv", "--batch-size", "100"),
             sigint_after=-2, first=Case("", "", fast_run, sigint_after=-1)),
        Case("resume", "Ctrl-C in `--lang uk` run, then without `--lang`",
             cli("detect", "--fast", "--input", big, "--output", work / "langs.csv", "--batch-size", "100"),
             sigint_after=-2, first=Case("", "", lang_run, sigint_after=-1)),
        Case("resume", "Ctrl-C in the first batch (parquet out)",
             cli("detect", "--input", big, "--output", work / "early.parquet", "--batch-size", "200000"),
             sigint_after=3.0),  # one batch of the whole file: the interrupt comes before any is on disk
        Case("service", "120 first requests from 12 threads, `--concurrency 4`, 5 fresh servers",
             ["-c", BURSTS.format(burst=BURST.format())]),
        Case("service", "`HEAD /healthz`", served("", "head", "/healthz")),
        Case("lang", "service `lang: \"en\\u0000\"`", served("{'text': 'I am happy', 'lang': 'en\\x00'}")),
        Case("lang", "`detect('I am happy', lang=5)`", api("affectlab.detect('I am happy', lang=5)")),
        Case("lang", "`--lang \"en us\"`", cli("detect", "--fast", "I am happy", "--lang", "en us")),
        Case("lang", "invalid UTF-8 in `--lang`", cli("detect", "--fast", "I am happy", "--lang", "en\udcff")),
        Case("exit codes", "`detect TEXT > /dev/full`", cli("detect", "--fast", "I am happy"), stdout_to="/dev/full"),
        Case("exit codes", "`eval --json > /dev/full`",
             cli("eval", "--model", "keywords", "--dataset", "emobench-ua", "--data-dir", DATA, "--json",
                 "--no-record", "--limit", "50"), stdout_to="/dev/full"),
        Case("exit codes", "`detect $(seq -f text%g 300) / head -n 1`",
             cli("detect", "--fast", *(f"text{i}" for i in range(1, 301))), head=True),
        Case("exit codes", "`detect_file('ok.csv', None)`", api(f"affectlab.detect_file({str(small)!r}, None)")),
        Case("ignored", "`detect TEXT --output FILE` (no `--input`)",
             cli("detect", "--fast", "I am happy", "--output", work / "nowhere.csv")),
        Case("ignored", "a saved model with NaN weights: `eval`",
             cli("eval", "--model", nan_model, "--dataset", "emobench-ua", "--data-dir", DATA, "--no-record",
                 "--limit", "50")),
        Case("ignored", "a saved model with NaN weights: `detect --json`",
             cli("detect", "--model", nan_model, "I am happy", "--json")),
        Case("ignored", "`--input` rows over 2,000 characters",
             cli("detect", "--input", long, "--output", work / "long_out.csv"),
             observe=notes_column(work / "long_out.csv")),
        Case("misleading", "`eval --model keywords` on an intensity set",
             cli("eval", "--model", "keywords", "--dataset", "semeval2025-ukr-intensity", "--data-dir", DATA,
                 "--no-record")),
        Case("misleading", "`detect --open` on Ukrainian", cli("detect", "--open", "Мені сьогодні дуже сумно")),
        Case("misleading", "`build-default --fine-tune --resume --trained-dir EMPTY`",
             cli("build-default", "--fine-tune", "--resume", "--trained-dir", work / "empty", "--data-dir", DATA,
                 "--out", work / "heads")),
        Case("misleading", "`asi fixed-label` not on a terminal (first 60 s)",
             cli("asi", "fixed-label", "--dataset", "goemotions-ekman", "--data-dir", DATA), kill_after=60),
        Case("small", "`runs list` at 80 columns", cli("runs", "list"), env=runs, observe=lines_over(80)),
        Case("small", "`leaderboard` with a 150-text run", cli("leaderboard", "--dataset", "emobench-ua"),
             env={**runs, "COLUMNS": "200"}, observe=partial_runs),
        Case("small", "`annotate compare` of the aggregated ukr labels", cli("annotate", "compare", labels, *released),
             env={"COLUMNS": "300"}, observe=line_with("aggregated items")),
        Case("small", "`datasets list` at 80 columns", cli("datasets", "list"), env={"COLUMNS": "80"},
             observe=lambda out: f"{len(out.splitlines())} lines; {names_cut(out)}"),
    ]  # fmt: skip


CASES = {"21": issue_21_cases, "30": issue_30_cases}


def wait_for_progress(output: Path, process: subprocess.Popen, beyond: int = 0) -> None:
    """Until the run writing ``output`` has recorded more than ``beyond`` rows (or ended), then half a second more."""
    sidecar = output.with_name(f"{output.name}.progress.json")
    while process.poll() is None and rows_done(sidecar) <= beyond:
        time.sleep(0.02)
    time.sleep(0.5)


def rows_done(sidecar: Path) -> int:
    try:
        return int(json.loads(sidecar.read_text(encoding="utf-8")).get("rows_done") or 0)
    except (OSError, ValueError):  # not there yet, or being replaced
        return 0


CACHE = tempfile.mkdtemp(prefix="affectlab-cache-")
"""Each run of this script starts with an empty embedding cache, as a new user does (not the one an earlier run
filled: ``asi fixed-label`` takes 3 s instead of 3 minutes with it)."""


def interruptible() -> None:
    """Ctrl-C reaches the command even when this script runs in the background (``&``), where the shell has set
    SIGINT to be ignored and Python, seeing that, would not turn it into KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run(python: str, case: Case, hub_timeout: float) -> dict[str, object]:
    env = {**os.environ, "AFFECTLAB_CACHE_DIR": CACHE, **case.env, "PYTHONIOENCODING": "utf-8"}
    argv = [python, *case.argv]
    if case.first is not None:
        run(python, case.first, hub_timeout)
    started = time.monotonic()
    first = None
    if case.concurrent:  # the second starts once the first has written its first batches
        first = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 preexec_fn=interruptible)  # fmt: skip
        wait_for_progress(Path(argv[argv.index("--output") + 1]), first)
    target = Path(argv[argv.index("--output") + 1]) if "--output" in argv else None
    already = rows_done(target.with_name(f"{target.name}.progress.json")) if target is not None else 0
    stdout: Any = open(case.stdout_to, "wb") if case.stdout_to else subprocess.PIPE  # noqa: SIM115
    process = subprocess.Popen(argv, env=env, stdout=stdout, stderr=subprocess.PIPE, preexec_fn=interruptible)
    if case.head:  # `| head -n 1`: one line, then the reader goes away
        out = process.stdout.readline()
        process.stdout.close()
    if case.sigint_after is not None:
        if case.sigint_after < 0 and target is not None:  # when (more) batches are on disk
            wait_for_progress(target, process, already if case.sigint_after == -2 else 0)
        else:
            time.sleep(case.sigint_after)
        process.send_signal(signal.SIGINT)
    try:
        if case.head:
            err = process.communicate(timeout=hub_timeout)[1]
        else:
            out, err = process.communicate(timeout=case.kill_after or hub_timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate() if not case.head else (out, process.communicate()[1])
    if first is not None:
        first.wait()
    seconds = time.monotonic() - started
    stdout_text, stderr = (out or b"").decode("utf-8", "replace"), err.decode("utf-8", "replace")
    lines = [line for line in stderr.splitlines() if line.strip()]
    return {
        "group": case.group,
        "case": case.name,
        "code": process.returncode,
        "seconds": round(seconds, 1),
        "traceback": "Traceback" in stderr or "Traceback" in stdout_text,
        "stderr_lines": len(lines),
        "last_line": lines[-1][:160] if lines else "",
        "seen": (case.observe or first_line)(stdout_text),
    }


def build_other_erff(library: Path) -> None:
    """The correctly rounded ``erff`` that ``tests/test_platform_numerics.py`` preloads (a newcomer's C library)."""
    source = REPO / "tests" / "fixtures" / "correctly_rounded_erff.c"
    if not source.is_file():  # the checkout before issue 30 has none: write the same one
        library.with_suffix(".c").write_text(
            "#include <math.h>\nfloat erff(float x) { return (float)erf((double)x); }\n", encoding="utf-8"
        )
        source = library.with_suffix(".c")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", library, source, "-lm"], check=True)


def first_line(out: str) -> str:
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    return f"stdout: {lines[0][:70]}" if lines else ""


def table(before: list[dict], after: list[dict]) -> str:
    rows = ["| case | before: exit, what the user saw | after: exit, what the user saw |", "|---|---|---|"]
    for old, new in zip(before, after, strict=True):
        rows.append(f"| {new['case']} | {describe(old)} | {describe(new)} |")
    return "\n".join(rows)


def describe(result: dict) -> str:
    if result["traceback"]:
        what = f"traceback ({result['last_line'].split(':')[0]})"
    elif result["stderr_lines"] == 0:
        what = "no message"
    elif result["stderr_lines"] == 1:
        what = f"one line: `{result['last_line'][:90].replace('|', '/')}`"
    else:
        what = f"{result['stderr_lines']} lines, last: `{result['last_line'][:70].replace('|', '/')}`"
    seen = f"; {result['seen']}".replace("|", "/") if result["seen"] and result["code"] == 0 else ""
    return f"{result['code']}, {what}{seen} ({result['seconds']} s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default=sys.executable, help="The interpreter whose affectlab is measured.")
    parser.add_argument("--out", type=Path, help="Write the results here as JSON.")
    parser.add_argument("--hub-timeout", type=float, default=400.0, help="Seconds before a case is killed.")
    parser.add_argument("--cases", choices=sorted(CASES), default="30", help="Whose cases: issue 21's or 30's.")
    parser.add_argument("--table", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="Print the markdown table.")
    args = parser.parse_args()
    if args.table:
        print(table(*(json.loads(path.read_text()) for path in args.table)))
        return
    with tempfile.TemporaryDirectory() as work:
        results = []
        if args.cases == "30":
            build_other_erff(Path(work) / "erff.so")
        for case in CASES[args.cases](Path(work)):
            result = run(args.python, case, args.hub_timeout)
            print(f"{case.name}: {describe(result)}", flush=True)
            results.append(result)
    if args.out:
        args.out.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
