"""The cost of language identification in a fresh process (issue 32): 10,000 track A train texts (a seeded sample
over the 28), one at a time, first with everything loading (CLD3, simplemma's English dictionary, the n-gram model),
then again warm; ``before`` is the identifier of ``langid_open_set.BEFORE``. Run each side in its own process:

    python benchmarks/languages/langid_speed.py --data-dir ../shared/data before
    python benchmarks/languages/langid_speed.py --data-dir ../shared/data after

Prints the two passes' seconds (no results file; the recorded runs, with ``detect --input`` timed beside
them, are in ``benchmarks/results/langid_speed_issue32.json``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from affectlab.datasets.semeval2025 import LANGS, read_split

sys.path.insert(0, str(Path(__file__).parent))
from langid_open_set import BEFORE, identifier_at


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("side", choices=("before", "after"))
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--n", type=int, default=10_000)
    args = parser.parse_args()
    texts = [row["text"] for code in LANGS for row in read_split(code, "train", args.data_dir)]
    texts = random.Random(0).sample(texts, args.n)
    if args.side == "before":
        identify = identifier_at(BEFORE)
    else:
        from affectlab.langid import detect_language as identify
    started = time.perf_counter()
    for text in texts:
        identify(text)
    loaded = time.perf_counter()
    for text in texts:
        identify(text)
    print(f"{args.side}: first pass (with loading) {loaded - started:.2f} s, warm {time.perf_counter() - loaded:.2f} s")


if __name__ == "__main__":
    main()
