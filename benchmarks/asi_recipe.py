"""Open-ended affective states on the local data: the collection recipe's size (MASIVE Table 1's columns), the
embedded predictor (``detect --open``) on the recipe's test sets with top-k accuracy and similarity (Table 4/6's
columns), and the fixed-label evaluation on GoEmotions 7 and 28 (Table 5/13's columns), beside the paper's numbers.

    pip install -e ".[bench]"
    python benchmarks/asi_recipe.py --data-dir ../shared/data

The recipe's corpus is two orders of magnitude smaller than MASIVE and is drawn from other sources (GoEmotions,
EmoContext and SemEval-2025 comments, not Reddit posts found by the templates), so its scores and the paper's are
printed side by side, not compared as equals.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from datetime import date
from pathlib import Path

from affectlab.datasets import resolve_dataset
from affectlab.openstates.collect.dataset import read_records
from affectlab.openstates.collect.recipe import build_recipe
from affectlab.openstates.contextual import default_embedder
from affectlab.openstates.evaluation import evaluate_open, fixed_label_eval
from affectlab.openstates.predictors import load_predictor
from affectlab.openstates.predictors.embedded import HEADS_DIR

PAPER = {
    "table1": {"en": {"train": 93736, "test": 10049, "unseen": 4720, "unique_states_train": 1627},
               "es": {"train": 30958, "test": 4274, "unseen": 1557, "unique_states_train": 1002}},
    "table4_T5_en": {"acc@1": 0.2005, "acc@3": 0.2944, "acc@5": 0.3464, "sim@1": 0.569, "sim@3": 0.673, "sim@5": 0.718},
    "table4_mT5_es": {"acc@1": 0.2451, "acc@3": 0.3616, "acc@5": 0.4123,
                      "sim@1": 0.610, "sim@3": 0.734, "sim@5": 0.781},
    "table6_T5_en": {"seen": {"acc@1": 0.3522, "acc@5": 0.5770}, "unseen": {"acc@1": 0.0292, "acc@5": 0.0861}},
    "table13_goemotions7_mT5_MAS": {"macro_precision": 0.3306, "macro_recall": 0.3981, "macro_f1": 0.2830,
                                    "acc@1": 0.1749, "acc@3": 0.3211, "acc@5": 0.3925},
    "table13_goemotions7_T5_En": {"macro_precision": 0.5677, "macro_recall": 0.2467, "macro_f1": 0.2109,
                                  "acc@1": 0.3853, "acc@3": 0.4795, "acc@5": 0.5574},
    "table13_goemotions27_mT5_MAS": {"macro_precision": 0.2708, "macro_recall": 0.1876, "macro_f1": 0.1192,
                                     "acc@1": 0.0754, "acc@3": 0.1222, "acc@5": 0.1516},
}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--limit", type=int, help="fixed-label: only the first N test texts (smoke test)")
    args = parser.parse_args()
    result: dict = {"paper": PAPER}
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        recipe = build_recipe(args.data_dir, scratch)
        result["recipe_seconds"] = round(time.perf_counter() - started, 1)
        result["recipe"] = {
            name: {k: entry[k] for k in ("corpus_texts", "posts", "states", "rounds", "held_out_states", "splits")}
            for name, entry in recipe["sets"].items()
        }
        predictor = load_predictor(HEADS_DIR)
        embedder = default_embedder()
        result["similarity_model"] = embedder.name
        result["open"] = {}
        for lang in ("en", "es"):
            test = [r for r in read_records(Path(scratch) / f"{lang}.jsonl") if r["split"] == "test"]
            result["open"][lang] = evaluate_open(predictor, test, 5, embedder)["report"]
    result["fixed_label"] = {}
    for dataset in ("goemotions-ekman", "goemotions"):
        spec, data = resolve_dataset(dataset, args.data_dir)
        rows = data["test"] if not args.limit else data["test"].select(range(args.limit))
        report = fixed_label_eval(predictor, dataset, rows, 5, spec.label_space)
        result["fixed_label"][dataset] = report
    result["machine"] = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    result["date"] = date.today().isoformat()
    out = Path(__file__).parent / "results" / ("asi_recipe-smoke.json" if args.limit else "asi_recipe.json")
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "paper"}, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
