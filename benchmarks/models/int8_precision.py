"""What ONNX Runtime's saturating int8 kernels cost on an x86 CPU without AVX-512 VNNI (issue 41's CI machine, an
AVX2-only AMD EPYC): the shipped default ekman head on every SemEval-2025 track A dev set (and test set, with
``--splits dev test``: 41,548 more texts, each encoded twice), its encoder run
with full int8 precision (``session.x64quantprecision=1``, what affectlab now always sets:
:data:`affectlab.encoders.onnx_encoder.EXACT_INT8`) and with the runtime's fast kernels (the setting at "0", what
affectlab ran before), side by side in one run. Each mode reads its own embedding cache. On a CPU with VNNI the
two modes give the same vectors and the table shows it.

    python benchmarks/models/int8_precision.py --data-dir ../shared/data [--splits dev test]

Writes ``benchmarks/results/int8_precision.json`` and prints the Markdown table of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

import affectlab.encoders.onnx_encoder as onnx_encoder
from affectlab.datasets import resolve_dataset
from affectlab.datasets.semeval2025 import LANGS
from affectlab.detectors.resolve import resolve_detector
from affectlab.encoders.sentence import forget_encoder
from affectlab.evaluation.evaluate import evaluate

OUT = Path(__file__).parents[1] / "results" / "int8_precision.json"
MODES = ("exact", "fast")


def cpu_flags() -> list[str]:
    """The CPU's AVX-512 and VNNI flags (empty on an AVX2-only CPU), from ``/proc/cpuinfo``."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return []
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("flags")), [])
    return sorted(flag for flag in flags if "vnni" in flag or flag.startswith(("avx512", "amx")))


@contextmanager
def kernels(mode: str) -> Iterator[None]:
    """Run the encoder with the exact kernels or the fast ones (and a cache of its own) within this block."""
    options, encoder_id = onnx_encoder.cpu_session_options, onnx_encoder.OnnxEncoder.id
    if mode == "fast":

        def fast_options(threads: int | None = None) -> Any:
            chosen = options(threads)
            chosen.add_session_config_entry(onnx_encoder.EXACT_INT8, "0")
            return chosen

        onnx_encoder.cpu_session_options = fast_options  # type: ignore[assignment]
        fast_id = property(lambda self: encoder_id.fget(self) + "-fast")  # type: ignore[attr-defined]
        onnx_encoder.OnnxEncoder.id = fast_id  # type: ignore[method-assign,assignment]
    forget_encoder("e5-affect")
    try:
        yield
    finally:
        onnx_encoder.cpu_session_options = options  # type: ignore[assignment]
        onnx_encoder.OnnxEncoder.id = encoder_id  # type: ignore[method-assign]
        forget_encoder("e5-affect")


def measure(data_dir: str, splits: list[str]) -> dict[str, Any]:
    """Scores and predicted label sets of both modes on each track A set of ``splits``."""
    record: dict[str, Any] = {
        "command": f"python benchmarks/models/int8_precision.py --data-dir ../shared/data --splits {' '.join(splits)}",
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
        "cpu_flags": cpu_flags() or "no AVX-512 or VNNI",
        "languages": {},
    }
    predictions: dict[tuple[str, str, str], np.ndarray] = {}
    for mode in MODES:
        with kernels(mode):
            detector = resolve_detector("default", "ekman")
            for code in LANGS:
                spec, data = resolve_dataset(f"semeval2025-{code}", data_dir)
                for split in splits:
                    run = evaluate(detector, spec, data, split, n_bootstrap=0)
                    entry = record["languages"].setdefault(code, {}).setdefault(split, {})
                    entry[mode] = round(run.metrics["primary"]["value"], 4)
                    predictions[(mode, code, split)] = run.outputs["pred"]
                print(mode, code, record["languages"][code], flush=True)
    for code, splits in record["languages"].items():
        for split, entry in splits.items():
            exact, fast = predictions[("exact", code, split)], predictions[("fast", code, split)]
            entry["same_labels"] = round(float(np.mean(np.all(exact == fast, axis=1))), 4)
    for split in splits:
        record[f"mean_{split}"] = {
            key: round(statistics.mean(s[split][key] for s in record["languages"].values()), 4)
            for key in (*MODES, "same_labels")
        }
    return record


def table(record: dict[str, Any], splits: list[str]) -> str:
    """The Markdown table: per language and split, the scores in both modes and the share of equal label sets."""
    head = [f"{split} {column}" for split in splits for column in (*MODES, "rows with the same labels")]
    lines = ["| language | " + " | ".join(head) + " |", "|---|" + "---:|" * len(head)]
    rows = [*record["languages"].items(), ("**mean**", {split: record[f"mean_{split}"] for split in splits})]
    for code, scores in rows:
        cells = [f"{scores[split][key]:.4f}" for split in splits for key in (*MODES, "same_labels")]
        lines.append(f"| {code} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--splits", nargs="+", choices=("dev", "test"), default=["dev"])
    args = parser.parse_args()
    record = measure(args.data_dir, args.splits)
    OUT.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(table(record, args.splits))


if __name__ == "__main__":
    main()
