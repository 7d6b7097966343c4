"""Loading a local Hugging Face causal language model (no download), shared by generation
(:class:`~affectlab.llm.backends.LocalCausalLMBackend`) and by likelihood scoring of multiple-choice answers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from affectlab.errors import DataNotFoundError, InputError
from affectlab.extras import require

DTYPES = ("float32", "float16", "bfloat16")


@dataclass
class LoadedCausalLM:
    """A causal LM in evaluation mode on ``device``, with its tokenizer."""

    model: Any
    tokenizer: Any
    device: str


def load_causal_lm(model_dir: str | Path, device: str | None = None, dtype: str | None = None) -> LoadedCausalLM:
    """The model and tokenizer in ``model_dir``. ``device`` defaults to CUDA when available, else CPU; ``dtype``
    (``float32``, ``float16``, ``bfloat16``) defaults to float32 on CPU and to the checkpoint's own dtype on CUDA."""
    torch = require("torch", "hf", "scoring with a Hugging Face model")
    transformers = require("transformers", "hf", "scoring with a Hugging Face model")
    path = Path(model_dir)
    if not (path / "config.json").is_file():
        raise DataNotFoundError(f"no Hugging Face model in {path} (config.json is missing)")
    if dtype is not None and dtype not in DTYPES:
        raise InputError(f"unknown dtype {dtype!r}; choose one of {', '.join(DTYPES)}")
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    chosen = getattr(torch, dtype) if dtype else ("auto" if device.startswith("cuda") else torch.float32)
    tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=chosen, local_files_only=True)
    model.to(device).eval()
    return LoadedCausalLM(model, tokenizer, device)


def position_limit(model: Any) -> int:
    """How many positions ``model`` reads (its config's limit; 2048 when the config names none)."""
    config = model.config
    for name in ("max_position_embeddings", "n_positions", "max_sequence_length"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return 2048  # lm-evaluation-harness's default when a config names no limit
