"""Speed of the crowd annotation library at scale: 100,000 items rated by 5 annotators on 6 binary labels.

The ratings are synthetic and seeded: each label has its own prevalence (3-25 %), and each annotator a
sensitivity and specificity per label (one careless annotator among them), so the models have real noise to
untangle. They are written in the long layout (item, annotator, label, value: 3 million rows for the defaults) to a
temporary CSV file, then timed step by step: reading the file (:func:`read_long`), :func:`aggregate` with majority
vote and with Dawid-Skene (one model per label, crowd-kit), and :func:`agreement_report` with 1,000 bootstrap
resamples (crowd-kit and krippendorff are imported before the clock starts). The issue's target: aggregating
100,000 items x 5 annotators in under a minute on a 2-core machine.

    python benchmarks/collection/annotation_speed.py [--items 100000] [--bootstrap 1000]

Writes ``benchmarks/results/annotation_speed.json`` and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from affectlab.annotation import aggregate, agreement_report, read_long

LABELS = ("anger", "disgust", "fear", "joy", "sadness", "surprise")
PREVALENCE = (0.08, 0.03, 0.12, 0.25, 0.18, 0.10)
TARGET_SECONDS = 60.0


def synthetic_ratings(n_items: int, n_annotators: int, seed: int = 0) -> pd.DataFrame:
    """Long ratings (item, annotator, label, value 0/1) of every item by every annotator on every label.

    Annotator a reports a present label with probability sensitivity[a, label] (0.55-0.95) and an absent one with
    probability 1 - specificity[a, label] (specificity 0.90-0.99); the last annotator is careless (sensitivity
    0.4, specificity 0.8)."""
    rng = np.random.default_rng(seed)
    truth = rng.random((n_items, len(LABELS))) < np.array(PREVALENCE)
    sensitivity = rng.uniform(0.55, 0.95, size=(n_annotators, len(LABELS)))
    specificity = rng.uniform(0.90, 0.99, size=(n_annotators, len(LABELS)))
    sensitivity[-1], specificity[-1] = 0.4, 0.8
    chance = np.where(truth[:, None, :], sensitivity[None], 1.0 - specificity[None])  # items x annotators x labels
    values = (rng.random(chance.shape) < chance).astype(np.int8)
    items, annotators, labels = np.indices(values.shape).reshape(3, -1)
    return pd.DataFrame(
        {
            "item": np.char.add("t", items.astype(str)),
            "annotator": np.char.add("a", annotators.astype(str)),
            "label": np.array(LABELS)[labels],
            "value": values.reshape(-1),
        }
    )


def timed(step: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    result = step()
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--annotators", type=int, default=5)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "annotation_speed.json"))
    args = parser.parse_args()
    import crowdkit.aggregation  # noqa: F401 (imported before timing: a second or two, once per process)
    import krippendorff  # noqa: F401

    frame = synthetic_ratings(args.items, args.annotators, args.seed)
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "ratings.csv"
        frame.to_csv(path, index=False)
        file_mib = path.stat().st_size / 2**20
        ratings, seconds["read"] = timed(lambda: read_long(path, value_col="value"))
    _, seconds["aggregate_majority"] = timed(lambda: aggregate(ratings, "majority", min_confidence=0.9))
    _, seconds["aggregate_dawid_skene"] = timed(lambda: aggregate(ratings, "dawid-skene", min_confidence=0.9))
    _, seconds["agreement"] = timed(lambda: agreement_report(ratings, n_bootstrap=args.bootstrap))
    result = {
        "machine": f"{platform.node()} ({platform.machine()}, {os.cpu_count()} cores), "
        f"Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "items": args.items,
        "annotators": args.annotators,
        "labels": len(LABELS),
        "ratings": len(frame),
        "file_mib": round(file_mib, 1),
        "bootstrap": args.bootstrap,
        "seconds": {step: round(value, 2) for step, value in seconds.items()},
        "read_and_dawid_skene_under_a_minute": seconds["read"] + seconds["aggregate_dawid_skene"] < TARGET_SECONDS,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(markdown_table(result))


def markdown_table(result: dict[str, Any]) -> str:
    steps = {
        "read": f"read the long CSV ({result['ratings']:,} rows, {result['file_mib']} MiB)",
        "aggregate_majority": "aggregate: majority vote, per label",
        "aggregate_dawid_skene": "aggregate: Dawid-Skene, per label",
        "agreement": f"agreement report, {result['bootstrap']:,} bootstrap resamples",
    }
    lines = [
        f"{result['items']:,} items x {result['annotators']} annotators x {result['labels']} labels; "
        f"{result['machine']}, {result['date']}",
        "",
        "| step | seconds |",
        "|---|---:|",
        *(f"| {steps[step]} | {value:.2f} |" for step, value in result["seconds"].items()),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
