"""Issue 41: the default ekman head's test score on the sets whose texts canonical_text changes most (run it in
this checkout and, with PYTHONPATH=WORKTREE/src, in a worktree of the commit before:
python benchmarks/robustness/canonical_text_check.py).

Prints each set's score (no results file; the figures are in BENCHMARKS.md, "What ships: canonical text").
"""

import argparse

from affectlab.datasets import resolve_dataset
from affectlab.detectors.default import load_default
from affectlab.evaluation.evaluate import evaluate

SETS = ("semeval2025-rus", "semeval2025-swa", "semeval2025-esp", "goemotions-ekman")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default="../shared/data")
    args = parser.parse_args()
    model = load_default("ekman")
    for name in SETS:
        spec, data = resolve_dataset(name, args.data_dir)
        result = evaluate(model, spec, data, "test", n_bootstrap=0)
        print(name, round(result.metrics["primary"]["value"], 4), flush=True)


if __name__ == "__main__":
    main()
