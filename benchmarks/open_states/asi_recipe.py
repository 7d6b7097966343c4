"""Open-ended affective states on the local data: the collection recipe's size (MASIVE Table 1's columns), the
shipped open-vocabulary predictor (``detect --open``) and the closed classifier it replaced, rebuilt on the same
train split, on the recipe's test sets with top-k accuracy and similarity (Table 4/6's columns), and the
fixed-label evaluation on GoEmotions 7 and 28 (Table 5/13's columns), beside the paper's numbers.

    pip install -e ".[bench]"
    python benchmarks/open_states/asi_recipe.py --data-dir ../shared/data [--model DIR] [--out FILE]

The recipe's corpus (CARER's "i feel" tweets, GoEmotions, EmoContext, SemEval-2025) is not MASIVE's Reddit corpus,
so its scores and the paper's are printed side by side, not compared as equals. The shipped predictor must have been
built from the same recipe (``asi build-default``): the script checks that its training counts match. ``--model``
scores a rebuilt predictor beside it ("rebuilt"), so before and after come from one run.

Writes ``benchmarks/results/asi_recipe.json`` (``asi_recipe-smoke.json`` with ``--limit``; or ``--out``) and prints it.
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
from typing import Any

from affectlab.datasets import resolve_dataset
from affectlab.openstates.collect.dataset import read_records
from affectlab.openstates.collect.recipe import build_recipe
from affectlab.openstates.contextual import default_embedder
from affectlab.openstates.evaluation import evaluate_open, fixed_label_eval
from affectlab.openstates.predictors import load_predictor
from affectlab.openstates.predictors.embedded import build_closed, recipe_examples
from affectlab.openstates.predictors.open_vocabulary import HEADS_DIR

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
    parser.add_argument("--model", help="a rebuilt open predictor's folder, scored beside the shipped one")
    parser.add_argument("--out", help="where to write the JSON (default: results/asi_recipe.json)")
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
        shipped = load_predictor(HEADS_DIR)
        _check_same_split(shipped, recipe_examples(scratch))
        predictors = {"open": shipped}
        if args.model:
            predictors["rebuilt"] = load_predictor(args.model)
            _check_same_split(predictors["rebuilt"], recipe_examples(scratch))
        predictors["closed"] = build_closed(scratch, args.data_dir, Path(scratch) / "closed")
        embedder = default_embedder()
        result["similarity_model"] = embedder.name
        result["open"] = {name: {} for name in predictors}
        for lang in ("en", "es"):
            test = [r for r in read_records(Path(scratch) / f"{lang}.jsonl") if r["split"] == "test"]
            for name, predictor in predictors.items():
                result["open"][name][lang] = evaluate_open(predictor, test, 5, embedder)["report"]
                result["open"][name][lang]["test_states_among_candidates"] = _coverage(predictor, test, lang)
    result["fixed_label"] = {name: {} for name in predictors}
    for dataset in ("goemotions-ekman", "goemotions"):
        spec, data = resolve_dataset(dataset, args.data_dir)
        rows = data["test"] if not args.limit else data["test"].select(range(args.limit))
        for name, predictor in predictors.items():
            result["fixed_label"][name][dataset] = fixed_label_eval(predictor, dataset, rows, 5, spec.label_space)
    result["machine"] = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    result["date"] = date.today().isoformat()
    out = (
        Path(args.out)
        if args.out
        else Path(__file__).parents[1] / "results" / ("asi_recipe-smoke.json" if args.limit else "asi_recipe.json")
    )
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "paper"}, indent=1, ensure_ascii=False))


def _check_same_split(shipped: Any, examples: dict[str, tuple[list[str], list[str]]]) -> None:
    """Refuse to score a shipped predictor that was trained on another recipe than the one just collected."""
    for lang, (_, states) in examples.items():
        trained = shipped.training_.get(lang, {})
        if trained.get("examples") != len(states) or trained.get("seen_states") != len(set(states)):
            raise SystemExit(f"the shipped predictor was not built from this recipe ({lang}: {trained}); rebuild it")


def _coverage(predictor: Any, records: list[dict], lang: str) -> float:
    """The share of the test masks whose gold state the predictor can name at all."""
    known = set(getattr(predictor, "candidates_", getattr(predictor, "terms_", {})).get(lang, ()))
    gold = [term for record in records for term in record["terms"]]
    return round(sum(term in known for term in gold) / len(gold), 4) if gold else float("nan")


if __name__ == "__main__":
    main()
