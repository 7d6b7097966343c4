"""Inference speed of the ``hf`` detector's prediction path for an XLM-R-large-sized encoder (EmoBench-UA's
strongest encoders are this size): bf16 autocast with SDPA attention against fp32 with eager attention, in one
run, at batch 256 with dynamic padding over length-sorted batches.

Speed does not depend on the weights, so the encoder is randomly initialised from ``XLMRobertaConfig`` (hidden
1024, 24 layers, 16 heads, feed-forward 4096, 250,002-token vocabulary: 560 M parameters; nothing to download),
with a 7-label head (:class:`~affectlab.encoders.hf_training.EncoderClassifier`), and timed through
:func:`~affectlab.encoders.hf_training.predict_logits`. Texts are random token ids whose lengths are drawn uniformly
from 8 to ``--max-tokens``; both settings see the same texts and the same weights, and the script reports how far
the bf16 probabilities are from the fp32 ones.

    python benchmarks/models/encoder_inference_speed.py                      # the figure: needs a GPU
    python benchmarks/models/encoder_inference_speed.py --size tiny          # smoke test on any machine (CPU here)

Not run on a GPU here (this task had none). ``--size tiny`` ran once on the CPU and wrote
``benchmarks/results/encoder_inference_speed-tiny-cpu.json``; CPU figures say nothing about GPU speed.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import torch
import transformers
from transformers import AutoModel, XLMRobertaConfig

from affectlab.encoders.hf_training import EncoderClassifier, predict_logits

SIZES: dict[str, dict[str, int]] = {
    "large": {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096,
              "vocab_size": 250002},
    "tiny": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 128,
             "vocab_size": 1000},
}  # fmt: skip
SETTINGS = (("bf16-sdpa", True, "sdpa"), ("fp32-eager", False, "eager"))
PAD_ID = 1  # XLM-R's <pad>


def build(size: str, attn_implementation: str, device: torch.device) -> EncoderClassifier:
    """The same random weights for every call (seeded), with the given attention implementation."""
    config = XLMRobertaConfig(**SIZES[size], max_position_embeddings=514, pad_token_id=PAD_ID)
    torch.manual_seed(0)
    encoder = AutoModel.from_config(config, attn_implementation=attn_implementation)
    return EncoderClassifier(encoder, n_labels=7, pooling="cls", dropout=0.0).to(device).eval()


def random_texts(n: int, max_tokens: int, vocab_size: int, seed: int = 0) -> dict[str, list[list[int]]]:
    """``n`` texts of random ids: <s> ... </s>, lengths uniform in [8, max_tokens]."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(8, max_tokens + 1, size=n)
    ids = [[0, *rng.integers(5, vocab_size, size=k - 2).tolist(), 2] for k in lengths]
    return {"input_ids": ids, "attention_mask": [[1] * len(row) for row in ids]}


def time_setting(
    model: EncoderClassifier, texts: dict[str, list[list[int]]], batch_size: int, bf16: bool, device: torch.device
) -> tuple[float, np.ndarray, float | None]:
    """Texts/s (after one warm-up pass over the first batch), the logits and the peak GPU memory in GiB."""
    warmup = {key: values[:batch_size] for key, values in texts.items()}
    predict_logits(model, warmup, batch_size, PAD_ID, bf16)
    if device.type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    started = time.perf_counter()
    logits = predict_logits(model, texts, batch_size, PAD_ID, bf16)  # returns numpy: the GPU work has finished
    seconds = time.perf_counter() - started
    peak = torch.cuda.max_memory_allocated() / 2**30 if device.type == "cuda" else None
    return len(texts["input_ids"]) / seconds, logits, peak


def run(size: str, n_texts: int, batch_size: int, max_tokens: int, device: torch.device) -> dict[str, Any]:
    """Both settings on the same texts and weights; speed-up and agreement of the sigmoid probabilities."""
    texts = random_texts(n_texts, max_tokens, SIZES[size]["vocab_size"])
    results: dict[str, Any] = {}
    logits: dict[str, np.ndarray] = {}
    for name, bf16, attention in SETTINGS:
        model = build(size, attention, device)
        n_params = sum(p.numel() for p in model.parameters())
        speed, logits[name], peak = time_setting(model, texts, batch_size, bf16, device)
        peak_gib = None if peak is None else round(peak, 2)
        used = model.encoder.config._attn_implementation  # what transformers actually runs
        results[name] = {"texts_per_s": round(speed, 1), "peak_gpu_memory_gib": peak_gib, "attention": used}
        del model
        if device.type == "cuda":
            torch.cuda.empty_cache()
    probs = {name: 1 / (1 + np.exp(-values)) for name, values in logits.items()}
    return {
        "size": size,
        "config": SIZES[size],
        "parameters_millions": round(n_params / 1e6, 1),
        "n_texts": n_texts,
        "batch_size": batch_size,
        "max_tokens": max_tokens,
        "mean_tokens": round(float(np.mean([len(row) for row in texts["input_ids"]])), 1),
        **results,
        "speedup_bf16_sdpa": round(results["bf16-sdpa"]["texts_per_s"] / results["fp32-eager"]["texts_per_s"], 2),
        "max_abs_prob_diff": round(float(np.abs(probs["bf16-sdpa"] - probs["fp32-eager"]).max()), 4),
        "device": torch.cuda.get_device_name() if device.type == "cuda" else f"cpu ({torch.get_num_threads()} threads)",
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
        "date": date.today().isoformat(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=tuple(SIZES), default="large")
    parser.add_argument("--n-texts", type=int, default=4096)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--device", help="cuda or cpu (default: cuda when available)")
    args = parser.parse_args()
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    result = run(args.size, args.n_texts, args.batch_size, args.max_tokens, device)
    out = Path(__file__).parents[1] / "results" / f"encoder_inference_speed-{args.size}-{device.type}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
