"""How many published LMentry-static-UA instances our generators rebuild exactly (Eval-UA-tion 1.0, section 3.2).

Each instance in ``LMentry-static-UA/artifacts/*.json`` is rebuilt from its own inputs (template number, word or
sentence, needle, word pair and order, category and word list) with :mod:`affectlab.uatasks.lmes_instances` and
counted as identical when both the question string and the right answer are the same. The authors' random draws
cannot be replayed, so this measures templates, numeral inflection (section 3.2.5), reversal and gold answers, not
sampling.

    python benchmarks/ua_tasks/lmes_regeneration.py --data-dir ../shared/data

Writes ``benchmarks/results/lmes_regeneration.json`` (or ``--out``) and prints the Markdown table.
"""

from __future__ import annotations

import argparse
import json
import platform
from pathlib import Path
from typing import Any

from affectlab.uatasks.lmes_published import regenerate_published
from affectlab.uatasks.lmes_resources import lmes_dir


def markdown(report: dict[str, dict[str, Any]]) -> str:
    """A Markdown table: task, published instances, identical ones, share, kinds of mismatch."""
    lines = ["| task | published | identical | share | mismatches |", "|---|---:|---:|---:|---|"]
    for task, row in report.items():
        kinds = ", ".join(f"{kind}: {count}" for kind, count in row["mismatch_kinds"].items()) or "none"
        lines.append(f"| {task} | {row['n']} | {row['identical']} | {row['share']:.1%} | {kinds} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True, help="the data directory (or its eval_ua_tion folder)")
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "lmes_regeneration.json"))
    args = parser.parse_args()
    report = regenerate_published(lmes_dir(args.data_dir, "resources"), lmes_dir(args.data_dir, "artifacts"))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "machine": f"{platform.node()} ({platform.machine()})",
        "resources": "few-shot word lists and categories (the shipped artifacts use only those)",
        "identity": "same question string and same right answer",
        "tasks": report,
    }
    out.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(markdown(report))


if __name__ == "__main__":
    main()
