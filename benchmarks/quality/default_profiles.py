"""Test scores of the shipped default heads in both profiles: the default (embedding + n-gram ensemble) and
``--fast`` (the n-gram member alone, with its own decision), on every test set of the model card.

    python benchmarks/quality/default_profiles.py --data-dir ../shared/data

Writes ``benchmarks/results/default_profiles.json`` and prints the Markdown table that goes into BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

from affectlab.datasets import resolve_dataset
from affectlab.detectors.default import RECIPES, load_default
from affectlab.evaluation.evaluate import evaluate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    args = parser.parse_args()
    rows = []
    for head, recipe in RECIPES.items():
        for name in recipe.scored_on:
            spec, data = resolve_dataset(name, args.data_dir)
            row = {"head": head, "dataset": name, "metric": spec.primary_metric}
            for profile, fast in (("default", False), ("fast", True)):
                started = time.perf_counter()
                record = evaluate(load_default(head, fast=fast), spec, data, "test", n_bootstrap=1000)
                row[profile] = round(record.metrics["primary"]["value"], 4)
                row[f"{profile}_ci95"] = [round(v, 4) for v in record.metrics["primary"]["ci95"]]
                row[f"{profile}_seconds"] = round(time.perf_counter() - started, 1)
            rows.append(row)
            print(row, flush=True)
    record = {
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "rows": rows,
    }
    out = Path(__file__).parents[1] / "results" / "default_profiles.json"
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print("| head | test set | metric | default (95 % CI) | fast (95 % CI) |\n|---|---|---|---|---|")
    for r in rows:
        low, high = r["default_ci95"]
        fast_low, fast_high = r["fast_ci95"]
        print(
            f"| {r['head']} | {r['dataset']} | {r['metric']} | {r['default']:.3f} ({low:.3f}-{high:.3f}) | "
            f"{r['fast']:.3f} ({fast_low:.3f}-{fast_high:.3f}) |"
        )


if __name__ == "__main__":
    main()
