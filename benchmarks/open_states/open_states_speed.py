"""How fast ``detect --open`` answers (issue 34: "within 0.5 s for one text after start-up, offline, no torch"),
measured side by side in one run on this checkout:

* one text after start-up (the predictor loaded and one call made): ``affectlab.detect_open`` on each of the recipe's
  English test posts in turn (``--texts`` of them), one call per text, with the shipped open-vocabulary predictor
  and with the closed classifier it replaced (``--closed DIR``: a saved one, e.g. the 85-term predictor shipped
  before, written out with ``git show``; default: rebuilt from the recipe, which takes about 20 minutes here):
  median, 95th percentile and worst call;
* the same with a user's 500 extra states (``--states FILE``), whose vectors are computed once, at the first call;
* the whole command, start-up included: ``affectlab detect --open TEXT --json`` as a new process, median of
  ``ROUNDS``;
* whether torch was imported by the calls (it must not be).

    python benchmarks/open_states/open_states_speed.py --data-dir ../shared/data

Writes ``benchmarks/results/open_states_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCHMARKS / "speed"))

import affectlab  # noqa: E402
from affectlab.openstates.collect.dataset import read_records  # noqa: E402
from affectlab.openstates.collect.recipe import build_recipe  # noqa: E402
from affectlab.openstates.lexicon import default_states  # noqa: E402
from affectlab.openstates.predictors import load_predictor, resolve_predictor  # noqa: E402
from affectlab.openstates.predictors.embedded import build_closed  # noqa: E402
from default_encoder_speed import run_header  # noqa: E402

ROUNDS = 5
OUT = BENCHMARKS / "results" / "open_states_speed.json"


def per_call(texts: list[str], model: object, states: list[str] | None = None) -> dict[str, float]:
    """Seconds per ``detect_open`` call, one text each, after one warm-up call."""
    affectlab.detect_open(texts[0], lang="en", model=model, states=states)
    seconds = []
    for text in texts:
        started = time.perf_counter()
        affectlab.detect_open(text, lang="en", model=model, states=states)
        seconds.append(time.perf_counter() - started)
    seconds.sort()
    return {
        "median_s": round(statistics.median(seconds), 4),
        "p95_s": round(seconds[int(0.95 * (len(seconds) - 1))], 4),
        "max_s": round(seconds[-1], 4),
        "calls": len(seconds),
    }


def whole_command(text: str) -> dict[str, float]:
    """``affectlab detect --open TEXT --json`` as a new process, start-up included."""
    seconds = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "affectlab", "detect", "--open", text, "--json"], check=True, capture_output=True
        )
        seconds.append(time.perf_counter() - started)
    return {"median_s": round(statistics.median(seconds), 3), "rounds": ROUNDS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--closed", help="a saved closed predictor's folder (default: rebuilt from the recipe)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        build_recipe(args.data_dir, scratch)
        test = [r["masked"] for r in read_records(Path(scratch) / "en.jsonl") if r["split"] == "test"]
        texts = test[: args.texts]
        if args.closed:
            closed = load_predictor(args.closed)
        else:
            closed = build_closed(scratch, args.data_dir, Path(scratch) / "closed", progress=lambda _s: None)
        started = time.perf_counter()
        shipped = resolve_predictor("default")
        loaded_s = time.perf_counter() - started
        extra = [f"{state}-ish" for state in default_states("en")[:500]]
        result = {
            **run_header(texts),
            "load_s": round(loaded_s, 3),
            "open": per_call(texts, shipped),
            "open_with_500_user_states": per_call(texts, shipped, extra),
            "closed": per_call(texts, closed),
            "closed_from": args.closed or "rebuilt from the recipe",
            "whole_command": whole_command(texts[0]),
            "torch_imported": "torch" in sys.modules,
        }
    OUT.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
