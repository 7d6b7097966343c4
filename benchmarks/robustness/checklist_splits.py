"""The behavioural suite (``affectlab checklist``) on a detector, dev and test apart, with a before/after table.

    python benchmarks/robustness/checklist_splits.py --label shipped                       # the installed default
    python benchmarks/robustness/checklist_splits.py --label candidate --model DIR         # a saved ekman detector
    python benchmarks/robustness/checklist_splits.py --table shipped candidate --split dev

Writes ``benchmarks/results/checklist_<label>.json`` (per split, language and capability: the pass rate, its
counts, the rates per detail and up to 5 failures). The dev templates decide; the test templates are reported.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

import affectlab
from affectlab.checklist import CAPABILITIES, EDITS, run_checklist
from affectlab.checklist.suite import SCOPES

BENCHMARKS = Path(__file__).resolve().parents[1]
ACCEPTANCE = {"negation": "<= 0.15 denied", "not_a_but_b": ">= 0.80", "situation": ">= 0.85", "neutral": ">= 0.90",
              "invariance": ">= 0.97 per edit"}  # fmt: skip
"""Issue 52's lines on the test templates (negation as the share that passes: denied in at most 15 %)."""


def run(model: str) -> dict[str, Any]:
    """Both splits' reports of ``model``."""
    return {split: run_checklist(model, split=split).to_dict(examples=5) for split in ("dev", "test")}


def table(labels: list[str], split: str) -> str:
    """A Markdown table: per language and capability, each run's pass rate (the worst edit beside invariance)."""
    runs = {label: json.loads((BENCHMARKS / "results" / f"checklist_{label}.json").read_text()) for label in labels}
    first = runs[labels[0]]["splits"][split]
    langs = first["languages"]
    lines = [f"| capability ({split}) | " + " | ".join(langs) + " |", "|---|" + "---:|" * len(langs)]
    for capability in CAPABILITIES:
        cells = []
        for lang in langs:
            values = []
            for label in labels:
                result = next(r for r in runs[label]["splits"][split]["results"]
                              if r["lang"] == lang and r["capability"] == capability)  # fmt: skip
                worst = min((d["rate"] for d in result["by"].values()), default=result["rate"])
                values.append(f"{result['rate']:.2f}" + (f" ({worst:.2f})" if capability == "invariance" else ""))
            cells.append(" → ".join(values))
        lines.append(f"| {capability} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", help="name of this run (writes benchmarks/results/checklist_LABEL.json)")
    parser.add_argument("--model", default="default", help="'default' or a saved ekman detector's folder")
    parser.add_argument("--table", nargs="+", metavar="LABEL", help="print the table of these runs instead")
    parser.add_argument("--split", default="dev", choices=("dev", "test"), help="the table's split")
    args = parser.parse_args()
    if args.table:
        print(table(args.table, args.split))
        return
    started = time.perf_counter()
    splits = run(args.model)
    out = BENCHMARKS / "results" / f"checklist_{args.label}.json"
    record = {
        "command": f"python benchmarks/robustness/checklist_splits.py --label {args.label} --model {args.model}",
        "machine": f"{platform.processor() or platform.machine()}, {platform.system()}",
        "date": time.strftime("%Y-%m-%d"), "affectlab": affectlab.__version__,
        "seconds": round(time.perf_counter() - started, 1), "scopes": list(SCOPES), "edits": [e.name for e in EDITS],
        "acceptance": ACCEPTANCE, "splits": splits,
    }  # fmt: skip
    out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
