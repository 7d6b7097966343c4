"""Multi-task fine-tuning of one encoder (the torch side): a shared encoder, mean pooling, and one linear head per
task; a text may train several heads at once (a GoEmotions comment trains the 28-label head and the English Ekman
head), and a label a dataset does not annotate is left out of its loss (NaN in its target). A task that reads
dialogue context gets the pooled vector of the earlier turns beside the text's, as ``embedding-lr`` does, so a
head fine-tuned here can be served by that detector unchanged.

Batches hold rows of one source (one dataset) each, grouped by length; the batches of all sources are shuffled
together every epoch, and a large source contributes a fresh random sample of ``per_epoch`` rows per epoch so that
an epoch fits a CPU. The optimiser recipe is the ``hf`` detector's (:mod:`affectlab.encoders.hf_training`).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional

from affectlab.encoders.checkpoint import (
    ENCODER_CONFIG,
    ENCODER_WEIGHTS,
    HEADS_WEIGHTS,
    TRAINING_RECORD,
    check_finished_run,
)
from affectlab.encoders.hf_training import (
    Encoded,
    FitProgress,
    TrainingSettings,
    collate,
    length_sorted_batches,
    make_optimizer,
    training_batches,
)


@dataclass(frozen=True)
class TaskSpec:
    """A head: its name, the labels it scores (in order), sigmoid (multi-label) or softmax, whether it reads the
    earlier dialogue turns, and whether it is a regression (one value per label, e.g. an emotion's intensity scaled
    to 0-1, trained by squared error) rather than a classifier."""

    name: str
    labels: tuple[str, ...]
    multi_label: bool
    uses_context: bool = False
    regression: bool = False

    @property
    def n_labels(self) -> int:
        """How many logits the head gives."""
        return len(self.labels)


@dataclass
class Source:
    """The training rows of one dataset: token ids of the texts (and of their joined earlier turns, for tasks that
    read context), and per task a float target matrix with NaN where a label is not annotated. ``per_epoch`` rows
    are drawn afresh each epoch (None: all rows every epoch)."""

    name: str
    encoded: Encoded
    targets: dict[str, np.ndarray]
    context: Encoded | None = None
    per_epoch: int | None = None

    def __len__(self) -> int:
        return len(self.encoded["input_ids"])


class MultiTaskModel(nn.Module):
    """A shared encoder, mean pooling over real tokens, dropout, and one linear head per task."""

    def __init__(self, encoder: Any, tasks: Sequence[TaskSpec], dropout: float = 0.1) -> None:
        super().__init__()
        self.encoder: Any = encoder  # a transformers model (its config is not typed)
        self.tasks = {task.name: task for task in tasks}
        self.dropout = nn.Dropout(dropout)
        hidden = encoder.config.hidden_size
        linears = {task.name: nn.Linear(hidden * (2 if task.uses_context else 1), task.n_labels) for task in tasks}
        for linear in linears.values():
            nn.init.normal_(linear.weight, std=getattr(encoder.config, "initializer_range", 0.02))
            nn.init.zeros_(linear.bias)
        self.heads: Any = nn.ModuleDict(linears)

    def pooled(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        """Mean of the last hidden states over real tokens: ``(batch, hidden)``."""
        hidden = self.encoder(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)

    def forward(
        self, batch: dict[str, torch.Tensor], tasks: Sequence[str], context: dict[str, torch.Tensor] | None = None
    ) -> dict[str, torch.Tensor]:
        """Logits per task in ``tasks`` for the texts of ``batch`` (and their ``context``, where a task reads it)."""
        text = self.dropout(self.pooled(batch))
        turns = self.dropout(self.pooled(context)) if context is not None else None
        logits = {}
        for name in tasks:
            features = text
            if self.tasks[name].uses_context:
                if turns is None:
                    raise ValueError(f"task {name!r} reads the earlier turns, but no context was given")
                features = torch.cat([text, turns], dim=1)
            logits[name] = self.heads[name](features)
        return logits


def freeze_word_embeddings(model: MultiTaskModel) -> int:
    """Keep the word-embedding matrix as it is (most of a multilingual encoder's parameters); returns how many
    parameters are left to train."""
    model.encoder.get_input_embeddings().weight.requires_grad_(False)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def positive_weights(targets: Sequence[np.ndarray], cap: float) -> np.ndarray:
    """Per label: annotated negatives / positives over all sources' rows, clipped to ``[1, cap]`` (the ``hf``
    detector's ``class_weight="capped"``: rare labels count more, but none dominates)."""
    stacked = np.vstack(targets)
    positives = np.nansum(stacked, axis=0)
    annotated = np.sum(~np.isnan(stacked), axis=0)
    return np.clip((annotated - positives) / np.maximum(positives, 1.0), 1.0, cap)


def task_loss(logits: torch.Tensor, target: torch.Tensor, task: TaskSpec, pos_weight: torch.Tensor | None) -> Any:
    """Masked binary cross-entropy (multi-label), squared error (regression; NaN targets left out of both) or
    cross-entropy (single-label)."""
    if task.regression:
        annotated = ~torch.isnan(target)
        errors = (logits - torch.nan_to_num(target)) ** 2
        return (errors * annotated).sum() / annotated.sum().clamp(min=1)
    if not task.multi_label:
        return functional.cross_entropy(logits, target.argmax(dim=1))
    annotated = ~torch.isnan(target)
    losses = functional.binary_cross_entropy_with_logits(
        logits, torch.nan_to_num(target), pos_weight=pos_weight, reduction="none"
    )
    return (losses * annotated).sum() / annotated.sum().clamp(min=1)


def pooled_vectors(
    model: MultiTaskModel, encoded: Encoded, batch_size: int, pad_id: int, bf16: bool = False
) -> np.ndarray:
    """Mean-pooled encoder outputs ``(n, hidden)`` in the order of ``encoded``, over length-sorted batches."""
    device = next(model.parameters()).device
    out = np.zeros((len(encoded["input_ids"]), model.encoder.config.hidden_size), dtype=np.float32)
    model.eval()
    with torch.inference_mode(), torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
        for rows in length_sorted_batches(encoded, batch_size):
            out[rows] = model.pooled(collate(encoded, rows, pad_id, device)).float().cpu().numpy()
    return out


def head_logits(model: MultiTaskModel, task: str, text: np.ndarray, context: np.ndarray | None = None) -> np.ndarray:
    """A task's logits from pooled vectors (as the serving side computes them, without dropout)."""
    head = model.heads[task]
    features = text
    if model.tasks[task].uses_context:
        if context is None:
            raise ValueError(f"task {task!r} reads the earlier turns, but no context vectors were given")
        features = np.hstack([text, context])
    return features @ head.weight.detach().cpu().numpy().T + head.bias.detach().cpu().numpy()


@dataclass
class _Plan:
    """One epoch's batches: (source index, row indices)."""

    batches: list[tuple[int, np.ndarray]]


def _epoch_plan(sources: Sequence[Source], batch_size: int, rng: np.random.Generator, by_length: bool) -> _Plan:
    batches = []
    for index, source in enumerate(sources):
        if len(source) == 0:  # e.g. derived rows that a dataset has none of
            continue
        rows = np.arange(len(source))
        if source.per_epoch is not None and source.per_epoch < len(source):
            rows = np.sort(rng.choice(len(source), source.per_epoch, replace=False))
        lengths = np.array([len(source.encoded["input_ids"][i]) for i in rows])
        batches += [(index, rows[b]) for b in training_batches(lengths, batch_size, rng, by_length)]
    return _Plan([batches[i] for i in rng.permutation(len(batches))])


def fine_tune_multitask(
    model: MultiTaskModel,
    sources: Sequence[Source],
    settings: TrainingSettings,
    pad_id: int,
    pos_weights: Mapping[str, np.ndarray] | None = None,
    dev_scores: Callable[[], dict[str, float]] | None = None,
    progress: Callable[[FitProgress], None] | None = None,
    checkpoint_dir: Path | None = None,
    checkpoint_every: int | None = None,
) -> list[dict[str, Any]]:
    """Fine-tune ``model`` on ``sources`` in place. After each epoch ``dev_scores`` (higher is better) is called;
    the epoch with the best mean is kept, and training stops after ``settings.patience`` epochs without a better
    one. Returns a record per epoch: rows seen, mean loss, seconds in optimiser steps, rows/s and the dev scores.

    With ``checkpoint_dir``, the run is saved there after each epoch and every ``checkpoint_every`` optimiser steps
    within one (:mod:`affectlab.encoders.checkpoint`: an epoch on a 2-core CPU is about an hour), and a run that
    finds a checkpoint there goes on from it, ending as an uninterrupted run would."""
    from affectlab.encoders.checkpoint import (
        LoopState,
        has_checkpoint,
        load_checkpoint,
        save_checkpoint,
        trainable_state,
    )

    device = next(model.parameters()).device
    weights = {name: torch.tensor(w, dtype=torch.float32, device=device) for name, w in (pos_weights or {}).items()}
    rng = np.random.default_rng(settings.seed)
    rows_per_epoch = sum(min(len(s), s.per_epoch or len(s)) for s in sources)
    steps = math.ceil(sum(math.ceil(min(len(s), s.per_epoch or len(s)) / settings.batch_size) for s in sources) /
                      settings.grad_accum)  # fmt: skip
    optimizer, scheduler = make_optimizer(model, settings, steps * settings.epochs)
    loop, best_state = LoopState(), None
    if checkpoint_dir is not None and has_checkpoint(checkpoint_dir):
        loop, best_state = load_checkpoint(checkpoint_dir, model, optimizer, scheduler, rng)
    history, best, stale, train_seconds = loop.history, loop.best, loop.stale, loop.train_seconds
    for epoch in range(loop.epoch + 1, settings.epochs + 1):
        if settings.patience is not None and stale >= settings.patience:
            break
        part_way = epoch == loop.epoch + 1 and loop.step > 0
        if part_way and loop.epoch_rng is not None:
            rng.bit_generator.state = loop.epoch_rng  # the plan this epoch was drawn from
        epoch_rng = dict(rng.bit_generator.state)
        plan = _epoch_plan(sources, settings.batch_size, rng, settings.group_by_length)
        losses, rows_done = (list(loop.losses), loop.rows_done) if part_way else ([], 0)
        epoch_start = loop.epoch_started if part_way else train_seconds
        groups = [plan.batches[i : i + settings.grad_accum] for i in range(0, len(plan.batches), settings.grad_accum)]
        for step, group in enumerate(groups, start=1):
            if part_way and step <= loop.step:
                continue
            started = time.perf_counter()
            losses.append(_optimiser_step(model, sources, group, weights, pad_id, settings, optimizer, scheduler))
            train_seconds += time.perf_counter() - started
            rows_done += sum(len(rows) for _, rows in group)
            if progress is not None and step < len(groups):
                progress(FitProgress(epoch, settings.epochs, step, len(groups), rows_done, float(np.mean(losses)),
                                     train_seconds))  # fmt: skip
            if checkpoint_dir is not None and checkpoint_every and step % checkpoint_every == 0 and step < len(groups):
                save_checkpoint(checkpoint_dir, model, best_state, optimizer, scheduler, rng, LoopState(
                    epoch - 1, history, best, stale, train_seconds, step, losses, rows_done, epoch_rng, epoch_start))
        scores = dev_scores() if dev_scores is not None else {}
        mean_score = float(np.mean(list(scores.values()))) if scores else None
        train_loss, seconds = float(np.mean(losses)), train_seconds - epoch_start
        history.append({"epoch": epoch, "rows": rows_per_epoch, "train_loss": train_loss, "seconds": round(seconds, 1),
                        "rows_per_second": round(rows_done / seconds, 2), "dev": scores,
                        "dev_mean": mean_score})  # fmt: skip
        if progress is not None:
            progress(FitProgress(epoch, settings.epochs, len(groups), len(groups), rows_done, train_loss,
                                 train_seconds, mean_score))  # fmt: skip
        if mean_score is not None and mean_score > best:
            best, best_state, stale = mean_score, trainable_state(model), 0
        elif mean_score is not None:
            stale += 1
        if checkpoint_dir is not None:
            save_checkpoint(checkpoint_dir, model, best_state, optimizer, scheduler, rng,
                            LoopState(epoch, history, best, stale, train_seconds))  # fmt: skip
    if best_state is not None:
        model.load_state_dict(best_state, strict=False)  # the frozen word embeddings are not in it
    return history


def _optimiser_step(
    model: MultiTaskModel,
    sources: Sequence[Source],
    group: Sequence[tuple[int, np.ndarray]],
    pos_weights: Mapping[str, torch.Tensor],
    pad_id: int,
    settings: TrainingSettings,
    optimizer: Any,
    scheduler: Any,
) -> float:
    """One optimiser step over ``group`` (gradients clipped to norm 1); returns its loss."""
    loss = _step(model, sources, group, pos_weights, pad_id, settings)
    nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], 1.0)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return loss


def _step(
    model: MultiTaskModel,
    sources: Sequence[Source],
    group: Sequence[tuple[int, np.ndarray]],
    pos_weights: Mapping[str, torch.Tensor],
    pad_id: int,
    settings: TrainingSettings,
) -> float:
    """Forward and backward over the micro-batches of one optimiser step; each source's tasks' losses are summed,
    and the micro-batch losses averaged."""
    device = next(model.parameters()).device
    model.train()
    total = 0.0
    for index, rows in group:
        source = sources[index]
        batch = collate(source.encoded, rows, pad_id, device)
        context = collate(source.context, rows, pad_id, device) if source.context is not None else None
        logits = model(batch, list(source.targets), context)
        loss = sum(
            task_loss(logits[name], torch.tensor(target[rows], device=device), model.tasks[name], pos_weights.get(name))
            for name, target in source.targets.items()
        )
        loss = loss / len(group)
        loss.backward()
        total += float(loss.detach())
    return total


def save_trained(model: MultiTaskModel, out: Path, record: dict[str, Any]) -> None:
    """Write the encoder's config and weights (but the frozen word embeddings: the serving side reads them from
    where they came from), each head's ``weight``/``bias``, and the training ``record`` (which names the tasks)."""
    from safetensors.torch import save_file

    state = {k: v.detach().cpu().contiguous() for k, v in model.encoder.state_dict().items()}
    state.pop("embeddings.word_embeddings.weight")
    save_file(state, str(out / ENCODER_WEIGHTS))
    model.encoder.config.to_json_file(str(out / ENCODER_CONFIG))
    heads = {f"{name}.{key}": value.detach().cpu().contiguous() for name, head in model.heads.items()
             for key, value in head.state_dict().items()}  # fmt: skip
    save_file(heads, str(out / HEADS_WEIGHTS))
    (out / TRAINING_RECORD).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def load_trained(model: MultiTaskModel, directory: Path) -> dict[str, Any]:
    """Load the encoder weights and heads :func:`save_trained` wrote in ``directory`` into ``model`` (its word
    embeddings stay as they are: they were frozen and not saved) and return that run's record. The run must have
    trained the same tasks with the same label counts."""
    from safetensors.torch import load_file

    from affectlab.errors import InputError

    check_finished_run(directory)
    record = json.loads((directory / TRAINING_RECORD).read_text(encoding="utf-8"))
    missing, unexpected = model.encoder.load_state_dict(load_file(str(directory / ENCODER_WEIGHTS)), strict=False)
    frozen = ("embeddings.word_embeddings.weight", "position_ids", "token_type_ids")
    if unexpected or any(not name.endswith(frozen) for name in missing):
        raise InputError(f"the encoder in {str(directory)!r} does not fit (missing {missing}, unexpected {unexpected})")
    heads = load_file(str(directory / HEADS_WEIGHTS))
    for name, head in model.heads.items():
        weights = {key: heads.get(f"{name}.{key}") for key in ("weight", "bias")}
        if any(w is None or w.shape != getattr(head, key).shape for key, w in weights.items()):
            raise InputError(f"the run in {str(directory)!r} has no {name} head of this shape to go on from")
        head.load_state_dict(weights)
    return record


def read_heads(directory: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each task's head as float32 ``(weight (n_labels, features), bias (n_labels,))`` from a trained directory."""
    from safetensors.numpy import load_file

    tensors = load_file(str(directory / HEADS_WEIGHTS))
    names = sorted({key.rsplit(".", 1)[0] for key in tensors})
    return {name: (tensors[f"{name}.weight"].astype(np.float32), tensors[f"{name}.bias"].astype(np.float32))
            for name in names}  # fmt: skip
