"""Speed of log-likelihood scoring of the Eval-UA-tion tasks with a randomly initialised causal LM.

Scoring speed does not depend on the weights, so a model of a given architecture is built with random weights
(nothing to download) and timed through the same path as ``affectlab ua eval --model DIR``:
:func:`~affectlab.uatasks.multiple_choice.evaluate_mc` with :class:`~affectlab.uatasks.lm_scoring.HFCausalScorer`,
3-shot prompts of section 4.1. The tokenizer is a byte-level BPE trained here on the local task texts with the
architecture's vocabulary size, so prompts have a realistic number of tokens for Ukrainian text.

    python benchmarks/ua_tasks/ua_scoring_speed.py --data-dir ../shared/data --arch llama-7b  # a GPU (bf16: 14 GB)
    python benchmarks/ua_tasks/ua_scoring_speed.py --data-dir ../shared/data --arch llama-tiny  # any machine

Writes ``benchmarks/results/ua_scoring_speed-<arch>-<device>.json`` and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

import torch
import transformers
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from affectlab.uatasks.lm_scoring import HFCausalScorer
from affectlab.uatasks.loaders import load_task
from affectlab.uatasks.multiple_choice import evaluate_mc
from affectlab.uatasks.prompts import format_prompt, sample_shots

ARCHITECTURES: dict[str, dict[str, Any]] = {
    # Llama-2-7B's shape (hidden 4096, 32 layers, 32 heads, MLP 11008, 32k vocabulary): 6.7 B parameters.
    "llama-7b": {"hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
                 "num_attention_heads": 32, "vocab_size": 32000, "max_position_embeddings": 4096},
    # The same family scaled down, to check the script and the scoring path on a CPU.
    "llama-tiny": {"hidden_size": 256, "intermediate_size": 688, "num_hidden_layers": 4,
                   "num_attention_heads": 4, "vocab_size": 32000, "max_position_embeddings": 4096},
}  # fmt: skip
TASK_SPLITS = (("ua-cbt", "fewshot"), ("up-titles-masked", "test"), ("lmes-cats-bin", "test"), ("lmes-low", "test"))


def task_texts(data_dir: Path) -> list[str]:
    """Every prompt of the local tasks: the tokenizer's training corpus."""
    return [format_prompt(i) for task, split in TASK_SPLITS for i in load_task(task, data_dir, split=split)]


def train_tokenizer(texts: list[str], vocab_size: int) -> transformers.PreTrainedTokenizerFast:
    """A byte-level BPE of up to ``vocab_size`` tokens trained on ``texts``."""
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  special_tokens=["<s>", "</s>"])  # fmt: skip
    bpe.train_from_iterator(texts, trainer=trainer)
    return transformers.PreTrainedTokenizerFast(tokenizer_object=bpe, bos_token="<s>", eos_token="</s>")


def random_model(arch: str, device: str, dtype: torch.dtype) -> Any:
    """A LlamaForCausalLM of the named shape with random weights, built directly on ``device``."""
    torch.manual_seed(0)
    config = transformers.LlamaConfig(**ARCHITECTURES[arch], torch_dtype=dtype)
    with torch.device(device):
        model = transformers.LlamaForCausalLM(config).to(dtype)
    return model.eval()


def time_task(scorer: HFCausalScorer, data_dir: Path, task: str, split: str, limit: int) -> dict[str, Any]:
    """Seconds and instances per second of 3-shot scoring of the first ``limit`` instances of a task."""
    instances = load_task(task, data_dir, split=split)
    evaluate_mc(instances, scorer, None, k_shots=3, limit=1)  # warm-up: CUDA kernels, allocator
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    started = time.perf_counter()
    result = evaluate_mc(instances, scorer, None, k_shots=3, limit=limit)
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    seconds = time.perf_counter() - started
    prompts = [format_prompt(i, sample_shots(i, instances, 3, seed=0)) for i in instances[:limit]]
    tokens = [len(scorer.tokenizer(prompt)["input_ids"]) for prompt in prompts]
    return {"task": task, "split": split, "n": result["n"], "seconds": round(seconds, 3),
            "instances_per_s": round(result["n"] / seconds, 3), "options": len(instances[0].options),
            "mean_prompt_tokens": round(sum(tokens) / len(tokens), 1)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--arch", choices=sorted(ARCHITECTURES), default="llama-tiny")
    parser.add_argument("--limit", type=int, default=20, help="instances per task")
    parser.add_argument("--dtype", choices=("float32", "bfloat16", "float16"), default=None)
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = getattr(torch, args.dtype or ("bfloat16" if device == "cuda" else "float32"))
    started = time.perf_counter()
    tokenizer = train_tokenizer(task_texts(args.data_dir), ARCHITECTURES[args.arch]["vocab_size"])
    model = random_model(args.arch, device, dtype)
    build_seconds = time.perf_counter() - started
    scorer = HFCausalScorer.from_model(model, tokenizer, f"random {args.arch}")
    rows = [time_task(scorer, args.data_dir, task, split, args.limit) for task, split in TASK_SPLITS]
    record = {
        "arch": args.arch,
        "parameters": sum(p.numel() for p in model.parameters()),
        "device": torch.cuda.get_device_name() if device == "cuda" else f"cpu ({platform.machine()})",
        "dtype": str(dtype).removeprefix("torch."),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "date": time.strftime("%Y-%m-%d"),
        "build_seconds": round(build_seconds, 1),
        "peak_gpu_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2) if device == "cuda" else None,
        "tasks": rows,
    }
    out = Path(__file__).parents[1] / "results" / f"ua_scoring_speed-{args.arch}-{device}.json"
    out.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{args.arch} ({record['parameters'] / 1e9:.2f} B parameters), {record['device']}, {record['dtype']}")
    print("\n| task | n | options | mean prompt tokens | seconds | instances/s |\n|---|---:|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['task']} | {row['n']} | {row['options']} | {row['mean_prompt_tokens']} | {row['seconds']} "
              f"| {row['instances_per_s']} |")  # fmt: skip


if __name__ == "__main__":
    main()
