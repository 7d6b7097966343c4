"""Training checkpoints without pickle: after each epoch (and every so many steps within one), everything a run
needs to go on from there (the trainable
weights, the best epoch's weights, the optimiser's moments, the learning-rate schedule, the random states and the
epoch records), as safetensors and JSON in one folder, replaced atomically. A run longer than one working session
resumes from its last checkpoint and ends where an uninterrupted run would have (``tests/test_default_encoder``).

Written by hand because torch's own ``torch.save`` / ``Trainer`` checkpoints are pickles, which this project does
not write or load.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.errors import InputError

WEIGHTS, BEST, OPTIMIZER, STATE = "weights.safetensors", "best.safetensors", "optimizer.safetensors", "state.json"
ENCODER_WEIGHTS, ENCODER_CONFIG = "encoder.safetensors", "config.json"
HEADS_WEIGHTS, TRAINING_RECORD = "heads.safetensors", "training.json"
"""The files of a finished run (:func:`affectlab.encoders.multitask.save_trained`): the encoder's weights (but the
frozen word embeddings) and config, the heads and the training record."""


@dataclass
class LoopState:
    """Where a training loop is: the last finished epoch, its records, the best mean dev score so far, epochs
    without a better one, seconds spent in optimiser steps; and, saved part way through the next epoch, the
    optimiser steps of it already taken (``step``), their losses and rows, and the random state its plan of batches
    was drawn from (``epoch_rng``) and the seconds when it started, so that a resumed run draws the same plan and
    goes on at the next step."""

    epoch: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    best: float = -float("inf")
    stale: int = 0
    train_seconds: float = 0.0
    step: int = 0
    losses: list[float] = field(default_factory=list)
    rows_done: int = 0
    epoch_rng: dict[str, Any] | None = None
    epoch_started: float = 0.0


def trainable_state(model: Any) -> dict[str, Any]:
    """The parameters that train (frozen ones, such as the word embeddings, never change) and the buffers."""
    trainable = {name for name, param in model.named_parameters() if param.requires_grad}
    buffers = {name for name, _ in model.named_buffers()}
    return {k: v.detach().clone() for k, v in model.state_dict().items() if k in trainable | buffers}


def save_checkpoint(folder: Path, model: Any, best: dict[str, Any] | None, optimizer: Any, scheduler: Any,
                    rng: np.random.Generator, loop: LoopState) -> None:  # fmt: skip
    """Write the checkpoint to ``folder`` (a new folder beside it, then renamed over it)."""
    import torch
    from safetensors.torch import save_file

    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    save_file({k: v.contiguous() for k, v in trainable_state(model).items()}, str(tmp / WEIGHTS))
    if best is not None:
        save_file({k: v.contiguous() for k, v in best.items()}, str(tmp / BEST))
    tensors, groups = _optimizer_parts(optimizer.state_dict())
    save_file({**tensors, "torch_rng": torch.get_rng_state()}, str(tmp / OPTIMIZER))
    state = {"loop": loop.__dict__, "param_groups": groups, "scheduler": scheduler.state_dict(),
             "numpy_rng": rng.bit_generator.state}  # fmt: skip
    (tmp / STATE).write_text(json.dumps(state, indent=1, default=float), encoding="utf-8")
    old = folder.with_name(folder.name + ".old")
    if folder.exists():
        os.replace(folder, old)
    os.replace(tmp, folder)
    shutil.rmtree(old, ignore_errors=True)


def load_checkpoint(folder: Path, model: Any, optimizer: Any, scheduler: Any,
                    rng: np.random.Generator) -> tuple[LoopState, dict[str, Any] | None]:  # fmt: skip
    """Restore a run from ``folder`` into ``model``, ``optimizer``, ``scheduler`` and ``rng``; returns the loop's
    state and the best epoch's weights (None if no epoch was scored)."""
    import torch
    from safetensors.torch import load_file

    state = json.loads((folder / STATE).read_text(encoding="utf-8"))
    model.load_state_dict(load_file(str(folder / WEIGHTS)), strict=False)
    tensors = load_file(str(folder / OPTIMIZER))
    torch.set_rng_state(tensors.pop("torch_rng"))
    optimizer.load_state_dict(_optimizer_dict(tensors, state["param_groups"]))
    scheduler.load_state_dict(state["scheduler"])
    rng.bit_generator.state = state["numpy_rng"]
    best = load_file(str(folder / BEST)) if (folder / BEST).is_file() else None
    return LoopState(**state["loop"]), best


def has_checkpoint(folder: Path | None) -> bool:
    """Whether ``folder`` holds a finished checkpoint."""
    return folder is not None and (folder / STATE).is_file()


def check_finished_run(folder: Path) -> None:
    """Refuse a folder that does not hold every file of a finished run; torch-free, so that a command refuses at
    once, before loading any data or model."""
    missing = [name for name in (TRAINING_RECORD, ENCODER_CONFIG, ENCODER_WEIGHTS, HEADS_WEIGHTS)
               if not (folder / name).is_file()]  # fmt: skip
    if missing:
        raise InputError(f"{str(folder)!r} holds no finished fine-tuning run (no {', '.join(missing)})")


def _optimizer_parts(state_dict: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An optimiser's state as flat tensors (``state.<param>.<name>``) and JSON-ready parameter groups."""
    tensors = {f"state.{index}.{name}": value.contiguous()
               for index, values in state_dict["state"].items() for name, value in values.items()}  # fmt: skip
    return tensors, state_dict["param_groups"]


def _optimizer_dict(tensors: dict[str, Any], groups: list[dict[str, Any]]) -> dict[str, Any]:
    """The optimiser's state dict back from :func:`_optimizer_parts`' two halves."""
    state: dict[int, dict[str, Any]] = {}
    for key, value in tensors.items():
        _, index, name = key.split(".", 2)
        state.setdefault(int(index), {})[name] = value
    for group in groups:
        if "betas" in group:
            group["betas"] = tuple(group["betas"])
    return {"state": state, "param_groups": groups}
