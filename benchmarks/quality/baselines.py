"""Test-split scores of the classical baselines (keywords, tfidf-lr, tfidf-rf) on every dataset, beside the papers'
own rows. Writes ``benchmarks/results/baselines.json`` (one run record per model and dataset) and prints the
Markdown table that goes into BENCHMARKS.md.

    python benchmarks/quality/baselines.py --data-dir ../shared/data [--models tfidf-lr] [--datasets emobench-ua]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

from affectlab.datasets import resolve_dataset
from affectlab.detectors import create_detector
from affectlab.evaluation.evaluate import evaluate
from affectlab.evaluation.training import train_detector

DATASETS = (
    "emobench-ua",
    "goemotions",
    "goemotions-ekman",
    "goemotions-sentiment",
    "emocontext",
    "semeval2025-eng",
    "semeval2025-esp",
)
MODELS = ("keywords", "tfidf-lr", "tfidf-rf")

# The papers' own rows, primary metric on the test split (macro-F1; EmoContext: micro-F1 over happy/sad/angry).
PAPER_ROWS = {
    "emobench-ua": "EmoBench-UA Table 1: keywords 0.22, logistic regression 0.29, random forest 0.27; "
    "LaBSE 0.57, multilingual-E5-large 0.62, DeepSeek-V3 0.65",
    "goemotions": "GoEmotions Table 4: BERT-base 0.46 (biLSTM 0.41)",
    "goemotions-ekman": "GoEmotions Table 6: BERT-base 0.64 (biLSTM 0.54)",
    "goemotions-sentiment": "GoEmotions Table 5: BERT-base 0.69 (biLSTM 0.60)",
    "emocontext": "SemEval-2019 Task 3 Table 5: official baseline 0.5861, winner 0.7959",
    "semeval2025-eng": "no row in our papers (BRIGHTER reports its own systems)",
    "semeval2025-esp": "no row in our papers (BRIGHTER reports its own systems)",
}


def run(model_name: str, dataset: str, data_dir: str) -> dict:
    """Train ``model_name`` on ``dataset`` (thresholds on dev) and score it on test."""
    started = time.perf_counter()
    spec, data = resolve_dataset(dataset, data_dir)
    model = create_detector(model_name)
    training = train_detector(model, spec, data)
    return evaluate(model, spec, data, "test", started=started, training=training).to_dict()


def markdown(records: list[dict]) -> str:
    """One row per dataset and model: primary metric with CI, macro P/R/F1, time, and the paper's row."""
    lines = [
        "| dataset | model | primary (95% CI) | macro P | macro R | macro F1 | train+eval s | papers |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for r in records:
        m = r["metrics"]
        low, high = m["primary"]["ci95"]
        lines.append(
            f"| {r['dataset']} | {r['model']} | {m['primary']['name']} **{m['primary']['value']:.3f}** "
            f"({low:.3f}-{high:.3f}) | {m['macro_precision']:.3f} | {m['macro_recall']:.3f} | {m['macro_f1']:.3f} "
            f"| {r['seconds']:.0f} | {PAPER_ROWS.get(r['dataset'], '')} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--models", nargs="*", default=list(MODELS))
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "baselines.json"))
    args = parser.parse_args()
    out = Path(args.out)
    previous = json.loads(out.read_text()) if out.exists() else {"records": []}
    records = {(r["dataset"], r["model"]): r for r in previous["records"]}
    for dataset in args.datasets:
        for model_name in args.models:
            record = run(model_name, dataset, args.data_dir)
            records[(dataset, model_name)] = record
            print(
                f"{dataset:22s} {model_name:9s} {record['metrics']['primary']['value']:.4f} "
                f"({record['seconds']:.0f} s)",
                flush=True,
            )
            out.parent.mkdir(parents=True, exist_ok=True)
            ordered = sorted(
                records.values(),
                key=lambda r: (
                    DATASETS.index(r["dataset"]) if r["dataset"] in DATASETS else 99,
                    MODELS.index(r["model"]),
                ),
            )
            out.write_text(
                json.dumps({"machine": f"{platform.node()} ({platform.machine()})", "records": ordered}, indent=1)
                + "\n"
            )
    print(markdown(sorted(records.values(), key=lambda r: (DATASETS.index(r["dataset"]), MODELS.index(r["model"])))))


if __name__ == "__main__":
    main()
