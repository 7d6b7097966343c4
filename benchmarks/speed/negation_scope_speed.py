"""The cost of negation scope in the n-gram members (issue 52): ``affectlab detect --input`` over the same 10,000
real texts (the speed.py mix: test splits of five datasets, at most 280 characters) with the ekman head before the
rebuild (``--before-heads``: its folder, e.g. ``git show HEAD~1:...`` written out) and with the shipped one, each a
new process (start-up, loading, language identification, the heads, writing the file), alternated, three times each;
the median wall time and CPU seconds count.

    python benchmarks/speed/negation_scope_speed.py --data-dir ../shared/data --before-heads runs/old_heads/ekman

Writes ``benchmarks/results/negation_scope_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
from pathlib import Path

from affectlab.detectors.default import HEADS_DIR
from default_encoder_speed import run_detect_file
from speed import tweet_texts

BENCHMARKS = Path(__file__).resolve().parents[1]
SRC = BENCHMARKS.parent / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--before-heads", type=Path, required=True, help="the ekman head before the rebuild")
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    heads = {"before": args.before_heads, "negation scope": HEADS_DIR / "ekman"}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in heads}
    with tempfile.TemporaryDirectory() as tmp:
        texts = Path(tmp) / "texts.txt"
        texts.write_text("\n".join(t.replace("\n", " ") for t in tweet_texts(args.data_dir, args.n)) + "\n")
        for run in range(args.runs):
            for name, folder in heads.items():
                out = Path(tmp) / f"out{run}_{len(runs[name])}_{name[0]}.csv"
                runs[name].append(run_detect_file(SRC, texts, out, "--model", str(folder)))
                print(name, runs[name][-1], flush=True)
    median = {name: {key: statistics.median(r[key] for r in found) for key in found[0]} for name, found in runs.items()}
    ratio = median["negation scope"]["texts_per_s"] / median["before"]["texts_per_s"]
    record = {
        "command": f"python benchmarks/speed/negation_scope_speed.py --data-dir {args.data_dir} --before-heads "
        f"{args.before_heads}",
        "machine": f"{platform.processor() or platform.machine()}, {platform.system()}",
        "date": time.strftime("%Y-%m-%d"), "runs": runs, "median": median, "throughput_ratio": round(ratio, 3),
    }  # fmt: skip
    (BENCHMARKS / "results" / "negation_scope_speed.json").write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(median), f"ratio {ratio:.3f}")


if __name__ == "__main__":
    main()
