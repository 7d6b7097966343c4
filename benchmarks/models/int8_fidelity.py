"""How much int8 storage changes a fine-tuned encoder: the float32 model (``--fp32``, a saved ``hf`` model, e.g.
from ``affectlab train hf:...``) against the int8 member of the default goemotions head, on GoEmotions test, with
the float32 model's tuned thresholds applied to both.

    python benchmarks/models/int8_fidelity.py --fp32 models/minilm-goemotions --data-dir ../shared/data

Writes ``benchmarks/results/int8_fidelity.json`` and prints it.
"""

from __future__ import annotations

import argparse
import json
from datetime import date
from pathlib import Path

import numpy as np

from affectlab.datasets import resolve_dataset
from affectlab.detectors import read_detector
from affectlab.detectors.default import load_default
from affectlab.metrics.classification import macro_f1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fp32", required=True)
    parser.add_argument("--data-dir", required=True)
    args = parser.parse_args()
    spec, data = resolve_dataset("goemotions", args.data_dir)
    test = data["test"]
    fp32 = read_detector(args.fp32)
    int8 = load_default("goemotions").members_[2]
    int8.decision_ = fp32.decision_
    p32, p8 = fp32.predict_proba(test), int8.predict_proba(test)
    gold = spec.label_space.encode(test["labels"])
    y32, y8 = fp32.predict(test), int8.predict(test)
    result = {
        "n": len(test),
        "mean_abs_probability_difference": round(float(np.abs(p32 - p8).mean()), 5),
        "max_abs_probability_difference": round(float(np.abs(p32 - p8).max()), 4),
        "decisions_equal": round(float((y32 == y8).mean()), 5),
        "macro_f1_fp32": round(macro_f1(gold, y32), 4),
        "macro_f1_int8": round(macro_f1(gold, y8), 4),
        "date": date.today().isoformat(),
    }
    out = Path(__file__).parents[1] / "results" / "int8_fidelity.json"
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
