"""English disgust on clear sentences of our own (issue 52): the share given disgust, for the ekman head before a
change and after, side by side: the robustness suite's clear English sentences with disgust
(``benchmarks/data/robustness_sentences.json``) and the behavioural suite's clear English disgust sentences (dev and
test).

    python benchmarks/quality/english_disgust_sentences.py --heads runs/old_heads/ekman default

Prints the table (no results file: a handful of sentences).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import affectlab
from affectlab.checklist import written_cases

BENCHMARKS = Path(__file__).resolve().parents[1]


def sentences() -> list[str]:
    """The clear English sentences whose labels hold disgust."""
    written = json.loads((BENCHMARKS / "data" / "robustness_sentences.json").read_text(encoding="utf-8"))["en"]["clear"]
    suite = [c.text for c in written_cases("en") if c.capability == "clear" and "disgust" in c.present]
    return [item["text"] for item in written if "disgust" in item["labels"]] + suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--heads", nargs="+", required=True, help="ekman heads: 'default' or saved folders")
    args = parser.parse_args()
    texts = sentences()
    for model in args.heads:
        found = affectlab.detect(texts, model=model, lang="en")
        hits = sum("disgust" in d.labels for d in found)
        print(f"{model}: disgust given to {hits} of {len(texts)}")
        for text, d in zip(texts, found, strict=True):
            print(f"   {'+' if 'disgust' in d.labels else '-'} {text} -> {'+'.join(d.labels)}")


if __name__ == "__main__":
    main()
