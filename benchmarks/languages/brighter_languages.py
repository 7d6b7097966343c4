"""The default ekman head on the 28 SemEval-2025 Task 11 track A test sets (official score: macro-F1 over the
language's emotion columns, 95 % bootstrap interval) and, where it rates intensity, on the 11 track B test sets
(Pearson's r per emotion, averaged), beside BRIGHTER's Table 5 (best monolingual fine-tuned encoder), Table 2 (best
few-shot LLM) and Table 3 (intensity) from ``benchmarks/data/brighter_paper_scores.json`` (issue 23).

    python benchmarks/languages/brighter_languages.py measure --data-dir ../shared/data --label after_issue23
    python benchmarks/languages/brighter_languages.py table --label after_issue23 --before before_issue23

``measure`` writes ``benchmarks/results/brighter_languages_<label>.json`` (each row read as its language, from the
dataset's ``lang`` column); ``table`` prints the Markdown tables of BENCHMARKS.md from such files.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

from affectlab.datasets import resolve_dataset
from affectlab.datasets.semeval2025 import INTENSITY_SPLITS, LANGS, LANGUAGE_NAMES
from affectlab.detectors.resolve import resolve_detector
from affectlab.evaluation.evaluate import evaluate

BENCHMARKS = Path(__file__).resolve().parents[1]
PAPER = json.loads((BENCHMARKS / "data" / "brighter_paper_scores.json").read_text(encoding="utf-8"))


def measure(data_dir: str, label: str) -> Path:
    """Score the default ekman head on every track A (and track B, if it rates intensity) test set."""
    detector = resolve_detector("default", "ekman")
    machine = f"{platform.machine()}, {platform.processor() or 'cpu'}"
    record = {"label": label, "date": time.strftime("%Y-%m-%d"), "machine": machine, "track_a": {}, "track_b": {}}
    for code in LANGS:
        spec, data = resolve_dataset(f"semeval2025-{code}", data_dir)
        run = evaluate(detector, spec, data, "test", n_bootstrap=1000)
        primary = run.metrics["primary"]
        record["track_a"][code] = {"score": primary["value"], "ci95": primary["ci95"], "n": run.n}
        print(code, round(primary["value"], 4), flush=True)
    if detector.capabilities.rates_intensity:
        for code in INTENSITY_SPLITS:
            spec, data = resolve_dataset(f"semeval2025-{code}-intensity", data_dir)
            run = evaluate(detector, spec, data, "test", n_bootstrap=1000)
            primary = run.metrics["primary"]
            record["track_b"][code] = {"score": primary["value"], "ci95": primary["ci95"], "n": run.n,
                                       "per_emotion": run.metrics["intensity_per_label"],
                                       "unrounded": run.metrics["pearson_unrounded"]}  # fmt: skip
            print(code, "intensity", round(primary["value"], 4), flush=True)
    out = BENCHMARKS / "results" / f"brighter_languages_{label}.json"
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return out


def _load(label: str | None) -> dict | None:
    if label is None:
        return None
    return json.loads((BENCHMARKS / "results" / f"brighter_languages_{label}.json").read_text(encoding="utf-8"))


def table(label: str, before: str | None) -> None:
    """Print the track A and track B tables (scores x 100, as the paper gives them)."""
    ours, old = _load(label), _load(before)
    assert ours is not None
    print("| language | ours (95 % CI) | before | BRIGHTER Table 5 best fine-tuned | Table 2 best few-shot LLM |")
    print("|---|---|---|---|---|")
    wins, rows = 0, 0
    for code in LANGS:
        mine = ours["track_a"][code]
        paper = PAPER["track_a"].get(code, {})
        fine, few = paper.get("table5_best"), paper.get("table2_best_few_shot")
        if fine is not None:
            rows += 1
            wins += mine["score"] * 100 >= fine["score"]
        low, high = (round(v * 100, 1) for v in mine["ci95"])
        cells = [
            f"{LANGUAGE_NAMES[code]} ({code})",
            f"**{mine['score'] * 100:.1f}** ({low}-{high})",
            f"{old['track_a'][code]['score'] * 100:.1f}" if old else "",
            f"{fine['score']:.1f} ({fine['model']})" if fine else "-",
            f"{few['score']:.1f} ({few['model']})" if few else "-",
        ]
        print("| " + " | ".join(cells) + " |")
    mean = statistics.mean(v["score"] for v in ours["track_a"].values())
    print(f"\nmean over 28: {mean * 100:.1f}; at or above Table 5's best in {wins} of its {rows} languages")
    if ours["track_b"]:
        print("\n| language | ours, Pearson r (95 % CI) | unrounded | Table 3 best encoder | Table 3 best LLM |")
        print("|---|---|---|---|---|")
        for code, mine in ours["track_b"].items():
            paper = PAPER["track_b"].get(code)
            low, high = (round(v * 100, 1) for v in mine["ci95"])
            cells = [
                f"{LANGUAGE_NAMES[code]} ({code})", f"**{mine['score'] * 100:.1f}** ({low}-{high})",
                f"{mine['unrounded'] * 100:.1f}",
                f"{paper['best_mlm']['score']:.1f} ({paper['best_mlm']['model']})" if paper else "-",
                f"{paper['best_llm']['score']:.1f} ({paper['best_llm']['model']})" if paper else "-",
            ]  # fmt: skip
            print("| " + " | ".join(cells) + " |")
        intensity = statistics.mean(v["score"] for v in ours["track_b"].values())
        print(f"\nmean over {len(ours['track_b'])}: {intensity * 100:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("measure", "table"))
    parser.add_argument("--data-dir")
    parser.add_argument("--label", required=True)
    parser.add_argument("--before")
    args = parser.parse_args()
    if args.mode == "measure":
        print(measure(args.data_dir, args.label))
    else:
        table(args.label, args.before)


if __name__ == "__main__":
    main()
