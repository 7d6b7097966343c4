"""How much a text's scores depend on the texts it is batched with, for the shipped int8 encoder: ONNX Runtime's
dynamic quantization gives each batch's activations one scale, so the same text can come out slightly
differently. On each Ekman test split, the encoder's fine-tuned ``ekman`` head is applied to vectors of each text
encoded alone and within the whole split (length-sorted batches of 32); a decision tuned on dev (whole-split
vectors) is applied to both.

    python benchmarks/models/int8_batch_dependence.py --data-dir ../shared/data

Writes ``benchmarks/results/int8_batch_dependence.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy.special import expit

from affectlab.datasets import resolve_dataset
from affectlab.encoders.onnx_encoder import OnnxEncoder
from affectlab.encoders.sentence import E5_AFFECT_DIR
from affectlab.labels import EKMAN
from affectlab.metrics.thresholds import fit_decision

DATASETS = ("emobench-ua", "semeval2025-esp", "semeval2025-eng")


def agreement(first: np.ndarray, second: np.ndarray, same: np.ndarray) -> dict[str, float]:
    """How far two probability matrices of the same texts are apart, and the share of label decisions (``same``:
    one boolean per text and label) and of whole texts whose decisions agree."""
    return {
        "mean_abs_dp": round(float(np.abs(first - second).mean()), 5),
        "max_abs_dp": round(float(np.abs(first - second).max()), 4),
        "decisions_unchanged": round(float(same.mean()), 5),
        "texts_unchanged": round(float(same.all(axis=1).mean()), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "int8_batch_dependence.json"))
    args = parser.parse_args()
    encoder = OnnxEncoder(E5_AFFECT_DIR)
    weight, bias = encoder.heads()["ekman"]
    result = {"date": time.strftime("%Y-%m-%d"), "sets": {}}
    for name in DATASETS:
        spec, data = resolve_dataset(name, args.data_dir)
        columns = [EKMAN.labels.index(label) for label in spec.label_space.labels]
        texts, dev = list(data["test"]["text"]), list(data["dev"]["text"])
        batched = expit(encoder.encode(texts) @ weight.T + bias)[:, columns]
        alone = expit(np.vstack([encoder.encode([text]) for text in texts]) @ weight.T + bias)[:, columns]
        dev_probs = expit(encoder.encode(dev) @ weight.T + bias)[:, columns]
        space = spec.label_space
        decision = fit_decision("thresholds", dev_probs, space.encode(data["dev"]["labels"]), space, "macro_f1")
        same = decision.apply(batched, space) == decision.apply(alone, space)
        result["sets"][name] = {"n": len(texts), **agreement(batched, alone, same)}
        print(name, result["sets"][name], flush=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
