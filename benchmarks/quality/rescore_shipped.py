"""Rescore a shipped head on every test set its build recorded (the ekman head: 28 track A and 11 track B sets,
EmoBench-UA, GoEmotions-Ekman) and compare each primary score with ``scores.json`` to the fourth decimal: the check
that a change of the scoring path left every output as it was (issue 42).

    python benchmarks/quality/rescore_shipped.py --data-dir ../shared/data --head ekman \
        --out benchmarks/results/rescore_ekman.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from datasets import DatasetDict

from affectlab.datasets import resolve_dataset
from affectlab.detectors.default import load_default, shipped_scores
from affectlab.evaluation.evaluate import evaluate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--head", default="ekman")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    recorded = shipped_scores()["heads"][args.head]["scores"]
    model = load_default(args.head)
    out = {}
    for name, entry in recorded.items():
        started = time.time()
        spec, data = resolve_dataset(name, args.data_dir)
        now = evaluate(model, spec, DatasetDict({"test": data["test"]}), n_bootstrap=1).metrics["primary"]["value"]
        out[name] = {"recorded": entry["test"], "now": now, "same_4dp": round(now, 4) == round(entry["test"], 4)}
        print(name, entry["test"], now, out[name]["same_4dp"], round(time.time() - started), flush=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
