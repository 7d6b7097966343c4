"""One encoder pass per batch (issue 22): ``affectlab detect --input`` over a file whose texts mix Ukrainian,
English and Spanish (real test texts, at most 280 characters, shuffled), for this tree and an earlier commit, each a
whole new process, alternating, ``--runs`` times each; then how many texts got another label set and the largest
score difference between the two trees' outputs (the int8 encoder's scores depend on a text's batch neighbours,
which one pass changes).

    python benchmarks/speed/one_encoder_pass.py --data-dir ../shared/data --before 7b07a36 [--n 6000] [--runs 3]

Writes ``benchmarks/results/one_encoder_pass.json``.
"""

from __future__ import annotations

import argparse
import csv
import json
import platform
import statistics
import subprocess
import tempfile
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd

from cli_cold_start import REPO, run_once, worktree
from speed import tweet_texts


def write_input(texts: list[str], path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text"])
        writer.writerows([text] for text in texts)


def compare(after: Path, before: Path) -> dict[str, float]:
    new, old = pd.read_csv(after), pd.read_csv(before)
    columns = [c for c in new.columns if c.startswith("score_")]
    difference = np.abs(new[columns].to_numpy() - old[columns].to_numpy())
    return {
        "labels_differ": int((new["labels"] != old["labels"]).sum()),
        "max_score_difference": round(float(difference.max()), 4),
        "mean_score_difference": round(float(difference.mean()), 5),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--before", required=True, help="The commit to compare with (before one encoder pass).")
    parser.add_argument("--n", type=int, default=6000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        source = work / "mixed.csv"
        write_input(tweet_texts(args.data_dir, args.n), source)
        trees = {"after": REPO, "before": worktree(args.before, work)}
        try:
            seconds: dict[str, list[float]] = {name: [] for name in trees}
            for run in range(args.runs):
                for name, tree in trees.items():
                    output = work / f"{name}-{run}.csv"
                    seconds[name].append(run_once(tree / "src", ["detect", "--input", str(source), "--output",
                                                                  str(output), "--json"])[0])  # fmt: skip
            agreement = compare(work / "after-0.csv", work / "before-0.csv")
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(trees["before"])], check=True)
    record = {
        "date": date.today().isoformat(),
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "texts": args.n,
        "before": args.before,
        "seconds": seconds,
        "median_s": {name: round(statistics.median(s), 2) for name, s in seconds.items()},
        "texts_per_s": {name: round(args.n / statistics.median(s), 1) for name, s in seconds.items()},
        **agreement,
    }
    out = REPO / "benchmarks" / "results" / "one_encoder_pass.json"
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
