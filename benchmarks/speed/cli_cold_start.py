"""Cold start of the command line: wall time and peak memory of ``affectlab --help`` and ``affectlab detect --fast
"hello"`` (also a text whose language the function words settle, and the default profile) as new processes, for
this checkout and, side by side in the same run, for an earlier commit checked out into a temporary git worktree.
Runs alternate between the two trees so that the machine's drift during the run falls on both alike.

    python benchmarks/speed/cli_cold_start.py [--before REV] [--runs 10]

Each run is ``python -m affectlab ...`` with ``PYTHONPATH`` set to the tree's ``src`` (the installed package's
dependencies are shared). Also lists which heavy libraries each command imports. Writes
``benchmarks/results/cli_cold_start.json`` and prints the Markdown table that goes into BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
COMMANDS = {
    "affectlab --help": ["--help"],
    'affectlab detect --fast "hello"': ["detect", "--fast", "hello"],
    'affectlab detect --fast "I am so happy"': ["detect", "--fast", "I am so happy"],
    'affectlab detect "hello"': ["detect", "hello"],
}
HEAVY = ("crowdkit", "ray", "torch", "transformers", "datasets", "pandas", "sklearn", "fastapi", "scipy.stats")
BREAKDOWN = """
import time
started = time.perf_counter()
import affectlab.cli.detect_cmd
imports_done = time.perf_counter()
from affectlab.detectors.default import load_default
head = load_default("ekman", True)  # LoadedOnce keys its calls positionally
loaded = time.perf_counter()
from affectlab.langid import detect_language
detect_language("hello")
identified = time.perf_counter()
head.predict(["hello"])
predicted = time.perf_counter()
print(imports_done - started, loaded - imports_done, identified - loaded, predicted - identified)
"""
"""Where the time of ``affectlab detect --fast "hello"`` goes, in a fresh interpreter: the command's imports,
loading the Ekman head's fast profile (its members are built when a text of their language comes), identifying
the language of "hello" (no function word settles it, so simplemma loads its English and Spanish dictionaries),
and labelling it (which builds the English member)."""
PROBE = """
import sys
from affectlab.cli import main
code = main(sys.argv[1:])
heavy = [name for name in {heavy!r} if name in sys.modules]
print("\\n@@" + " ".join(heavy), len(sys.modules), file=sys.stderr)
"""


def run_once(src: Path, args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of ``python -m affectlab ARGS`` importing affectlab from ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "affectlab", *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{args} failed in {src}: {process.stderr.read().decode()[-500:]}")
    process.stderr.close()
    return seconds, usage.ru_maxrss / 1024


def imported(src: Path, args: list[str]) -> dict[str, object]:
    """Which heavy libraries, and how many modules in all, the command leaves in ``sys.modules``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *args], env=env, capture_output=True, text=True, check=True
    )
    line = done.stderr.rsplit("@@", 1)[1].split()
    return {"heavy": line[:-1], "modules": int(line[-1])}


def breakdown(src: Path, runs: int) -> dict[str, float]:
    """Median seconds of each part of the fast detect path (see :data:`BREAKDOWN`)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    samples = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", BREAKDOWN], env=env, capture_output=True, text=True, check=True)
        samples.append([float(v) for v in done.stdout.split()])
    parts = ("imports of detect", "load the ekman head (fast)", 'language of "hello"', 'label "hello" (its member)')
    return {part: round(statistics.median(s[i] for s in samples), 3) for i, part in enumerate(parts)}


def worktree(rev: str, parent: Path) -> Path:
    """A checkout of ``rev`` under ``parent`` (removed by the caller with ``git worktree remove``)."""
    path = parent / "before"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(path), rev], check=True)
    return path


def measure(trees: dict[str, Path], runs: int) -> list[dict[str, object]]:
    """Per command and tree: median and best wall time, median peak RSS, and the heavy imports."""
    rows = []
    for label, args in COMMANDS.items():
        for tree in trees.values():  # warm the file cache and the bytecode of both trees first
            run_once(tree / "src", args)
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
        for _ in range(runs):
            for name, tree in trees.items():
                samples[name].append(run_once(tree / "src", args))
        for name, tree in trees.items():
            seconds = [s for s, _ in samples[name]]
            row = {
                "command": label,
                "tree": name,
                "median_s": round(statistics.median(seconds), 3),
                "best_s": round(min(seconds), 3),
                "peak_rss_mib": round(statistics.median(r for _, r in samples[name]), 1),
                **imported(tree / "src", args),
            }
            rows.append(row)
            print(row, flush=True)
    return rows


def git_commit(path: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(path), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="An earlier commit to measure beside this checkout.")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "cli_cold_start.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"this checkout": REPO}
        if args.before:
            trees = {"before": worktree(args.before, Path(tmp)), **trees}
        try:
            commits = {name: git_commit(tree) for name, tree in trees.items()}
            rows = measure(trees, args.runs)
        finally:
            if args.before:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(trees["before"])])
    record = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "runs": args.runs,
        "commits": commits,
        "rows": rows,
        "fast_detect_breakdown_s": breakdown(REPO / "src", args.runs),
    }
    args.out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print("| command | tree (commit) | median s | best s | peak RSS MiB | heavy libraries imported | modules |")
    print("|---|---|---:|---:|---:|---|---:|")
    for r in rows:
        heavy = ", ".join(r["heavy"]) or "none"
        tree = f"{r['tree']} ({commits[r['tree']]})"
        print(
            f"| `{r['command']}` | {tree} | {r['median_s']:.2f} | {r['best_s']:.2f} | {r['peak_rss_mib']:.0f} | "
            f"{heavy} | {r['modules']} |"
        )
    print('\nthis checkout, detect --fast "hello":', record["fast_detect_breakdown_s"])


if __name__ == "__main__":
    main()
