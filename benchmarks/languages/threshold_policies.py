"""Where each language's thresholds should come from (issue 23): its own dev set, the dev sets of all languages
pooled, or the average of the two, measured on dev by repeated split halves.

Out-of-fold train predictions are not an option for the default's encoder member: the encoder was fine-tuned on
every training text, so its train probabilities are those of texts it has seen. What can be measured is how well
thresholds tuned on one half of a language's dev set do on the other half, for each source of thresholds:

* ``own``: tuned on the language's half alone;
* ``pooled``: tuned on the language's half plus every other language's whole dev set;
* ``mean``: the average of the two.

Probabilities are the fine-tuned encoder's ekman head (the default's main member) on each dev text; the score is the
language's official metric (macro-F1 over its emotion columns), averaged over ``--repeats`` random halvings.

    python benchmarks/languages/threshold_policies.py --data-dir ../shared/data [--encoder DIR] [--repeats 20]

Writes ``benchmarks/results/threshold_policies.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy.special import expit

from affectlab.datasets import resolve_dataset
from affectlab.datasets.semeval2025 import LANGS
from affectlab.encoders.sentence import embed, get_encoder
from affectlab.labels import EKMAN
from affectlab.metrics.classification import primary_score
from affectlab.metrics.thresholds import Decision, tune_thresholds

POLICIES = ("own", "pooled", "mean")


def dev_probabilities(data_dir: str, encoder: str) -> dict[str, tuple[np.ndarray, np.ndarray, object]]:
    """Per language: the ekman head's probabilities on its dev texts, the gold matrix and its label space."""
    weight, bias = get_encoder(encoder).heads()["ekman"]  # type: ignore[attr-defined]
    out = {}
    for code in LANGS:
        name = "emobench-ua" if code == "ukr" else f"semeval2025-{code}"
        dev = resolve_dataset(name, data_dir)[1]["dev"]
        probs = expit(embed(list(dev["text"]), encoder) @ weight.T + bias)
        gold = EKMAN.encode(dev["labels"])
        out[code] = (probs, gold, resolve_dataset(f"semeval2025-{code}", data_dir)[0].label_space)
    return out


def score(probs: np.ndarray, gold: np.ndarray, thresholds: np.ndarray, space: object) -> float:
    """The official track A score of the language (its emotion columns) under ``thresholds``."""
    predicted = Decision("thresholds", thresholds).apply(probs, EKMAN)
    columns = [EKMAN.labels.index(label) for label in space.labels]  # type: ignore[attr-defined]
    return primary_score("macro_f1_emotions", gold[:, columns], predicted[:, columns], space)  # type: ignore[arg-type]


def measure(probabilities: dict, repeats: int, seed: int = 0) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(seed)
    results = {}
    for code, (probs, gold, space) in probabilities.items():
        others = [c for c in probabilities if c != code]
        pooled_p = np.vstack([probabilities[c][0] for c in others])
        pooled_y = np.vstack([probabilities[c][1] for c in others])
        scores: dict[str, list[float]] = {policy: [] for policy in POLICIES}
        for _ in range(repeats):
            order = rng.permutation(len(probs))
            tune, held = order[: len(order) // 2], order[len(order) // 2 :]
            own = tune_thresholds(probs[tune], gold[tune])
            pooled = tune_thresholds(np.vstack([probs[tune], pooled_p]), np.vstack([gold[tune], pooled_y]))
            for policy, thresholds in zip(POLICIES, (own, pooled, (own + pooled) / 2), strict=True):
                scores[policy].append(score(probs[held], gold[held], thresholds, space))
        results[code] = {"dev_rows": len(probs), **{p: round(float(np.mean(v)), 4) for p, v in scores.items()}}
        print(code, results[code], flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--encoder", default="e5-affect")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    results = measure(dev_probabilities(args.data_dir, args.encoder), args.repeats)
    means = {p: round(float(np.mean([r[p] for r in results.values()])), 4) for p in POLICIES}
    out = Path(__file__).parents[1] / "results" / "threshold_policies.json"
    record = {"date": time.strftime("%Y-%m-%d"), "encoder": args.encoder, "repeats": args.repeats, "mean": means,
              "per_language": results}  # fmt: skip
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print("mean over 28:", means)


if __name__ == "__main__":
    main()
