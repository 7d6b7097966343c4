"""A rebuilt heads folder against a reference one on every dev set, with each set's change read against its own
noise: a paired bootstrap over the set's texts (1,000 resamples, seed 0) gives the 90 % interval of candidate minus
reference, both scored on the same resampled texts. Issue 52's rule (``benchmarks/notes/issue52_decisions.md``,
sixth session) counts a set as lower when its drop exceeds 0.02 and this interval lies wholly below -0.01.

    python benchmarks/quality/heads_dev_paired.py --reference runs/cand_heads --candidate runs/issue52e-heads \\
        --label averaged_e

Writes ``benchmarks/results/heads_dev_paired_<label>.json`` and prints a table.
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
from affectlab.detectors.default import RECIPES, TAXONOMIES
from affectlab.evaluation.evaluate import evaluate
from affectlab.evaluation.training import label_metric
from affectlab.metrics.bootstrap import paired_difference_ci

RESULTS = Path(__file__).parents[1] / "results"
DROP_LINE = 0.02  # a set's point drop over this is looked at
NOISE_LINE = -0.01  # and counts when the whole 90 % interval of the change lies below this


def compare_set(reference: Any, candidate: Any, name: str, data_dir: str) -> dict[str, Any] | None:
    """Both models' dev scores on one dataset, the paired interval of the change and whether it counts as lower."""
    spec, data = resolve_dataset(name, data_dir)
    if "dev" not in data:
        return None
    runs = [evaluate(model, spec, data, "dev", n_bootstrap=0) for model in (reference, candidate)]
    before, after = (run.metrics["primary"]["value"] for run in runs)
    given, rebuilt = (run.outputs or {} for run in runs)
    metric = label_metric(spec)
    low, high = paired_difference_ci(given["gold"], given["pred"], rebuilt["pred"], spec.label_space, metric)
    change = after - before
    return {
        "n": runs[0].n,
        "reference": round(before, 4),
        "candidate": round(after, 4),
        "change": round(change, 4),
        "ci90": [round(low, 4), round(high, 4)],
        "lower": bool(change < -DROP_LINE and high < NOISE_LINE),
    }


def measure(reference_dir: Path, candidate_dir: Path, data_dir: str) -> dict[str, dict[str, Any]]:
    """``{head: {dataset: comparison}}`` for every head both folders hold."""
    found: dict[str, dict[str, Any]] = {}
    for head in TAXONOMIES:
        if not ((reference_dir / head).is_dir() and (candidate_dir / head).is_dir()):
            continue
        reference, candidate = read_detector(reference_dir / head), read_detector(candidate_dir / head)
        for name in RECIPES[head].scored_on:
            compared = compare_set(reference, candidate, name, data_dir)
            if compared is not None:
                found.setdefault(head, {})[name] = compared
                print(head, name, compared, flush=True)
    return found


def table(found: dict[str, dict[str, Any]]) -> str:
    """Markdown: one row per head and dev set, and each head's means."""
    header = "| head | dev set | n | reference | candidate | change | 90 % interval | lower |"
    lines = [header, "|---|---|" + "---:|" * 6]
    for head, sets in found.items():
        for name, row in sets.items():
            low, high = row["ci90"]
            cells = [str(row["n"]), f"{row['reference']:.4f}", f"{row['candidate']:.4f}", f"{row['change']:+.4f}"]
            cells += [f"[{low:+.4f}, {high:+.4f}]", "**yes**" if row["lower"] else ""]
            lines.append(f"| {head} | {name} | " + " | ".join(cells) + " |")
        means = [statistics.mean(row[key] for row in sets.values()) for key in ("reference", "candidate")]
        lines.append(
            f"| {head} | **mean of {len(sets)}** | | **{means[0]:.4f}** | **{means[1]:.4f}** | "
            f"**{means[1] - means[0]:+.4f}** | | |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default="../shared/data")
    parser.add_argument("--reference", type=Path, required=True, help="the heads folder compared against")
    parser.add_argument("--candidate", type=Path, required=True, help="the rebuilt heads folder")
    parser.add_argument("--label", required=True, help="writes benchmarks/results/heads_dev_paired_LABEL.json")
    args = parser.parse_args()
    record: dict[str, Any] = {
        "command": (
            f"python benchmarks/quality/heads_dev_paired.py --reference {args.reference} "
            f"--candidate {args.candidate} --label {args.label}"
        ),
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
        "rule": f"lower: change < -{DROP_LINE} and the paired 90 % interval wholly below {NOISE_LINE}",
        "scores": measure(args.reference, args.candidate, args.data_dir),
    }
    (RESULTS / f"heads_dev_paired_{args.label}.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(table(record["scores"]))


if __name__ == "__main__":
    main()
