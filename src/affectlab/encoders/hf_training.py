"""The torch side of the ``hf`` detector (:mod:`affectlab.detectors.hf`): an encoder with a pooled linear head,
tokenised inputs in dynamically padded batches, and the fine-tuning loop (AdamW, linear warm-up and decay,
gradient accumulation, bf16 autocast, early stopping on a dev score, best epoch kept).

The loss follows GoEmotions section 5.2 for multi-label spaces (a sigmoid per label, binary cross-entropy, here
optionally with capped positive weights) and is softmax cross-entropy for single-label spaces (EmoContext). This
module imports torch and transformers at the top: only :mod:`affectlab.detectors.hf` imports it, lazily.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn
from transformers import get_linear_schedule_with_warmup
from transformers.utils import logging as hf_logging

Encoded = dict[str, list[list[int]]]
"""Tokeniser output without padding: ``input_ids`` (and ``attention_mask``, ``token_type_ids``) per text."""


@dataclass(frozen=True)
class FitProgress:
    """One optimiser step of fine-tuning, for a progress bar (``fraction``, ``rows_done``, as the CLI's
    ``file_progress`` reads) or a status line (``str``). ``rows_done`` counts this epoch's texts, ``loss`` is the
    epoch's mean so far, ``train_seconds`` the wall time of all optimiser steps so far (dev scoring excluded, so
    that throughput can be read off it) and ``dev_score`` is set on an epoch's last step when there is a dev set."""

    epoch: int
    epochs: int
    step: int
    steps: int
    rows_done: int
    loss: float
    train_seconds: float
    dev_score: float | None = None

    @property
    def fraction(self) -> float:
        """Share of the optimiser steps of all ``epochs`` done (early stopping may end sooner)."""
        return (self.epoch - 1 + self.step / self.steps) / self.epochs

    def __str__(self) -> str:
        line = f"epoch {self.epoch}/{self.epochs}, step {self.step}/{self.steps}, loss {self.loss:.4f}"
        return line if self.dev_score is None else f"{line}, dev macro-F1 {self.dev_score:.4f}"


@dataclass(frozen=True)
class TrainingSettings:
    """The optimisation recipe (EmoBench-UA App. H: batch 64, early stopping patience 3, lr per model)."""

    lr: float
    epochs: int
    batch_size: int
    grad_accum: int
    weight_decay: float
    warmup: float
    patience: int | None
    seed: int
    group_by_length: bool


class EncoderClassifier(nn.Module):
    """A Hugging Face encoder, a pooled text vector (``cls``: the first token; ``mean``: the mean over real
    tokens, as sentence-transformers models are trained), dropout and one linear layer giving a logit per label."""

    def __init__(self, encoder: Any, n_labels: int, pooling: str, dropout: float) -> None:
        super().__init__()
        self.encoder: Any = encoder  # a transformers model (its config is not typed)
        self.pooling = pooling
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(encoder.config.hidden_size, n_labels)
        # the encoder's own initialisation scale for new layers (BERT-style heads)
        nn.init.normal_(self.head.weight, std=getattr(encoder.config, "initializer_range", 0.02))
        nn.init.zeros_(self.head.bias)

    def forward(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        """Logits ``(batch, n_labels)``."""
        hidden = self.encoder(**batch).last_hidden_state
        if self.pooling == "mean":
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
        else:
            pooled = hidden[:, 0]
        return self.head(self.dropout(pooled))


@contextmanager
def quiet_transformers() -> Iterator[None]:
    """Within this block transformers shows no progress bars (it draws them when loading and saving weights):
    the library never prints; the CLI draws its own bar."""
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


def resolve_device(device: str | None) -> torch.device:
    """``device``, or CUDA when available and the CPU otherwise."""
    return torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))


def resolve_bf16(bf16: bool | None, device: torch.device) -> bool:
    """``bf16``, or on by default on a GPU that supports bfloat16 (and off on CPUs, where it is often slower)."""
    if bf16 is not None:
        return bool(bf16)
    return device.type == "cuda" and torch.cuda.is_bf16_supported()


def collate(
    encoded: Encoded, rows: Sequence[int] | np.ndarray, pad_id: int, device: torch.device
) -> dict[str, torch.Tensor]:
    """Pad the ``rows`` of ``encoded`` to the longest of them only (dynamic padding)."""
    width = max(len(encoded["input_ids"][i]) for i in rows)
    batch = {}
    for key, values in encoded.items():
        fill = pad_id if key == "input_ids" else 0
        padded = [values[i] + [fill] * (width - len(values[i])) for i in rows]
        batch[key] = torch.tensor(padded, dtype=torch.long, device=device)
    return batch


def length_sorted_batches(encoded: Encoded, batch_size: int) -> list[np.ndarray]:
    """Row indices in batches of texts of similar length, so that a short text is not padded to a long one."""
    order = np.argsort([len(ids) for ids in encoded["input_ids"]], kind="stable")
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


def predict_logits(model: EncoderClassifier, encoded: Encoded, batch_size: int, pad_id: int, bf16: bool) -> np.ndarray:
    """Logits ``(n, n_labels)`` as float32, in the order of ``encoded``, over length-sorted batches."""
    device = next(model.parameters()).device
    n = len(encoded["input_ids"])
    out = np.zeros((n, model.head.out_features), dtype=np.float32)
    model.eval()
    with torch.inference_mode(), torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
        for rows in length_sorted_batches(encoded, batch_size):
            out[rows] = model(collate(encoded, rows, pad_id, device)).float().cpu().numpy()
    return out


def make_loss(Y: np.ndarray, multi_label: bool, class_weight: str | None, cap: float) -> nn.Module:
    """BCE with logits (multi-label, GoEmotions 5.2) or cross-entropy (single-label). ``class_weight="capped"``
    weighs a label's positives by negatives/positives, between 1 and ``cap`` (multi-label), or a class by
    n / (k * count), at most ``cap`` (single-label): uncapped, a GoEmotions label seen 77 times in 43k texts (grief)
    would get a weight of ~560 and dominate the loss."""
    weights = None
    if class_weight == "capped":
        counts = Y.sum(axis=0).astype(np.float64)
        if multi_label:
            raw = (len(Y) - counts) / np.maximum(counts, 1.0)
        else:
            raw = len(Y) / (Y.shape[1] * np.maximum(counts, 1.0))
        weights = torch.tensor(np.clip(raw, 1.0 if multi_label else 0.0, cap), dtype=torch.float32)
    if multi_label:
        return nn.BCEWithLogitsLoss(pos_weight=weights)
    return nn.CrossEntropyLoss(weight=weights)


def fine_tune(
    model: EncoderClassifier,
    train: Encoded,
    Y: np.ndarray,
    settings: TrainingSettings,
    loss_fn: nn.Module,
    pad_id: int,
    bf16: bool,
    dev_score: Callable[[], float] | None = None,
    progress: Callable[[FitProgress], None] | None = None,
) -> list[dict[str, Any]]:
    """Fine-tune ``model`` on ``train``/``Y`` in place; with ``dev_score`` (higher is better, computed after each
    epoch) stop after ``settings.patience`` epochs without improvement and restore the best epoch's weights
    (EmoBench-UA App. H). Returns one record per epoch: mean training loss, dev score and the seconds spent in
    optimiser steps (dev scoring excluded)."""
    device = next(model.parameters()).device
    multi_label = isinstance(loss_fn, nn.BCEWithLogitsLoss)
    targets = torch.tensor(Y, dtype=torch.float32 if multi_label else torch.long)
    if not multi_label:
        targets = targets.argmax(dim=1)
    loss_fn = loss_fn.to(device)
    n_batches = math.ceil(len(Y) / settings.batch_size)
    steps = math.ceil(n_batches / settings.grad_accum)
    optimizer, scheduler = make_optimizer(model, settings, steps * settings.epochs)
    rng = np.random.default_rng(settings.seed)
    lengths = np.array([len(ids) for ids in train["input_ids"]])
    history: list[dict[str, Any]] = []
    best_score, best_state, stale, train_seconds = -math.inf, None, 0, 0.0
    for epoch in range(1, settings.epochs + 1):
        batches = training_batches(lengths, settings.batch_size, rng, settings.group_by_length)
        losses, epoch_start = [], train_seconds
        for step, group in enumerate(_groups(batches, settings.grad_accum), start=1):
            started = time.perf_counter()
            losses.append(_accumulated_step(model, group, train, targets, loss_fn, pad_id, bf16))
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            # each step's loss read-back waits for the GPU, so the sum is exact but for the last update's kernels
            train_seconds += time.perf_counter() - started
            score = dev_score() if dev_score is not None and step == steps else None
            loss = float(np.mean(losses))
            if progress is not None:
                rows = min((step * settings.grad_accum) * settings.batch_size, len(Y))
                progress(FitProgress(epoch, settings.epochs, step, steps, rows, loss, train_seconds, score))
        seconds = round(train_seconds - epoch_start, 3)
        history.append({"epoch": epoch, "train_loss": loss, "dev_score": score, "seconds": seconds})
        if score is None:
            continue
        if score > best_score:
            best_score, best_state, stale = score, _cpu_copy(model), 0
        else:
            stale += 1
            if settings.patience is not None and stale >= settings.patience:
                break
    if best_state is not None:
        model.load_state_dict(best_state)
    return history


def training_batches(lengths: np.ndarray, batch_size: int, rng: np.random.Generator, by_length: bool) -> list[Any]:
    """One epoch's batches of row indices in random order. ``by_length`` (transformers' ``group_by_length``): within
    random mega-batches of 50 batches, texts are sorted by length before batching, and the batches are shuffled;
    a batch is then padded to texts of about its own length (on EmoBench-UA with an English WordPiece vocabulary,
    a random batch of 32 pads to ~117 tokens, a grouped one to about the mean of 49, and a CPU step is ~3x faster)."""
    order = rng.permutation(len(lengths))
    if by_length:
        size = 50 * batch_size
        chunks = [order[i : i + size] for i in range(0, len(order), size)]
        order = np.concatenate([chunk[np.argsort(-lengths[chunk], kind="stable")] for chunk in chunks])
    batches = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    return [batches[i] for i in rng.permutation(len(batches))] if by_length else batches


def make_optimizer(model: nn.Module, settings: TrainingSettings, total_steps: int) -> tuple[Any, Any]:
    """AdamW without weight decay on biases and LayerNorm weights (the BERT recipe), linear warm-up and decay;
    frozen parameters are left out."""
    decay: list[Any] = []
    no_decay: list[Any] = []
    for param in model.parameters():
        if param.requires_grad:
            (no_decay if param.ndim < 2 else decay).append(param)
    groups = [{"params": decay, "weight_decay": settings.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    on_gpu = next(model.parameters()).device.type == "cuda"
    optimizer = torch.optim.AdamW(groups, lr=settings.lr, fused=on_gpu)  # one kernel per step on a GPU
    scheduler = get_linear_schedule_with_warmup(optimizer, int(settings.warmup * total_steps), total_steps)
    return optimizer, scheduler


def _groups(batches: list[np.ndarray], size: int) -> Iterator[list[np.ndarray]]:
    """Consecutive micro-batches accumulated into one optimiser step."""
    for start in range(0, len(batches), size):
        yield batches[start : start + size]


def _accumulated_step(
    model: EncoderClassifier,
    group: list[np.ndarray],
    train: Encoded,
    targets: torch.Tensor,
    loss_fn: nn.Module,
    pad_id: int,
    bf16: bool,
) -> float:
    """Forward and backward over the micro-batches of one step, each loss scaled so that the gradient is that of
    the mean over micro-batches. Returns that mean loss."""
    device = next(model.parameters()).device
    model.train()
    total = 0.0
    for rows in group:
        batch = collate(train, rows, pad_id, device)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
            logits = model(batch)
        loss = loss_fn(logits.float(), targets[rows].to(device)) / len(group)
        loss.backward()
        total += float(loss.detach())
    return total


def _cpu_copy(model: nn.Module) -> dict[str, torch.Tensor]:
    """The weights of the best epoch so far, kept off the GPU so that they cost no accelerator memory."""
    return {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
