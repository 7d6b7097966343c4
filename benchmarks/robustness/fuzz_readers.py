"""Fuzz every CLI path that reads a user's file with many more examples than the test suite runs.

Runs the properties of ``tests/test_fuzz_readers.py`` (strategies and checks in ``tests/fuzz_support.py``): exit 0
with one output row per input row, or exit 2 with one ``error:`` line, never a traceback, and no output that looks
complete after a failure. Unlike the tests, a failing example does not stop a reader: every failure is counted
(and the first few kept, with their input) and generation goes on, so the figures are "examples tried" and
"failures found". Writes ``benchmarks/results/fuzz_readers.json``.

    python benchmarks/robustness/fuzz_readers.py --examples 1000 [--readers detect.csv,annotate] [--seed 0]

The recorded run: ``python benchmarks/robustness/fuzz_readers.py --examples 1000 --seed 0``.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCHMARKS.parent / "tests"))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402

import affectlab  # noqa: E402
from fuzz_support import READERS  # noqa: E402

KEPT_FAILURES = 5


def fuzz(name: str, examples: int, random_seed: int) -> dict:
    """Run one reader's property on ``examples`` generated files; failures are recorded, not raised."""
    reader = READERS[name]
    tried, failures, outcomes = 0, [], collections.Counter()

    @seed(random_seed)
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=reader.cases())
    def run(case: object) -> None:
        nonlocal tried
        tried += 1
        with tempfile.TemporaryDirectory() as workdir:
            try:
                outcome = reader.check(case, Path(workdir))
            except AssertionError as exc:
                failures.append({"failure": str(exc).splitlines()[0][:500], "case": repr(case)[:2000]})
                outcomes["failed"] += 1
                return
        outcomes[f"exit {outcome.code}"] += 1

    started = time.perf_counter()
    run()
    seconds = time.perf_counter() - started
    kinds = collections.Counter(failure["failure"] for failure in failures)
    return {
        "examples": tried,
        "failures": len(failures),
        "seconds": round(seconds, 1),
        "outcomes": dict(sorted(outcomes.items())),
        "failure_kinds": dict(kinds.most_common()),
        "first_failures": failures[:KEPT_FAILURES],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1000, help="Generated files per reader.")
    parser.add_argument("--readers", default=",".join(READERS), help=f"Comma-separated, of: {', '.join(READERS)}.")
    parser.add_argument("--seed", type=int, default=0, help="Hypothesis seed (the same seed, the same files).")
    parser.add_argument("--out", type=Path, default=BENCHMARKS / "results" / "fuzz_readers.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:  # keep caches and the runs store out of the user's folders
        os.environ["AFFECTLAB_CACHE_DIR"] = str(Path(scratch) / "cache")
        os.environ["AFFECTLAB_RUNS_DB"] = str(Path(scratch) / "runs.sqlite")
        os.environ.pop("AFFECTLAB_DATA_DIR", None)
        results = {}
        for name in args.readers.split(","):
            results[name] = fuzz(name, args.examples, args.seed)
            row = results[name]
            print(f"{name}: {row['examples']} examples, {row['failures']} failures, {row['seconds']} s "
                  f"{row['outcomes']}", flush=True)  # fmt: skip
    record = {
        "benchmark": "fuzz_readers",
        "date": date.today().isoformat(),
        "command": " ".join(["python", "benchmarks/robustness/fuzz_readers.py", *sys.argv[1:]]),
        "examples_per_reader": args.examples,
        "seed": args.seed,
        "affectlab": affectlab.__version__,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "total_seconds": round(sum(row["seconds"] for row in results.values()), 1),
        "readers": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
