"""Training throughput of an mT5-large-sized model in MASIVE's setup (App. D.1: batch 4, Adafactor at lr 1e-4 with a
linear schedule, weight decay 0.01), through the same optimiser settings the ``seq2seq`` predictor uses.

Speed does not depend on the weights, so the model is randomly initialised from ``MT5Config`` with mt5-large's
shape (d_model 1024, feed-forward 2816, 24 + 24 layers, 16 heads, 250,112-token vocabulary: 1.2 B parameters;
nothing to download). Inputs are random token ids of ``--input-tokens`` (default 311: MASIVE's mean English input,
Table 1) with a target of 8 tokens (a sentinel, a term and the closing sentinel, padded); fp32 as in the paper
(it names no mixed precision), ``--bf16`` for autocast.

    python benchmarks/open_states/mt5_training_speed.py                  # the figure: needs a GPU (about 20 GB)
    python benchmarks/open_states/mt5_training_speed.py --size tiny      # smoke test on any machine (CPU here)

Not run on a GPU here (this task had none).

Writes ``benchmarks/results/mt5_training_speed-<size>-<device>.json`` and prints it.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from datetime import date
from pathlib import Path

import torch
import transformers
from transformers import MT5Config, MT5ForConditionalGeneration, get_linear_schedule_with_warmup
from transformers.optimization import Adafactor

SIZES = {
    "large": {"d_model": 1024, "d_ff": 2816, "d_kv": 64, "num_layers": 24, "num_decoder_layers": 24, "num_heads": 16,
              "vocab_size": 250112},
    "tiny": {"d_model": 64, "d_ff": 128, "d_kv": 16, "num_layers": 2, "num_decoder_layers": 2, "num_heads": 4,
             "vocab_size": 1000},
}  # fmt: skip


def run(size: str, steps: int, warmup: int, input_tokens: int, bf16: bool) -> dict:
    """Time ``steps`` optimiser steps after ``warmup`` untimed ones; samples/s and peak memory."""
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)
    model = MT5ForConditionalGeneration(MT5Config(**SIZES[size], decoder_start_token_id=0)).to(device).train()
    optimizer = Adafactor(
        model.parameters(), lr=1e-4, weight_decay=0.01, scale_parameter=False, relative_step=False, warmup_init=False
    )
    scheduler = get_linear_schedule_with_warmup(optimizer, 0, steps + warmup)
    vocab = SIZES[size]["vocab_size"]
    batch = {
        "input_ids": torch.randint(3, vocab, (4, input_tokens), device=device),
        "attention_mask": torch.ones(4, input_tokens, dtype=torch.long, device=device),
        "labels": torch.randint(3, vocab, (4, 8), device=device),
    }
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
    timed = 0.0
    for step in range(warmup + steps):
        started = time.perf_counter()
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
            loss = model(**batch).loss
        loss.backward()
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        float(loss.detach())  # waits for the device
        if step >= warmup:
            timed += time.perf_counter() - started
    return {
        "size": size,
        "parameters_m": round(sum(p.numel() for p in model.parameters()) / 1e6, 1),
        "batch_size": 4,
        "input_tokens": input_tokens,
        "bf16": bf16,
        "steps_timed": steps,
        "samples_per_s": round(4 * steps / timed, 2),
        "epoch_hours_masive_en": round(93736 / (4 * steps / timed) / 3600, 2),
        "peak_gpu_memory_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2) if device.type == "cuda" else None,
        "device": torch.cuda.get_device_name() if device.type == "cuda" else f"cpu ({torch.get_num_threads()} threads)",
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
        "date": date.today().isoformat(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=SIZES, default="large")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--input-tokens", type=int, default=311)
    parser.add_argument("--bf16", action="store_true")
    args = parser.parse_args()
    result = run(args.size, args.steps, args.warmup, args.input_tokens, args.bf16)
    where = "cuda" if result["peak_gpu_memory_gib"] is not None else "cpu"
    out = Path(__file__).parents[1] / "results" / f"mt5_training_speed-{args.size}-{where}.json"
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
