"""How much the source of the threshold-tuning rows matters on a small dev set: per-label thresholds tuned on dev
alone, on 5-fold out-of-fold train predictions alone, and on both, for several tfidf-lr settings.

    python benchmarks/quality/threshold_sources.py --data-dir ../shared/data [--dataset emobench-ua]

Prints the Markdown table of BENCHMARKS.md (no results file).
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from affectlab.datasets import resolve_dataset
from affectlab.detectors import create_detector
from affectlab.evaluation.training import out_of_fold_proba
from affectlab.metrics.classification import primary_score
from affectlab.metrics.thresholds import Decision, tune_thresholds

SETTINGS = [
    {"C": 2.0},
    {"C": 4.0},
    {"C": 8.0},
    {"C": 4.0, "class_weight": "balanced"},
    {"C": 2.0, "char_ngrams": [2, 5]},
    {"C": 2.0, "min_df": 2},
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--dataset", default="emobench-ua")
    args = parser.parse_args()
    spec, data = resolve_dataset(args.dataset, args.data_dir)
    space = spec.label_space
    train, dev, test = data["train"], data["dev"], data["test"]
    y_train, y_dev, y_test = (space.encode(d["labels"]) for d in (train, dev, test))
    print("| tfidf-lr setting | dev only | out-of-fold train only | dev + out-of-fold |")
    print("|---|---:|---:|---:|")
    for setting in SETTINGS:
        model = create_detector("tfidf-lr", **setting).fit(train, y_train, space)
        p_dev, p_test = model.predict_proba(dev), model.predict_proba(test)
        p_oof = out_of_fold_proba(model, train, y_train)
        sources = [(p_dev, y_dev), (p_oof, y_train), (np.vstack([p_dev, p_oof]), np.vstack([y_dev, y_train]))]
        scores = []
        for probs, gold in sources:
            decision = Decision("thresholds", tune_thresholds(probs, gold))
            scores.append(primary_score(spec.primary_metric, y_test, decision.apply(p_test, space), space))
        print(f"| {json.dumps(setting)} | " + " | ".join(f"{s:.3f}" for s in scores) + " |", flush=True)


if __name__ == "__main__":
    main()
