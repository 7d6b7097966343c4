"""Issue 41: dev macro-F1 and edits kept, with texts as typed ("plain"), their canonical spelling without final
punctuation ("canon") or with it ("keep"): python benchmarks/robustness/canonical_text_dev.py MODE [N_LANGUAGES] (run
with the tree before canonical text on PYTHONPATH, so that only the spelling given here changes).

Prints one line per language (no results file; the figures are in ``benchmarks/notes/issue41_decisions.md``).
"""

import argparse
import re
import sys

import numpy as np

import affectlab
from affectlab.datasets import resolve_dataset
from affectlab.metrics.classification import macro_f1

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from robustness import DEV_SETS, EDITS

URL = re.compile(r"https?://\S+|www\.\S+")
LEAD_MENTIONS = re.compile(r"^(?:@\w+[\s:,]*)+")
TRAIL = re.compile(r"[\s!?.…¡¿]+$")


def canonical(text: str, mode: str) -> str:
    t = URL.sub(" ", text)
    t = LEAD_MENTIONS.sub("", t.strip())
    t = re.sub(r"\s+", " ", t).strip()
    m = re.fullmatch(r"(.+?)(?:\s*\1)+", t, re.S) if len(t) <= 1000 else None
    if m:
        t = m.group(1).strip()
    cased = [c for c in t if c.lower() != c.upper()]
    if len(cased) >= 6 and sum(c.isupper() for c in cased) >= 0.8 * len(cased):
        t = t.lower()
    t2 = TRAIL.sub("", t) if mode == "canon" else t
    return t2 or t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("plain", "canon", "keep"))
    parser.add_argument("languages", type=int, nargs="?", default=6, help="the first N dev sets (default 6)")
    parser.add_argument("--data-dir", default="../shared/data")
    args = parser.parse_args()
    for lang, ds in list(DEV_SETS.items())[: args.languages]:
        report(lang, ds, args.mode, args.data_dir)


def report(lang: str, ds: str, mode: str, data_dir: str) -> None:
    """One language's dev macro-F1 and edits kept, printed."""
    spec, data = resolve_dataset(ds, data_dir)
    dev = data["dev"]
    texts = list(dev["text"])[:300]

    def f(text: str) -> str:
        return text if mode == "plain" else canonical(text, mode)

    dets = affectlab.detect([f(t) for t in texts])
    y = spec.label_space.encode(dev["labels"][:300])
    pred = spec.label_space.encode([[x for x in d.labels if x in spec.label_space.labels] for d in dets])
    base = [set(d.labels) for d in dets]
    kept = {}
    for name, edit in EDITS.items():
        e = affectlab.detect([f(edit(t)) for t in texts[:150]])
        kept[name] = round(np.mean([set(a.labels) == b for a, b in zip(e, base[:150], strict=False)]), 3)
    print(mode, lang, "devF1", round(macro_f1(y, pred), 4), kept, flush=True)


if __name__ == "__main__":
    main()
