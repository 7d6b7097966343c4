"""Which encoder member the default's EmoContext head should have on the 28-language encoder (issue 23): the
encoder's own fine-tuned ``emocontext`` head, or a logistic regression refitted on its vectors (at several C), each
in the default's ensemble with the same n-gram member.

Each variant is trained the way ``affectlab build-default`` trains the head (member weights and decision tuned on
dev). Since that tuning sees dev, dev itself is scored honestly by split halves: weights and decision tuned on one
random half of dev, scored on the other, and the other way round (``dev_halves``, the mean of the two). The choice
is made on that; the test score and the score of each member alone (its decision tuned on dev) are reported
beside it.

    python benchmarks/quality/emocontext_head.py --data-dir ../shared/data [--C 1,4,16]

Writes ``benchmarks/results/emocontext_head.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.build.heads import ENCODER, tfidf_member
from affectlab.datasets import resolve_dataset
from affectlab.detectors.ensemble import combine, tune_ensemble_weights
from affectlab.detectors.registry import create_detector
from affectlab.encoders.sentence import embedding_cache
from affectlab.evaluation.training import train_detector
from affectlab.metrics.classification import primary_score
from affectlab.metrics.thresholds import fit_decision

METRIC = "micro_f1_emotions"


def variants(c_values: list[float]) -> dict[str, dict[str, Any]]:
    """The encoder members to compare, by name."""
    members = {"fine-tuned head": {"encoder": ENCODER, "head": "emocontext"}}
    members.update({f"refit C={c:g}": {"encoder": ENCODER, "C": c} for c in c_values})
    return members


def dev_halves(probas: list[np.ndarray], gold: np.ndarray, space: Any, rule: str, seed: int = 0) -> float:
    """Mean score on one half of dev of weights and decision tuned on the other half (both ways)."""
    first = np.random.default_rng(seed).permutation(len(gold)) % 2 == 0
    scores = []
    for tune, held in ((first, ~first), (~first, first)):
        weights = tune_ensemble_weights([p[tune] for p in probas], gold[tune], space, METRIC, rule)
        decision = fit_decision(rule, combine([p[tune] for p in probas], weights), gold[tune], space, METRIC)
        predicted = decision.apply(combine([p[held] for p in probas], weights), space)
        scores.append(primary_score(METRIC, gold[held], predicted, space))
    return float(np.mean(scores))


def measure(data_dir: str, c_values: list[float]) -> dict[str, dict[str, Any]]:
    """Per variant: tuned weights, dev score (tuned there), dev halves, test, and each member alone on test."""
    spec, data = resolve_dataset("emocontext", data_dir)
    space = spec.label_space
    gold_dev, gold_test = space.encode(data["dev"]["labels"]), space.encode(data["test"]["labels"])
    results = {}
    for name, params in variants(c_values).items():
        started = time.perf_counter()
        model = create_detector("ensemble", member_params=[params, tfidf_member("")])
        train_detector(model, spec, data)
        dev = [member.predict_proba(data["dev"]) for member in model.members_]
        test = [member.predict_proba(data["test"]) for member in model.members_]
        alone = {
            f"{member.name} alone, test": primary_score(
                METRIC, gold_test, fit_decision(model.rule(), d, gold_dev, space, METRIC).apply(t, space), space
            )
            for member, d, t in zip(model.members_, dev, test, strict=True)
        }
        results[name] = {
            "weights": model.weights_.tolist(),
            "dev_tuned_on_dev": primary_score(
                METRIC, gold_dev, model.decision_.apply(combine(dev, model.weights_), space), space
            ),
            "dev_halves": dev_halves(dev, gold_dev, space, model.rule()),
            "test": primary_score(
                METRIC, gold_test, model.decision_.apply(combine(test, model.weights_), space), space
            ),
            **alone,
            "seconds": round(time.perf_counter() - started, 1),
        }
        print(name, {k: round(v, 4) if isinstance(v, float) else v for k, v in results[name].items()}, flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--C", default="1,4,16", help="the refit regressions' C values, comma-separated")
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "emocontext_head.json"))
    args = parser.parse_args()
    with embedding_cache():
        results = measure(args.data_dir, [float(c) for c in args.C.split(",")])
    best = max(results, key=lambda name: results[name]["dev_halves"])
    record = {"date": time.strftime("%Y-%m-%d"), "command": "python benchmarks/quality/emocontext_head.py --data-dir "
              f"{args.data_dir} --C {args.C}", "chosen_on_dev_halves": best, "variants": results}  # fmt: skip
    Path(args.out).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"chosen on dev halves: {best}")


if __name__ == "__main__":
    main()
