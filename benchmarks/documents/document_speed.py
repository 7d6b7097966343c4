"""Speed of ``detect --input`` on tweets and on 5,000-character documents (issue 32), side by side in one run:

* tweets: the same 10,000 real texts as ``batch_speed.py`` (at most 280 characters), for this checkout and an
  earlier commit (``--before``: the tree before documents were read whole), each a whole new process, three
  rounds (the median counts): the acceptance line is "within 10 % of today's";
* documents: 200 documents of about 5,000 characters each, made of test texts of eight languages joined with spaces,
  for both trees (the earlier one reads only the first 2,000 characters of each with its encoder, so its
  characters/s counts characters it did not read), three rounds each.

Texts/s and characters/s (of the input) are reported for each.

    python benchmarks/documents/document_speed.py --data-dir ../shared/data [--before 3c4ba1a]

Writes ``benchmarks/results/document_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

from affectlab.datasets import resolve_dataset

sys.path.insert(0, str(Path(__file__).parents[1] / "speed"))
from default_encoder_speed import run_detect_file, run_header, texts_and_trees
from speed import tweet_texts

ROUNDS = 3
DOCUMENT_CHARS = 5000
LANGUAGES = ("eng", "ukr", "deu", "rus", "ptbr", "chn", "amh", "swe")


def documents(data_dir: str, n: int, seed: int = 0) -> list[str]:
    """``n`` documents of about :data:`DOCUMENT_CHARS` characters, each from one language's test texts."""
    rng, out = random.Random(seed), []
    pools = {code: list(resolve_dataset(f"semeval2025-{code}", data_dir)[1]["test"]["text"]) for code in LANGUAGES}
    for i in range(n):
        pool, parts = pools[LANGUAGES[i % len(LANGUAGES)]], []
        while sum(len(p) + 1 for p in parts) < DOCUMENT_CHARS:
            parts.append(rng.choice(pool).strip())
        out.append(" ".join(parts))
    return out


def timed(trees: dict[str, Path], texts_file: Path, work: Path, chars: int) -> dict:
    runs: dict[str, list[dict]] = {name: [] for name in trees}
    for _ in range(ROUNDS):
        for name, src in trees.items():
            out = work / "out.jsonl"
            out.unlink(missing_ok=True)
            run = run_detect_file(src, texts_file, out)
            runs[name].append(run | {"chars_per_s": round(chars / run["seconds"], 1)})
    median = {name: {key: statistics.median(run[key] for run in rs) for key in ("texts_per_s", "chars_per_s")}
              for name, rs in runs.items()}  # fmt: skip
    return {"runs": runs, "median": median}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--before", default="3c4ba1a", help="the commit before documents were read whole")
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "document_speed.json"))
    args = parser.parse_args()
    result: dict = {}
    for kind, texts in (
        ("tweets", tweet_texts(args.data_dir, args.n)),
        ("documents", documents(args.data_dir, args.documents)),
    ):
        with texts_and_trees(texts, args.before) as (work, texts_file, trees):
            result[kind] = {**run_header(texts), **timed(trees, texts_file, work, sum(map(len, texts)))}
        print(kind, json.dumps(result[kind]["median"]), flush=True)
    tweets = result["tweets"]["median"]
    names = list(tweets)
    result["tweets_this_over_before"] = round(tweets[names[0]]["texts_per_s"] / tweets[names[1]]["texts_per_s"], 3)
    Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print("tweets, this checkout / before:", result["tweets_this_over_before"])


if __name__ == "__main__":
    main()
