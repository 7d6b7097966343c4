"""Issue 21's cases, run as a user runs them: each command in a fresh process of the interpreter given, its exit
code and whether it ended in one line (no traceback), for the table in BENCHMARKS.md ("The front door at its
edges"). Run once with the interpreter of a checkout before the change and once after:

    python benchmarks/front_door_edges.py --python /path/to/old-venv/bin/python --out before.json
    python benchmarks/front_door_edges.py --python "$(which python)" --out after.json
    python benchmarks/front_door_edges.py --table before.json after.json

Needs the dev install (annotate, ua, serve extras) and the data directory (``AFFECTLAB_DATA_DIR`` or
``../shared/data``). The offline Hub case waits as long as the installed code does (up to ``--hub-timeout``).
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

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("AFFECTLAB_DATA_DIR") or REPO.parent / "shared" / "data")
RATINGS = "text_id,text,emotion,Annotator-1,Annotator-2\n1,a,Joy,1,0\n1,a,Sad,0,1\n2,b,Joy,{},1\n2,b,Sad,0,0\n"


@dataclass
class Case:
    """One line of the table: ``argv`` after the interpreter (``-m affectlab ...`` or ``-c CODE``)."""

    group: str
    name: str
    argv: list[str]
    sigint_after: float | None = None  # seconds; or "when the progress file appears", see run()
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


def cases(work: Path) -> list[Case]:
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


def wait_for_progress(output: Path, process: subprocess.Popen) -> None:
    """Until the run writing ``output`` has recorded its first batch (or ended), then half a second more."""
    sidecar = output.with_name(f"{output.name}.progress.json")
    while process.poll() is None and not rows_done(sidecar):
        time.sleep(0.02)
    time.sleep(0.5)


def rows_done(sidecar: Path) -> int:
    try:
        return int(json.loads(sidecar.read_text(encoding="utf-8")).get("rows_done") or 0)
    except (OSError, ValueError):  # not there yet, or being replaced
        return 0


def run(python: str, case: Case, hub_timeout: float) -> dict[str, object]:
    env = {**os.environ, **case.env, "PYTHONIOENCODING": "utf-8"}
    argv = [python, *case.argv]
    started = time.monotonic()
    first = None
    if case.concurrent:  # the second starts once the first has written its first batches
        first = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_progress(Path(argv[argv.index("--output") + 1]), first)
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if case.sigint_after is not None:
        target = Path(argv[argv.index("--output") + 1]) if "--output" in argv else None
        if case.sigint_after < 0 and target is not None:  # when the first batches are on disk
            wait_for_progress(target, process)
        else:
            time.sleep(case.sigint_after)
        process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=hub_timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
    if first is not None:
        first.wait()
    seconds = time.monotonic() - started
    stdout, stderr = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    lines = [line for line in stderr.splitlines() if line.strip()]
    return {
        "group": case.group,
        "case": case.name,
        "code": process.returncode,
        "seconds": round(seconds, 1),
        "traceback": "Traceback" in stderr or "Traceback" in stdout,
        "stderr_lines": len(lines),
        "last_line": lines[-1][:160] if lines else "",
        "seen": (case.observe or first_line)(stdout),
    }


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
    parser.add_argument("--table", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="Print the markdown table.")
    args = parser.parse_args()
    if args.table:
        print(table(*(json.loads(path.read_text()) for path in args.table)))
        return
    with tempfile.TemporaryDirectory() as work:
        results = []
        for case in cases(Path(work)):
            result = run(args.python, case, args.hub_timeout)
            print(f"{case.name}: {describe(result)}", flush=True)
            results.append(result)
    if args.out:
        args.out.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
