"""Agreement and aggregation of the real Ukrainian crowd ratings behind EmoBench-UA, and how close the aggregated
labels come to the released ones.

Reads the SemEval-2025 Task 11 per-annotator file ``individual_labels/ukr/ukr_individuals.csv`` (4,833 texts,
3 annotators, 6 emotions rated 0-3) and reports:

* agreement overall and per emotion, on presence (intensity > 0, nominal) and on the 0-3 intensities (ordinal),
  with 95 % bootstrap intervals over the texts;
* majority vote and Dawid-Skene (one model per emotion) on presence, with the share of texts whose every emotion
  has a confidence of at least 0.9 (EmoBench-UA's rule, section 3.3.4);
* the agreement of each aggregation with the released track A labels (train + dev + test ``ukr.csv``, joined on
  the text, since the ids differ), on all texts and on the passing ones only.

    python benchmarks/collection/annotation_ukr.py [--data-dir ../shared/data] [--bootstrap 1000]

Writes ``benchmarks/results/annotation_ukr.json`` and prints Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

from affectlab.annotation import aggregate, agreement_report, binarize, compare, read_wide
from affectlab.annotation.report import STATISTIC_NAMES, Footnotes, aggregation_summary, agreement_rows, data_summary

DATA_DIR = Path(__file__).resolve().parents[3] / "shared" / "data"
RATINGS = Path("semeval2025_task11") / "individual_labels" / "ukr" / "ukr_individuals.csv"
RELEASED = [Path("semeval2025_task11") / "track_a" / split / "ukr.csv" for split in ("train", "dev", "test")]
METHODS = ("majority", "dawid-skene")
MIN_CONFIDENCE = 0.9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "annotation_ukr.json"))
    args = parser.parse_args()
    started = time.perf_counter()
    ratings = read_wide(args.data_dir / RATINGS, item_col="text_id", label_col="emotion", text_col="text")
    presence = binarize(ratings)
    released = [args.data_dir / path for path in RELEASED]
    agreement = {
        "presence_nominal": agreement_report(presence, n_bootstrap=args.bootstrap),
        "intensity_ordinal": agreement_report(ratings, level="ordinal", n_bootstrap=args.bootstrap),
    }
    aggregations = {}
    for method in METHODS:
        aggregation = aggregate(presence, method, min_confidence=MIN_CONFIDENCE)
        aggregations[method] = {
            **aggregation_summary(aggregation),
            "vs_released": compare(aggregation, released),
            "vs_released_passing_only": compare(aggregation, released, only_passing=True),
        }
    result = {
        "machine": f"{platform.node()} ({platform.machine()}), Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "ratings": str(RATINGS),
        "released": [str(path) for path in RELEASED],
        "data": data_summary(ratings),
        "bootstrap": args.bootstrap,
        "agreement": agreement,
        "aggregation": aggregations,
        "seconds": round(time.perf_counter() - started, 1),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(markdown(result))


def markdown(result: dict[str, Any]) -> str:
    """The agreement tables, the aggregation table and the comparison table."""
    data = result["data"]
    lines = [
        f"{data['n_items']:,} texts x {data['n_annotators']} annotators x {len(data['labels'])} emotions "
        f"({result['ratings']}); {result['machine']}, {result['date']}, {result['seconds']} s",
        "",
    ]
    for name, report in result["agreement"].items():
        notes = Footnotes()
        lines += [
            f"Agreement, {name.replace('_', ', ')} (95 % CI over {result['bootstrap']:,} bootstrap resamples of texts)",
            "",
            "| | " + " | ".join(STATISTIC_NAMES.values()) + " | texts | annotators |",
            "|---|" + "---:|" * (len(STATISTIC_NAMES) + 2),
            *("| " + " | ".join(row) + " |" for row in agreement_rows(report, notes)),
            *notes.lines(),
            "",
        ]
    lines += [
        f"Aggregation of presence (texts passing: every emotion's confidence >= {MIN_CONFIDENCE})",
        "",
        "vs released: texts matched by text, share whose whole label set agrees, mean Cohen's kappa over emotions",
        "",
        "| method | texts passing | share passing | vs released: matched | exact | mean kappa "
        "| passing only: matched | exact | mean kappa |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for method, summary in result["aggregation"].items():
        cells = [f"{summary['n_passing']:,}", f"{summary['share_passing']:.3f}"]
        for comparison in (summary["vs_released"], summary["vs_released_passing_only"]):
            kappa = _mean_kappa(comparison)
            cells += [f"{comparison['n_matched']:,}", f"{comparison['exact_match']:.3f}", f"{kappa:.3f}"]
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    labels = list(next(iter(result["aggregation"].values()))["vs_released"]["per_label"])
    lines += [
        "",
        "Cohen's kappa with the released labels per emotion (all matched texts / passing texts only)",
        "",
        "| method | " + " | ".join(labels) + " |",
        "|---|" + "---:|" * len(labels),
    ]
    for method, summary in result["aggregation"].items():
        cells = [
            f"{summary['vs_released']['per_label'][label]['cohen_kappa']:.3f} / "
            f"{summary['vs_released_passing_only']['per_label'][label]['cohen_kappa']:.3f}"
            for label in labels
        ]
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _mean_kappa(comparison: dict[str, Any]) -> float:
    kappas = [scores["cohen_kappa"] for scores in comparison["per_label"].values() if scores["cohen_kappa"] is not None]
    return sum(kappas) / len(kappas)


if __name__ == "__main__":
    main()
