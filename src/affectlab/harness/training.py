"""Train a detector on a dataset's train split and tune its decision (thresholds or prior shift) on dev."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from affectlab.datasets import DatasetSpec
from affectlab.errors import InputError
from affectlab.metrics.thresholds import fit_decision
from affectlab.models import Detector

Progress = Callable[[str], None]


def _quiet(_stage: str) -> None:
    """The default progress callback: report nothing."""


def train_detector(
    model: Detector, spec: DatasetSpec, data: Any, tune: bool = True, progress: Progress = _quiet
) -> dict[str, Any]:
    """Fit ``model`` on ``data["train"]`` and tune its decision on ``data["dev"]`` (when there is one) for the
    dataset's primary metric. Returns a summary: sizes, seconds and the tuned decision."""
    if "train" not in data:
        raise InputError(f"dataset {spec.name!r} has no train split to train on (splits: {', '.join(data)})")
    space = spec.label_space
    train = data["train"]
    started = time.perf_counter()
    progress(f"training {model.name} on {spec.name} ({len(train)} texts)")
    y_train = space.encode(train["labels"])
    model.fit(train, y_train, space)
    dev = data.get("dev")
    probs = y_dev = None
    if dev is not None and tune:
        progress(f"tuning the decision on dev ({len(dev)} texts)")
        probs, y_dev = model.predict_proba(dev), space.encode(dev["labels"])
    model.decision_ = fit_decision(
        model.rule(), probs, y_dev, space, spec.primary_metric, train_prior=y_train.mean(axis=0), tune=tune
    )
    return {
        "dataset": spec.name,
        "n_train": len(train),
        "n_dev": 0 if dev is None else len(dev),
        "seconds": round(time.perf_counter() - started, 3),
        "decision": model.decision_.to_dict(),
    }
