"""Non-LLM baselines of the Eval-UA-tion tasks on the data that loads, beside Table 1 of the paper. Writes
``benchmarks/results/ua_baselines.json`` and prints the Markdown table that goes into BENCHMARKS.md.

    python benchmarks/ua_tasks/ua_baselines.py --data-dir ../shared/data

With a local data directory these are the published sample artifacts (100-400 LMES instances, the 8 UA-CBT
few-shot instances, 20 UP-Titles rows), not the full datasets Table 1 was computed on. Two extra rows regenerate
UP-Titles from the 20 published articles (candidates drawn from those 20 only) to show the number clue that the
masking removes.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import pandas as pd

from affectlab.uatasks.baselines import all_baselines, baselines_for
from affectlab.uatasks.instances import TASKS
from affectlab.uatasks.loaders import local_path
from affectlab.uatasks.titles import generate_up_titles

# Section 3.1.7: "the most-frequent baseline of this task ... is 57%" (on the full UA-CBT).
PAPER_MOST_FREQUENT = {"ua-cbt": 0.57}


def regenerated_up_titles(data_dir: str) -> dict[str, dict]:
    """Baselines on UP-Titles regenerated (seed 0) from the published articles, unmasked and masked."""
    table = pd.read_csv(local_path("up-titles", data_dir)).rename(columns={"ukr_title": "title", "ukr_text": "text"})
    rows = {}
    for masked in (False, True):
        name = "up-titles-masked" if masked else "up-titles"
        instances = generate_up_titles(table, masked=masked, seed=0)
        rows[f"{name} (regenerated from the 20 articles)"] = {
            "task": name,
            "split": "test",
            **baselines_for(name, instances),
        }
    return rows


def percent(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.2f}"


def markdown(results: dict[str, dict]) -> str:
    """One row per task: n, our random and Table 1's bl_random, human (Table 1), most-frequent, number overlap."""
    lines = [
        "| task | split | n | random (ours) | bl_random (Table 1) | bl_human (Table 1) | most-frequent "
        "| number overlap |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, r in results.items():
        info = TASKS.get(r.get("task", label))
        if "skipped" in r:
            lines.append(
                f"| {label} | | | skipped: {r['skipped']} | {percent(info.random_baseline_paper)} | "
                f"{percent(info.human_baseline)} | | |"
            )
            continue
        paper_mf = PAPER_MOST_FREQUENT.get(label)
        most_frequent = percent(r.get("most_frequent")) + (f" (paper {percent(paper_mf)})" if paper_mf else "")
        lines.append(
            f"| {label} | {r['split']} | {r['n']} | {percent(r['random'])} | {percent(info.random_baseline_paper)} | "
            f"{percent(r['human'])} | {most_frequent} | {percent(r.get('number_overlap'))} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "ua_baselines.json"))
    args = parser.parse_args()
    started = time.perf_counter()
    results = {name: {"task": name, **r} for name, r in all_baselines(args.data_dir).items()}
    results |= regenerated_up_titles(args.data_dir)
    record = {
        "machine": f"{platform.node()} ({platform.machine()})",
        "data": "published sample artifacts of pchr8/eval-UA-tion (not the full datasets)",
        "seconds": round(time.perf_counter() - started, 2),
        "paper_table_1": {
            name: {"bl_random": info.random_baseline_paper, "bl_human": info.human_baseline}
            for name, info in TASKS.items()
        },
        "paper_most_frequent": PAPER_MOST_FREQUENT,
        "results": results,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(markdown(results))


if __name__ == "__main__":
    main()
