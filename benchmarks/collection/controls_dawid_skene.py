"""Dawid-Skene with control answers as known truths against Dawid-Skene without them and majority vote, on
simulated crowds with spammers (issue 44, "Rules"). The crowd's truth is known, so each aggregation's accuracy is
measured on the ordinary (non-control) questions.

Each setting: 600 items, six labels (EmoBench-UA's emotions) each present with probability 0.15, 5 annotators per
item drawn from a pool, 10 % of items are control tasks. Diligent annotators have a sensitivity drawn from 0.6-0.9
and a specificity from 0.85-0.98; spammers are fast clickers (``random``: click rate 0.3-0.7; ``biased``: 0.05 or
0.9, "never anything" or "everything") or copiers (half of them copy another spammer). Three seeds per setting.

    python benchmarks/collection/controls_dawid_skene.py [--out benchmarks/results/controls_dawid_skene.json]

Prints each setting's JSON line; ``--out`` writes them all (recorded: ``benchmarks/results/controls_dawid_skene.json``).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np

from affectlab.annotation.aggregation import aggregate
from affectlab.annotation.readers import read_long
from affectlab.annotation.simulation import SimulatedAnnotator, simulate_ratings

LABELS = ("joy", "fear", "anger", "sadness", "disgust", "surprise")
ITEMS, CONTROL_SHARE, PER_ITEM, PREVALENCE, SEEDS = 600, 0.1, 5, 0.15, 3
SPAMMERS = ("random", "biased", "copier")
POOLS = (40, 150)
SHARES = (0.3, 0.5)


def crowd(spammers: str, pool: int, share: float, seed: int) -> list[SimulatedAnnotator]:
    """A pool whose first ``share`` are spammers of the kind ``spammers``, the rest diligent."""
    rng = random.Random(seed)
    annotators = []
    for i in range(pool):
        if i >= round(pool * share):
            sensitivity, specificity = rng.uniform(0.6, 0.9), rng.uniform(0.85, 0.98)
            annotators.append(SimulatedAnnotator(f"a{i}", "diligent", sensitivity, specificity))
        elif spammers == "copier" and i % 2:
            annotators.append(SimulatedAnnotator(f"a{i}", "copier", copies=f"a{i - 1}"))
        else:
            rate = rng.choice([0.05, 0.9]) if spammers == "biased" else rng.uniform(0.3, 0.7)
            annotators.append(SimulatedAnnotator(f"a{i}", "fast-clicker", click_rate=rate))
    return annotators


def accuracies(spammers: str, pool: int, share: float, seed: int) -> dict[str, float]:
    """Accuracy of each aggregation on the ordinary questions of one simulated crowd."""
    rng = random.Random(100 + seed)
    truth = {f"t{i}": frozenset(x for x in LABELS if rng.random() < PREVALENCE) for i in range(ITEMS)}
    controls = frozenset(list(truth)[: round(ITEMS * CONTROL_SHARE)])
    frame = simulate_ratings(truth, LABELS, crowd(spammers, pool, share, seed), PER_ITEM, controls, seed)
    ratings = read_long(frame, value_col="value", labels=list(LABELS))
    known = {(item, label): float(label in truth[item]) for item in controls for label in LABELS}
    runs = {
        "majority": aggregate(ratings, "majority"),
        "dawid-skene": aggregate(ratings, "dawid-skene"),
        "dawid-skene with controls": aggregate(ratings, "dawid-skene", controls=known),
    }
    out = {}
    for name, aggregation in runs.items():
        questions = aggregation.questions[~aggregation.questions["item"].isin(controls)]
        gold = [float(label in truth[item]) for item, label in zip(questions["item"], questions["label"], strict=True)]
        out[name] = float(np.mean(questions["value"].to_numpy() == np.array(gold)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    results = []
    for spammers in SPAMMERS:
        for pool in POOLS:
            for share in SHARES:
                runs = [accuracies(spammers, pool, share, seed) for seed in range(SEEDS)]
                mean = {name: round(float(np.mean([r[name] for r in runs])), 4) for name in runs[0]}
                results.append({"spammers": spammers, "pool": pool, "spammer_share": share, **mean})
                print(json.dumps(results[-1]), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
