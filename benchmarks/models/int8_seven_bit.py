"""What an int8 encoder that the fast kernels run exactly costs in answers (issue 54): the shipped heads on every
dev set they are scored on, read with the shipped encoder (8-bit weights and activations, ONNX Runtime's exact
kernels, :data:`affectlab.encoders.onnx_encoder.EXACT_INT8`) and with each other encoder directory given (7-bit
weights from ``export_encoder(..., weight_bits=7)``, or any other), side by side in one run. ONNX Runtime's fast
x86 kernels without VNNI add pairs of u8 x s8 products in 16 bits; with 7-bit weights no pair can saturate, so they
run at the fast kernels' speed with exact answers. Per set: the score, the share of texts with the same label set,
and the paired 90 % bootstrap interval of the change.

    python benchmarks/models/int8_seven_bit.py --data-dir ../shared/data --encoder seven=runs/shipped-7bit-onnx

Writes ``benchmarks/results/int8_seven_bit.json`` and prints the Markdown table of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.datasets import resolve_dataset
from affectlab.detectors import read_detector
from affectlab.detectors.default import HEADS_DIR, RECIPES, TAXONOMIES
from affectlab.encoders import sentence
from affectlab.encoders.onnx_encoder import OnnxEncoder
from affectlab.evaluation.evaluate import evaluate
from affectlab.evaluation.training import label_metric
from affectlab.metrics.bootstrap import paired_difference_ci

OUT = Path(__file__).parents[1] / "results" / "int8_seven_bit.json"
SHIPPED = "shipped"


def predictions(encoder_dir: str | None, data_dir: str) -> dict[tuple[str, str], Any]:
    """``{(head, dataset): dev run}`` of the shipped heads, their encoder ``e5-affect`` read from ``encoder_dir``
    (the shipped one when None)."""
    shipped = sentence.ENCODERS["e5-affect"]
    if encoder_dir is not None:
        sentence.ENCODERS["e5-affect"] = lambda: OnnxEncoder(encoder_dir)
    sentence.forget_encoder("e5-affect")
    runs: dict[tuple[str, str], Any] = {}
    try:
        for head in TAXONOMIES:
            detector = read_detector(HEADS_DIR / head)
            for name in RECIPES[head].scored_on:
                spec, data = resolve_dataset(name, data_dir)
                if "dev" in data:
                    runs[(head, name)] = evaluate(detector, spec, data, "dev", n_bootstrap=0)
                    print(encoder_dir or SHIPPED, head, name, round(runs[(head, name)].metrics["primary"]["value"], 4))
    finally:
        sentence.ENCODERS["e5-affect"] = shipped
        sentence.forget_encoder("e5-affect")
    return runs


def compare(before: Any, after: Any, name: str, data_dir: str) -> dict[str, Any]:
    """One set's scores under both encoders, the share of equal label sets and the paired interval of the change."""
    spec, _ = resolve_dataset(name, data_dir)
    given, other = before.outputs or {}, after.outputs or {}
    low, high = paired_difference_ci(given["gold"], given["pred"], other["pred"], spec.label_space, label_metric(spec))
    score, changed = before.metrics["primary"]["value"], after.metrics["primary"]["value"]
    return {
        SHIPPED: round(score, 4),
        "other": round(changed, 4),
        "change": round(changed - score, 4),
        "same_labels": round(float(np.mean(np.all(given["pred"] == other["pred"], axis=1))), 4),
        "ci90": [round(low, 4), round(high, 4)],
    }


def measure(encoders: dict[str, str], data_dir: str) -> dict[str, Any]:
    """Every dev set's comparison for each named encoder directory against the shipped encoder."""
    reference = predictions(None, data_dir)
    found: dict[str, Any] = {}
    for label, directory in encoders.items():
        runs = predictions(directory, data_dir)
        rows = {f"{head} {name}": compare(reference[(head, name)], runs[(head, name)], name, data_dir)
                for head, name in runs}  # fmt: skip
        ekman = [row for key, row in rows.items() if key.startswith("ekman ")]
        found[label] = {
            "directory": directory,
            "sets": rows,
            "ekman_mean": {key: round(statistics.mean(row[key] for row in ekman), 4) for key in (SHIPPED, "other")},
            "largest_drop": min(row["change"] for row in rows.values()),
        }
    return found


def table(found: dict[str, Any]) -> str:
    """Markdown: per dev set, the shipped score and each encoder's change and share of equal label sets."""
    labels = list(found)
    header = "| head and dev set | shipped | " + " | ".join(f"{label}: change, same labels" for label in labels) + " |"
    lines = [header, "|---|---:|" + "---:|" * len(labels)]
    for key in found[labels[0]]["sets"]:
        first = found[labels[0]]["sets"][key]
        cells = [f"{found[label]['sets'][key]['change']:+.4f}, {found[label]['sets'][key]['same_labels']:.3f}"
                 for label in labels]  # fmt: skip
        lines.append(f"| {key} | {first[SHIPPED]:.4f} | " + " | ".join(cells) + " |")
    means = [f"{found[label]['ekman_mean']['other']:.4f}" for label in labels]
    lines.append(f"| **ekman mean** | {found[labels[0]]['ekman_mean'][SHIPPED]:.4f} | " + " | ".join(means) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--encoder", action="append", required=True, metavar="LABEL=DIR",
                        help="an encoder directory to read the shipped heads with (repeatable)")  # fmt: skip
    args = parser.parse_args()
    encoders = dict(item.split("=", 1) for item in args.encoder)
    record: dict[str, Any] = {
        "command": "python benchmarks/models/int8_seven_bit.py --data-dir ../shared/data "
        + " ".join(f"--encoder {item}" for item in args.encoder),
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
        "encoders": measure(encoders, args.data_dir),
    }
    OUT.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(table(record["encoders"]))


if __name__ == "__main__":
    main()
