"""What Spanish's none gate costs on its test set (issue 23): the shipped default's Spanish member scored with its
decision as shipped (the pooled member's ``none`` threshold as a gate) and without the gate, by the official track
A metric, with how many test texts each answers ``none`` (every Spanish test text has an emotion).

    python benchmarks/quality/none_gate_cost.py --data-dir ../shared/data

Writes ``benchmarks/results/none_gate_cost.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

from affectlab.datasets import resolve_dataset
from affectlab.detectors.default import load_default
from affectlab.labels import EKMAN
from affectlab.metrics.classification import primary_score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "none_gate_cost.json"))
    args = parser.parse_args()
    spec, data = resolve_dataset("semeval2025-esp", args.data_dir)
    test, member = data["test"], load_default("ekman").member("es")
    probs, gold = member.predict_proba(test), EKMAN.encode(test["labels"])
    columns = [EKMAN.labels.index(label) for label in spec.label_space.labels]
    shipped = member.decision_
    record = {"date": time.strftime("%Y-%m-%d"), "none_gate": shipped.none_gate, "n": len(test)}
    for name, decision in (("with gate", shipped), ("without gate", dataclasses.replace(shipped, none_gate=None))):
        predicted = decision.apply(probs, EKMAN)
        record[name] = {
            "official": primary_score("macro_f1_emotions", gold[:, columns], predicted[:, columns], spec.label_space),
            "texts_answered_none": int(predicted[:, EKMAN.labels.index("none")].sum()),
        }
        print(name, record[name])
    Path(args.out).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
