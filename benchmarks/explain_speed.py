"""What an explanation costs (issue 33), measured side by side in one run on this checkout:

* ``detect --input`` on 1,000 tweets (real test texts of at most 280 characters, as ``batch_speed.py`` draws them)
  with and without ``--explain``, each a whole new process, alternating, ``ROUNDS`` rounds (the median counts): the
  acceptance line is "at least 1/25 of the speed without it";
* the alternative a user has without ``explain``: the same occlusion written by hand over the public API, one
  ``affectlab.detect`` call per text with all of its one-word-removed variants (the language given, as the explainer
  fixes it), in this process after a warm-up;
* one text explained alone, after start-up (the models loaded): a 30-word text and a 500-character one, the median
  of ``ROUNDS`` calls: the acceptance line is "a 30-word text in under 1 s".

    python benchmarks/explain_speed.py --data-dir ../shared/data

Writes ``benchmarks/results/explain_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import affectlab  # noqa: E402
from affectlab.detectors.explain import without, word_spans  # noqa: E402
from default_encoder_speed import run_detect_file, run_header  # noqa: E402
from speed import tweet_texts  # noqa: E402

ROUNDS = 3
SRC = HERE.parent / "src"
OUT = HERE / "results" / "explain_speed.json"


def files_side_by_side(texts: list[str]) -> dict[str, dict]:
    """``detect --input`` with and without ``--explain``, alternating, as new processes."""
    runs: dict[str, list[dict]] = {"detect --input": [], "detect --input --explain": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        source = work / "tweets.jsonl"
        source.write_text("".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in texts), "utf-8")
        for _ in range(ROUNDS):
            for name, options in (("detect --input", ()), ("detect --input --explain", ("--explain",))):
                out = work / "out.jsonl"
                out.unlink(missing_ok=True)
                runs[name].append(run_detect_file(SRC, source, out, *options))
    return {name: {"median_texts_per_s": statistics.median(r["texts_per_s"] for r in rounds), "rounds": rounds}
            for name, rounds in runs.items()}  # fmt: skip


def by_hand(texts: list[str]) -> dict[str, float]:
    """Occlusion over the public API: per text, one ``detect`` call scoring it and its variants."""
    langs = [result.lang for result in affectlab.detect(texts)]
    affectlab.detect(texts[:20], explain=True)  # warm-up
    started = time.perf_counter()
    for text, lang in zip(texts, langs, strict=True):
        variants = [text] + [without(text, span) for span in word_spans(text)]
        affectlab.detect([v for v in variants if v.strip()], lang=lang)  # a one-word text's variant is empty
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    affectlab.detect(texts, explain=True)
    explain_seconds = time.perf_counter() - started
    return {"by_hand_texts_per_s": round(len(texts) / seconds, 1),
            "explain_in_process_texts_per_s": round(len(texts) / explain_seconds, 1)}  # fmt: skip


def one_text(texts: list[str]) -> dict[str, dict]:
    """Seconds to explain one text alone after start-up: about 30 words, and about 500 characters."""
    thirty = next(t for t in texts if 28 <= len(word_spans(t)) <= 32)
    five_hundred = " ".join(texts[:12])[:500].rsplit(" ", 1)[0]
    affectlab.detect("warm up", explain=True)
    out = {}
    for name, text in (("30 words", thirty), ("500 characters", five_hundred)):
        times = []
        for _ in range(ROUNDS):
            started = time.perf_counter()
            affectlab.detect(text, explain=True)
            times.append(time.perf_counter() - started)
        out[name] = {
            "chars": len(text),
            "words": len(word_spans(text)),
            "median_seconds": round(statistics.median(times), 3),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--n", type=int, default=1000)
    args = parser.parse_args()
    texts = tweet_texts(args.data_dir, args.n)
    results = {**run_header(texts), "mean_words": round(statistics.mean(len(word_spans(t)) for t in texts), 1)}
    results["files"] = files_side_by_side(texts)
    plain = results["files"]["detect --input"]["median_texts_per_s"]
    explained = results["files"]["detect --input --explain"]["median_texts_per_s"]
    results["explain_share_of_plain_speed"] = round(explained / plain, 4)
    results["in_process"] = by_hand(texts)
    results["one_text"] = one_text(texts)
    OUT.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in results.items() if k != "files"}, indent=1))
    print(f"detect --input {plain} texts/s, with --explain {explained} texts/s (1/{plain / explained:.1f})")


if __name__ == "__main__":
    main()
