"""The default ekman head on the 28 SemEval-2025 track A test sets with each text's language identified, not given
(issue 32): what ``affectlab detect --input FILE`` without ``--lang`` scores, against the same head given each set's
language (``benchmarks/languages/brighter_languages.py``). The official score: macro-F1 over the language's emotion
columns.

Each set's texts go through :func:`affectlab.detectors.readings.read_texts`, the path of ``detect --input``
(a text over 1,000 characters read sentence by sentence), without their language, so each text's language is
identified (:func:`affectlab.detectors.identify.read_languages`) as ``detect --input`` does without ``--lang``.
``--identifier before`` runs the identifier of git revision ``--before`` instead
(:func:`langid_open_set.identifier_at`), ``given`` keeps each set's language.

    python benchmarks/languages/langid_through_detect.py --data-dir ../shared/data --identifier after [--before 3c4ba1a]

Writes ``benchmarks/results/langid_through_detect_<identifier>.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from affectlab.datasets import resolve_dataset
from affectlab.datasets.semeval2025 import LANGS
from affectlab.detectors import identify
from affectlab.detectors.readings import read_texts
from affectlab.detectors.resolve import resolve_detector
from affectlab.metrics.scores import macro_f1_emotions

BENCHMARKS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
from langid_open_set import BEFORE, identifier_at  # noqa: E402


def score_set(detector, spec, rows, given: bool) -> float:
    """Track A's score of ``detect --input`` on one test set (each row's language given, or identified)."""
    done = read_texts(detector, list(rows["text"]), None, list(rows["lang"]) if given else None)
    space = spec.label_space
    predicted = space.encode([[label for label in reading.labels if label in space.labels] for reading in done])
    return macro_f1_emotions(space.encode(rows["labels"]), predicted, space)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--identifier", choices=("before", "after", "given"), default="after")
    parser.add_argument("--before", default=BEFORE)
    args = parser.parse_args()
    if args.identifier == "before":
        before = identifier_at(args.before)
        identify.detect_language = before  # the one module of detectors/ that identifies looks both up at each call
        identify.detect_language_batch = lambda texts: [before(text) for text in texts]
    detector = resolve_detector("default", "ekman")
    record: dict = {"identifier": args.identifier, "date": time.strftime("%Y-%m-%d"), "track_a": {}}
    started = time.perf_counter()
    for code in LANGS:
        spec, data = resolve_dataset(f"semeval2025-{code}", args.data_dir)
        record["track_a"][code] = round(score_set(detector, spec, data["test"], args.identifier == "given"), 4)
        print(code, record["track_a"][code], flush=True)
    record["mean"] = round(statistics.mean(record["track_a"].values()), 4)
    record["seconds"] = round(time.perf_counter() - started, 1)
    out = BENCHMARKS / "results" / f"langid_through_detect_{args.identifier}.json"
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print("mean", record["mean"])


if __name__ == "__main__":
    main()
