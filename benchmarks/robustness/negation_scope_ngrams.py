"""Negation scope in the n-gram member (issue 52), decided on dev: the default's ``tfidf-lr`` member of each
route, trained as the build trains it, with ``negation_scope`` of several lengths
(:mod:`affectlab.detectors.negation`), side by side: its dev score (the route's primary metric, decision tuned on
dev as the build tunes it) and the behavioural suite's dev templates in the route's language (negation, "not A but
B", clear, situations, neutral).

    python benchmarks/robustness/negation_scope_ngrams.py --data-dir ../shared/data

Writes ``benchmarks/results/negation_scope_ngrams[_LABEL].json``. Reads train and dev splits only.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

from affectlab.build.heads import tfidf_member
from affectlab.build.sources import joined_data
from affectlab.checklist import run_checklist
from affectlab.detectors import create_detector
from affectlab.detectors.default import RECIPES
from affectlab.evaluation.evaluate import evaluate
from affectlab.evaluation.training import train_detector

BENCHMARKS = Path(__file__).resolve().parents[1]
ROUTES = {"en": "en", "uk": "uk", "es": "es", "de": "de", "ru": "ru", "pt-BR": "pt", "ary": "ar", "hi": "hi"}
"""Each route of the ekman head measured, and the suite language it is read with."""
SUITE = ("negation", "not_a_but_b", "clear", "situation", "neutral")


def measure(route: str, suite_lang: str, data_dir: str, scope: int) -> dict[str, Any]:
    """One route's n-gram member with or without negation scope: dev score and suite dev rates."""
    recipe = RECIPES["ekman"]
    spec, data = joined_data(recipe, recipe.routes[route], data_dir)
    model = create_detector("tfidf-lr", **{**tfidf_member(route), "negation_scope": scope})
    train_detector(model, spec, data)
    dev = evaluate(model, spec, data, "dev", n_bootstrap=0).metrics["primary"]["value"]
    report = run_checklist(model, [suite_lang], split="dev")
    return {"dev": round(dev, 4), **{cap: report.result(suite_lang, cap).rate for cap in SUITE}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--words", type=int, nargs="+", default=[0, 1, 2, 4], help="scopes to compare (0: none)")
    parser.add_argument("--label", default="", help="written to negation_scope_ngrams_LABEL.json")
    parser.add_argument("--routes", nargs="+", default=list(ROUTES), help="routes of the ekman head to measure")
    args = parser.parse_args()
    started = time.perf_counter()
    results = {}
    for route in args.routes:
        suite_lang = ROUTES[route]
        results[route] = {f"scope {words}": measure(route, suite_lang, args.data_dir, words) for words in args.words}
        print(route, json.dumps(results[route]), flush=True)
    record = {
        "command": "python benchmarks/robustness/negation_scope_ngrams.py --data-dir ../shared/data "
        f"--routes {' '.join(args.routes)} --words {' '.join(map(str, args.words))}",
        "machine": f"{platform.processor() or platform.machine()}, {platform.system()}",
        "date": time.strftime("%Y-%m-%d"), "seconds": round(time.perf_counter() - started, 1), "results": results,
    }  # fmt: skip
    out = BENCHMARKS / "results" / f"negation_scope_ngrams{'_' + args.label if args.label else ''}.json"
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
