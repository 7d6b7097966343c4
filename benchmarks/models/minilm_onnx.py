"""The fine-tuned MiniLM-L6 that was the previous default goemotions head's third member (issue 6), exported by
``affectlab export-onnx`` (ONNX int8, no torch): size, speed and fidelity against the torch model it came from, on
the GoEmotions test split.

    python benchmarks/models/minilm_onnx.py --data-dir ../shared/data [--before d2d196b]

The member is read from the commit ``--before`` (checked out into a temporary git worktree). Decisions compared:
each label at the member's own probability 0.5 and at thresholds tuned on dev with the torch probabilities.
Writes ``benchmarks/results/minilm_onnx.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from affectlab.datasets import resolve_dataset
from affectlab.detectors import read_detector
from affectlab.detectors.onnx_hf import export_hf
from affectlab.metrics.classification import macro_f1
from affectlab.metrics.thresholds import fit_decision

sys.path.insert(0, str(Path(__file__).parents[1] / "speed"))
from cli_cold_start import REPO, worktree


def timed(model: object, split: object) -> tuple[np.ndarray, float]:
    started = time.perf_counter()
    probs = model.predict_proba(split)
    return probs, len(split) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--before", default="d2d196b")
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "minilm_onnx.json"))
    args = parser.parse_args()
    spec, data = resolve_dataset("goemotions", args.data_dir)
    with tempfile.TemporaryDirectory() as tmp:
        tree = worktree(args.before, Path(tmp))
        try:
            member = read_detector(tree / "src/affectlab/detectors/default_heads/goemotions").members_[2]
            exported = export_hf(member, Path(tmp) / "onnx")
            size = sum(p.stat().st_size for p in (Path(tmp) / "onnx").rglob("*") if p.is_file())
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], check=False)
        space = spec.label_space
        gold, dev_gold = space.encode(data["test"]["labels"]), space.encode(data["dev"]["labels"])
        torch_probs, torch_rate = timed(member, data["test"])
        onnx_probs, onnx_rate = timed(exported, data["test"])
        decision = fit_decision("thresholds", member.predict_proba(data["dev"]), dev_gold, space, "macro_f1")
    at_half = (torch_probs >= 0.5) == (onnx_probs >= 0.5)
    tuned = decision.apply(torch_probs, space) == decision.apply(onnx_probs, space)
    result = {
        "machine": f"{platform.node()} ({platform.machine()})",
        "date": time.strftime("%Y-%m-%d"),
        "n_test": len(gold),
        "onnx_int8_mb": round(size / 1e6, 1),
        "torch_texts_per_s": round(torch_rate, 1),
        "onnx_texts_per_s": round(onnx_rate, 1),
        "mean_abs_dp": round(float(np.abs(torch_probs - onnx_probs).mean()), 5),
        "max_abs_dp": round(float(np.abs(torch_probs - onnx_probs).max()), 4),
        "decisions_unchanged_at_0.5": round(float(at_half.mean()), 5),
        "decisions_unchanged_tuned": round(float(tuned.mean()), 5),
        "test_macro_f1_torch": round(macro_f1(gold, decision.apply(torch_probs, space)), 4),
        "test_macro_f1_onnx": round(macro_f1(gold, decision.apply(onnx_probs, space)), 4),
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
