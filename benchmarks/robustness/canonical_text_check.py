"""Issue 41: the default ekman head's test score on the sets whose texts canonical_text changes most (run it in
this checkout and, with PYTHONPATH=WORKTREE/src, in a worktree of the commit before:
python benchmarks/robustness/canonical_text_check.py).

Prints each set's score (no results file; the figures are in BENCHMARKS.md, "What ships: canonical text").
"""

from affectlab.datasets import resolve_dataset
from affectlab.detectors.default import load_default
from affectlab.evaluation.evaluate import evaluate

m = load_default("ekman")
out = {}
for name in ["semeval2025-rus", "semeval2025-swa", "semeval2025-esp", "goemotions-ekman"]:
    spec, data = resolve_dataset(name, "../shared/data")
    r = evaluate(m, spec, data, "test", n_bootstrap=0)
    out[name] = round(r.metrics["primary"]["value"], 4)
    print(name, out[name], flush=True)
