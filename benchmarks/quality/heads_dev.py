"""The default heads on dev: each head of a heads folder (the shipped one by default, or one that
``affectlab build-default --out DIR`` wrote) scored on the dev split of every dataset it is scored on, so that a
rebuild is judged on dev before its test scores are read (issue 41). Both the shipped and a rebuilt head tuned their
thresholds and member weights on these dev splits, so the figures are optimistic alike and compare fairly.

    python benchmarks/quality/heads_dev.py --data-dir ../shared/data --label shipped
    python benchmarks/quality/heads_dev.py --data-dir ../shared/data --heads /tmp/heads --label rebuilt
    python benchmarks/quality/heads_dev.py --table shipped rebuilt

Writes ``benchmarks/results/heads_dev_<label>.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path
from typing import Any

from affectlab.datasets import resolve_dataset
from affectlab.detectors import read_detector
from affectlab.detectors.default import HEADS_DIR, RECIPES, TAXONOMIES
from affectlab.evaluation.evaluate import evaluate

RESULTS = Path(__file__).parents[1] / "results"


def measure(heads: Path, data_dir: str) -> dict[str, dict[str, float]]:
    """``{head: {dataset: dev primary score}}`` for every head in ``heads``."""
    scores: dict[str, dict[str, float]] = {}
    for head in TAXONOMIES:
        if not (heads / head).is_dir():
            continue
        model = read_detector(heads / head)
        for name in RECIPES[head].scored_on:
            spec, data = resolve_dataset(name, data_dir)
            if "dev" not in data:
                continue
            value = evaluate(model, spec, data, "dev", n_bootstrap=0).metrics["primary"]["value"]
            scores.setdefault(head, {})[name] = round(value, 4)
            print(head, name, scores[head][name], flush=True)
    return scores


def table(labels: list[str]) -> str:
    """Markdown: one row per head and dev set, one column per saved run, and each head's mean."""
    runs = {label: json.loads((RESULTS / f"heads_dev_{label}.json").read_text(encoding="utf-8")) for label in labels}
    first = runs[labels[0]]["scores"]
    lines = ["| head | dev set | " + " | ".join(labels) + " |", "|---|---|" + "---:|" * len(labels)]
    for head, sets in first.items():
        if not all(head in runs[label]["scores"] for label in labels):
            continue
        for name in sets:
            cells = [f"{runs[label]['scores'][head][name]:.4f}" for label in labels]
            lines.append(f"| {head} | {name} | " + " | ".join(cells) + " |")
        means = [f"**{statistics.mean(runs[label]['scores'][head].values()):.4f}**" for label in labels]
        lines.append(f"| {head} | **mean of {len(sets)}** | " + " | ".join(means) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default="../shared/data")
    parser.add_argument("--heads", type=Path, default=HEADS_DIR, help="a heads folder (default: the shipped one)")
    parser.add_argument("--label", help="name of this run (writes benchmarks/results/heads_dev_LABEL.json)")
    parser.add_argument("--table", nargs="+", help="print the table of these saved runs")
    args = parser.parse_args()
    if args.table:
        print(table(args.table))
        return
    if not args.label:
        parser.error("--label is required to measure")
    record: dict[str, Any] = {
        "command": f"python benchmarks/quality/heads_dev.py --heads {args.heads} --label {args.label}",
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
        "scores": measure(args.heads, args.data_dir),
    }
    (RESULTS / f"heads_dev_{args.label}.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(table([args.label]))


if __name__ == "__main__":
    main()
