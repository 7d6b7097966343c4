"""Speed of the fast profile end to end (issue 16): ``affectlab detect --fast --input`` over 20,000 lines of
SemEval-2025 eng train (its 2,759 texts repeated in order, 78 characters on average), each run a whole new process
(start-up, loading, language identification, n-gram features, heads, writing the file), timed by wall clock, for
this checkout and for earlier commits side by side in one run (the runs alternate between the trees); and the
fast profile's test scores beside those recorded in ``benchmarks/results/default_profiles.json`` (the model card's).

    python benchmarks/speed/fast_profile_speed.py --data-dir ../shared/data [--before d2d196b 26f778f] [--runs 3]

``d2d196b`` is the tree issue 16 measured (scikit-learn's analysers), ``26f778f`` the last commit before issue 16
(fitted vocabularies applied in Python). Writes ``benchmarks/results/fast_profile_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from affectlab.datasets import resolve_dataset
from affectlab.detectors.default import RECIPES, load_default
from affectlab.evaluation.evaluate import evaluate
from cli_cold_start import REPO, worktree
from default_encoder_speed import run_detect_file

N_LINES = 20_000
SCORE_TOLERANCE = 0.005


def lines_file(data_dir: str, path: Path) -> dict[str, float]:
    """SemEval-2025 eng train texts, one per line (inner line breaks as spaces), repeated to 20,000 lines."""
    texts = [" ".join(t.split()) for t in resolve_dataset("semeval2025-eng", data_dir)[1]["train"]["text"]]
    lines = [texts[i % len(texts)] for i in range(N_LINES)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"lines": len(lines), "mean_chars": round(sum(map(len, lines)) / len(lines), 1)}


def speeds(trees: dict[str, Path], texts_file: Path, work: Path, runs: int) -> dict[str, dict[str, float]]:
    """Median and best texts/s (and peak RSS) per tree over ``runs`` alternating runs, after one warm-up each."""
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for round_ in range(runs + 1):
        for i, (name, src) in enumerate(trees.items()):
            out = work / f"out{i}.jsonl"
            for stale in (out, out.with_name(out.name + ".progress.json")):
                stale.unlink(missing_ok=True)
            result = run_detect_file(src, texts_file, out, "--fast")
            if round_:  # the first round warms the file cache and the bytecode
                samples[name].append(result)
    return {
        name: {
            "median_texts_per_s": round(statistics.median(r["texts_per_s"] for r in rows), 1),
            "best_texts_per_s": round(max(r["texts_per_s"] for r in rows), 1),
            "median_seconds": round(statistics.median(r["seconds"] for r in rows), 2),
            "peak_rss_mib": round(max(r["peak_rss_mib"] for r in rows), 1),
        }
        for name, rows in samples.items()
    }


def fast_scores(data_dir: str) -> list[dict[str, object]]:
    """The fast profile's test score on every model-card test set, beside the recorded one (None for a test set
    the record predates, such as the 28 track A sets before issue 23)."""
    recorded_file = Path(__file__).parents[1] / "results" / "default_profiles.json"
    recorded = {row["dataset"]: row["fast"] for row in json.loads(recorded_file.read_text("utf-8"))["rows"]}
    rows = []
    for head, recipe in RECIPES.items():
        for name in recipe.scored_on:
            spec, data = resolve_dataset(name, data_dir)
            record = evaluate(load_default(head, True), spec, data, "test", n_bootstrap=100)  # keyed positionally
            score = round(record.metrics["primary"]["value"], 4)
            previous = recorded.get(name)
            difference = None if previous is None else round(score - previous, 4)
            within = None if difference is None else abs(difference) <= SCORE_TOLERANCE
            rows.append({"head": head, "dataset": name, "fast": score, "model_card": previous,
                         "difference": difference, "within_tolerance": within})  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--before", nargs="*", default=["d2d196b", "26f778f"], help="earlier commits to compare")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        texts_file = work / "lines.txt"
        corpus = lines_file(args.data_dir, texts_file)
        befores = {}
        for rev in args.before:
            (work / rev).mkdir()
            befores[f"before ({rev})"] = worktree(rev, work / rev)
        trees = {**{name: path / "src" for name, path in befores.items()}, "this checkout": REPO / "src"}
        try:
            result = {
                "machine": f"{platform.node()} ({platform.machine()}), Python {platform.python_version()}",
                "date": time.strftime("%Y-%m-%d"),
                **corpus,
                "runs": args.runs,
                "detect_fast_input": speeds(trees, texts_file, work, args.runs),
            }
        finally:
            for path in befores.values():
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(path)], check=False)
    print(json.dumps(result["detect_fast_input"], indent=1), flush=True)
    result["fast_test_scores"] = fast_scores(args.data_dir)
    out = Path(__file__).parents[1] / "results" / "fast_profile_speed.json"
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
