"""What ``detect --open`` costs (issue 43's bounded-cost lines), on this machine:

* one text: the median of 20 ``detect_open`` calls after the first (start-up left out);
* 2,000 new user states: one ``detect_open`` call with 2,000 states the predictor has not embedded (words of
  CARER's texts outside its candidates), after start-up;
* the whole command's start-up: the median of 5 new processes of ``affectlab detect --open TEXT --json``.

    python benchmarks/open_states/open_cost.py --data-dir ../shared/data [--model DIR] \
        [--out benchmarks/results/open_cost.json]

Prints the JSON; ``--out`` also writes it (recorded: ``benchmarks/results/open_cost_issue43_*.json``).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from affectlab.openstates.detect import detect_open
from affectlab.openstates.lexicon import default_states

TEXT = "I finally got the job and I feel <extra_id_0>"


def new_states(data_dir: str, n: int = 2000) -> list[str]:
    """``n`` lowercase words of CARER's training texts that are not default candidates."""
    known = set(default_states("en"))
    words: dict[str, None] = {}
    for line in (Path(data_dir) / "carer" / "train.txt").read_text(encoding="utf-8").splitlines():
        for word in re.findall(r"[a-z]{4,}", line.split(";")[0]):
            if word not in known:
                words.setdefault(word, None)
        if len(words) >= n:
            break
    return list(words)[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--model", default="default")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    detect_open(TEXT, model=args.model)  # start-up
    one = []
    for _ in range(20):
        started = time.perf_counter()
        detect_open(TEXT, model=args.model)
        one.append(time.perf_counter() - started)
    states = new_states(args.data_dir)
    started = time.perf_counter()
    detect_open(TEXT, model=args.model, states=states)
    many = time.perf_counter() - started
    command = [sys.executable, "-m", "affectlab", "detect", "--open", TEXT, "--json"]
    command += [] if args.model == "default" else ["--model", args.model]
    starts = []
    for _ in range(5):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        starts.append(time.perf_counter() - started)
    result = {
        "one_text_median_ms": round(statistics.median(one) * 1000, 1),
        "new_states": len(states),
        "new_states_seconds": round(many, 2),
        "command_start_median_s": round(statistics.median(starts), 2),
    }
    print(json.dumps(result, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
