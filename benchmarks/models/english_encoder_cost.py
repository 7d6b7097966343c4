"""What the default GoEmotions head's fine-tuned English encoder (MiniLM-L6, stored int8) costs on the CPU: texts/s,
cold start (import + load, in a fresh process), peak memory and size on disk, beside the same head without the
encoder (embedding + n-gram members, what installs without the ``hf`` extra get) and the fast profile (n-gram
member only); test macro-F1 of each from the model card's scores.json.

Each variant runs in its own process on the first ``--n`` GoEmotions test texts, batches of 256, torch and the
embedding engine left at their default thread counts.

    pip install -e ".[bench]"
    python benchmarks/models/english_encoder_cost.py --data-dir ../shared/data [--n 2000]

Writes ``benchmarks/results/english_encoder_cost.json`` and prints it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

VARIANTS = ("with-encoder", "without-encoder", "fast")
BATCH = 256


def measure(variant: str, data_dir: str, n: int) -> dict[str, float]:
    """Run inside the child process: load the head, then time ``n`` texts."""
    import resource

    started = time.perf_counter()
    from affectlab.datasets import resolve_dataset
    from affectlab.detectors.default import load_default

    model = load_default("goemotions", fast=variant == "fast")
    if variant == "without-encoder":
        model = model.without_optional_members()
    elif variant == "with-encoder" and model.capabilities.left_out:
        raise SystemExit(f"the encoder member could not be loaded: {model.capabilities.left_out}")
    model.predict_proba(["warm up"])
    load_seconds = time.perf_counter() - started
    texts = resolve_dataset("goemotions", data_dir)[1]["test"]["text"][:n]
    started = time.perf_counter()
    for start in range(0, len(texts), BATCH):
        model.predict(texts[start : start + BATCH])
    seconds = time.perf_counter() - started
    return {
        "texts_per_s": round(len(texts) / seconds, 1),
        "cold_start_s": round(load_seconds, 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def run_child(variant: str, data_dir: str, n: int) -> dict[str, float]:
    """``measure`` in a fresh interpreter (so cold start and peak memory are the variant's own)."""
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
    command = [sys.executable, __file__, "--data-dir", data_dir, "--n", str(n), "--child", variant]
    output = subprocess.run(command, capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--child", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.data_dir, args.n)))
        return
    from affectlab.detectors.default import HEADS_DIR, shipped_scores

    entry = shipped_scores()["heads"]["goemotions"]
    encoder_files = (HEADS_DIR / "goemotions" / "member2").rglob("*")  # the optional member's own files
    encoder_bytes = sum(p.stat().st_size for p in encoder_files if p.is_file())
    scores = {
        "with-encoder": entry["scores"]["goemotions"]["test"],
        "without-encoder": entry.get("without_optional", {}).get("scores", {}).get("goemotions", {}).get("test"),
        "fast": None,
    }
    result = {
        "n": args.n,
        "batch_size": BATCH,
        "head_mib": round(
            sum(p.stat().st_size for p in (HEADS_DIR / "goemotions").rglob("*") if p.is_file()) / 2**20, 1
        ),
        "encoder_files_mib": round(encoder_bytes / 2**20, 1),
        "weights": entry["weights"],
        "variants": {
            variant: {**run_child(variant, args.data_dir, args.n), "test_macro_f1": scores[variant]}
            for variant in VARIANTS
        },
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "date": date.today().isoformat(),
    }
    out = Path(__file__).parents[1] / "results" / "english_encoder_cost.json"
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
