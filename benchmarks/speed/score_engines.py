"""Rows/s of ``affectlab score`` with the local engine and with Ray Data on this machine, on the same Parquet file of
real texts (the default ekman head, or its fast profile with ``--fast``), each timed end to end in a fresh process
(start-up, model loading and writing included), Ray with 1 and 2 workers on a local instance.

    pip install -e ".[scale,bench]"
    python benchmarks/speed/score_engines.py --data-dir ../shared/data [--rows 20000] [--fast]

Writes ``benchmarks/results/score_engines.json`` (``score_engines-fast.json`` with ``--fast``) and prints it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import pandas as pd

from affectlab.datasets import resolve_dataset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    texts: list[str] = []
    for name in ("goemotions", "emobench-ua", "semeval2025-esp", "semeval2025-eng"):
        data = resolve_dataset(name, args.data_dir)[1]
        texts += [t for split in data for t in data[split]["text"]]
    texts = (texts * (args.rows // len(texts) + 1))[: args.rows]
    runs = []
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "texts.parquet"
        pd.DataFrame({"id": range(len(texts)), "text": texts}).to_parquet(source)
        settings = [("local", None), ("ray", 1), ("ray", 2)]
        for engine, workers in settings:
            command = [sys.executable, "-m", "affectlab", "score", "--input", str(source), "--output",
                       str(Path(scratch) / f"{engine}-{workers}"), "--engine", engine, "--json"]  # fmt: skip
            command += ["--workers", str(workers)] if workers else []
            command += ["--fast"] if args.fast else []
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            seconds = time.perf_counter() - started
            runs.append({"engine": engine, "workers": workers, "seconds": round(seconds, 1),
                         "rows_per_s": round(len(texts) / seconds, 1)})  # fmt: skip
            print(runs[-1], flush=True)
    result = {
        "rows": len(texts),
        "profile": "fast (n-gram heads)" if args.fast else "default (embeddings + n-grams)",
        "runs": runs,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "date": date.today().isoformat(),
    }
    out = Path(__file__).parents[1] / "results" / f"score_engines{'-fast' if args.fast else ''}.json"
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
