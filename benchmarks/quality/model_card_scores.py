"""Print the test-score table of MODEL_CARD.md from the scores recorded by ``affectlab build-default``
(``default_heads/scores.json`` of the model package ``affectlab-models``), beside the papers' numbers and the
issue's targets.

    python benchmarks/quality/model_card_scores.py

Prints the table (no results file: the scores are those of ``scores.json``).
"""

from __future__ import annotations

from affectlab.detectors.default import SLICE_ROWS, shipped_scores

REFERENCE = {
    "emobench-ua": ("0.60", "LaBSE fine-tuned 0.57, multilingual-E5-large fine-tuned 0.62, E5-base 0.46 (Table 1)"),
    "goemotions": ("0.52", "BERT-base 0.46 (Table 4)"),
    "goemotions-ekman": ("0.62", "BERT-base 0.64 (Table 6)"),
    "emocontext": ("0.76", "winner 0.7959, official baseline 0.5861 (Table 5)"),
    "semeval2025-esp": ("0.75", "no row in our papers"),
    "semeval2025-eng": ("0.58", "no row in our papers"),
}
"""Issue 15's targets and the papers' rows."""


def main() -> None:
    print(
        "| head | test set | metric | affectlab default (95 % CI) | target | papers | macro-F1 | "
        f"first {SLICE_ROWS} rows |"
    )
    print("|---|---|---|---|---|---|---:|---:|")
    for head, info in shipped_scores()["heads"].items():
        for dataset, s in info["scores"].items():
            target, papers = REFERENCE.get(dataset, ("", ""))
            low, high = s["test_ci95"]
            print(
                f"| {head} | {dataset} | {s['metric']} | **{s['test']:.3f}** ({low:.3f}-{high:.3f}) | {target} | "
                f"{papers} | {s['macro_f1']:.3f} | {s[f'first_{SLICE_ROWS}']:.3f} |"
            )


if __name__ == "__main__":
    main()
