"""One Ekman head for all languages, or one per dataset? Trains ``embedding-lr`` (frozen multilingual-e5-small
embeddings + logistic regression; thresholds tuned on dev, per language where dev holds several) once on the
train/dev splits of EmoBench-UA, SemEval-2025 eng and esp and GoEmotions-Ekman joined, and once on each of them
alone, and scores both on each test split; for the two English test sets also a head trained on both English
datasets joined. This is the experiment behind the ``by-language`` default ekman head.

    python benchmarks/quality/joint_ekman.py --data-dir ../shared/data

Writes ``benchmarks/results/joint_ekman.json`` and prints the Markdown table that goes into BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

from affectlab.build.sources import joined_data
from affectlab.datasets import resolve_dataset
from affectlab.detectors import create_detector
from affectlab.detectors.default import HeadRecipe
from affectlab.evaluation.evaluate import evaluate
from affectlab.evaluation.training import train_detector
from affectlab.labels import EKMAN

DATASETS = ("emobench-ua", "goemotions-ekman", "semeval2025-esp", "semeval2025-eng")
ENGLISH = ("goemotions-ekman", "semeval2025-eng")


def test_score(model, name: str, data_dir: str) -> float:
    """The primary test metric of ``model`` on dataset ``name``."""
    spec, data = resolve_dataset(name, data_dir)
    return evaluate(model, spec, data, "test", n_bootstrap=10).metrics["primary"]["value"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    args = parser.parse_args()
    started = time.perf_counter()
    recipe = HeadRecipe("ekman", EKMAN, {}, ())
    joint = create_detector("embedding-lr")
    train_detector(joint, *joined_data(recipe, DATASETS, args.data_dir))
    english = create_detector("embedding-lr")
    train_detector(english, *joined_data(recipe, ENGLISH, args.data_dir))
    rows = []
    for name in DATASETS:
        alone = create_detector("embedding-lr")
        train_detector(alone, *resolve_dataset(name, args.data_dir))
        rows.append(
            {
                "dataset": name,
                "alone": round(test_score(alone, name, args.data_dir), 4),
                "joint": round(test_score(joint, name, args.data_dir), 4),
                "english_joint": round(test_score(english, name, args.data_dir), 4) if name in ENGLISH else None,
            }
        )
        print(rows[-1], flush=True)
    record = {
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "seconds": round(time.perf_counter() - started, 1),
        "rows": rows,
    }
    out = Path(__file__).parents[1] / "results" / "joint_ekman.json"
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print("| test set | trained on it alone | all four joined | both English joined |\n|---|---:|---:|---:|")
    for row in rows:
        english_joint = "" if row["english_joint"] is None else f"{row['english_joint']:.3f}"
        print(f"| {row['dataset']} | {row['alone']:.3f} | {row['joint']:.3f} | {english_joint} |")


if __name__ == "__main__":
    main()
