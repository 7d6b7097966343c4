"""Evaluate a detector on a dataset split and return a run record with one schema for every model and dataset."""

from __future__ import annotations

import json
import platform
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.datasets import DatasetSpec
from affectlab.datasets.userfile import SPLIT_ALIASES
from affectlab.detectors import Detector
from affectlab.detectors.batch import prepare_batch
from affectlab.detectors.resolve import describe_model
from affectlab.encoders.sentence import embedding_cache
from affectlab.errors import InputError
from affectlab.evaluation.training import label_metric
from affectlab.io.progress import Progress, quiet
from affectlab.labels import LabelSpace
from affectlab.metrics.bootstrap import bootstrap_ci
from affectlab.metrics.classification import classification_scores, macro_f1_emotions
from affectlab.metrics.intensity import intensity_levels, pearson_intensity, pearson_intensity_ci, pearson_per_emotion
from affectlab.versions import library_versions as installed_versions

LIBRARIES = ("affectlab", "numpy", "scikit-learn", "datasets", "simplemma")


@dataclass
class RunRecord:
    """One evaluation: what ran on what, the scores (with 95 % bootstrap intervals), size, time and versions."""

    model: str
    dataset: str
    split: str
    n: int
    metrics: dict[str, Any]
    seconds: float
    model_config: dict[str, Any] = field(default_factory=dict)
    training: dict[str, Any] | None = None
    versions: dict[str, str] = field(default_factory=dict)
    git_commit: str | None = None
    machine: str = ""
    outputs: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    """Per-text probabilities, predictions and gold (``probs``, ``pred``, ``gold``, ``ids``, ``texts``) for
    reports; not part of the JSON record."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the ``affectlab eval --json`` output), without ``outputs``."""
        return {k: v for k, v in asdict(self).items() if k != "outputs"}


def column_map(model_space: LabelSpace, data_space: LabelSpace) -> list[int]:
    """Columns of the model's probabilities that give the dataset's labels, in the dataset's order; the
    dataset's labels must all be labels of the model."""
    missing = [label for label in data_space.labels if label not in model_space.labels]
    if missing:
        raise InputError(
            f"the dataset has labels the model does not predict ({', '.join(missing)}); "
            f"the model's labels are {', '.join(model_space.labels)}"
        )
    return [model_space.labels.index(label) for label in data_space.labels]


def evaluate(
    model: Detector,
    spec: DatasetSpec,
    data: Any,
    split: str = "test",
    n_bootstrap: int = 1000,
    progress: Progress = quiet,
    started: float | None = None,
    training: dict[str, Any] | None = None,
) -> RunRecord:
    """Score ``model`` on ``data[split]`` with the dataset's metrics; ``started`` (a ``perf_counter`` value)
    lets the record's seconds include loading and training."""
    started = time.perf_counter() if started is None else started
    split = SPLIT_ALIASES.get(split, split)
    if split not in data:
        raise InputError(f"dataset {spec.name!r} has no split {split!r} (splits: {', '.join(data)})")
    rows = data[split]
    space = spec.label_space
    column_map(model.label_space, space)  # fail on incompatible label spaces before predicting
    check_rates_intensity(model, spec)
    progress(f"predicting {len(rows)} texts of {spec.name} {split}")
    with embedding_cache():
        scored = model.score(prepare_batch(model, rows), intensity=spec.rates_intensity)
        columns = column_map(model.label_space, space)
        probs, predicted = scored.probs, scored.labels[:, columns]
        rated = scored.intensities[:, columns] if scored.intensities is not None else None
    gold = space.encode(rows["labels"])
    progress("scoring")
    classification_metric = label_metric(spec)
    metrics = classification_scores(gold, predicted, space, classification_metric)
    metrics["primary"]["ci95"] = list(bootstrap_ci(gold, predicted, space, classification_metric, n_bootstrap))
    metrics["macro_f1_ci95"] = list(bootstrap_ci(gold, predicted, space, "macro_f1", n_bootstrap))
    if rated is not None:
        metrics |= intensity_scores(rows, space, rated, predicted, n_bootstrap)
    metrics |= model.diagnostics()  # e.g. generated answers that named no label (MASIVE App. F.1)
    return RunRecord(
        model=model.name,
        dataset=spec.name,
        split=split,
        n=len(rows),
        metrics=metrics,
        seconds=round(time.perf_counter() - started, 3),
        model_config={
            "params": _jsonable(model.params),
            "decision": model.decision_.to_dict() if model.decision_ else None,
            **({"left_out": list(left_out)} if (left_out := model.capabilities.left_out) else {}),
        },
        training=training,
        versions=library_versions(),
        git_commit=git_commit(),
        machine=f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        outputs={
            "probs": probs[:, columns],
            "pred": predicted,
            "gold": gold,
            "ids": [str(i) for i in rows["id"]] if "id" in rows.column_names else [str(i) for i in range(len(rows))],
            "texts": list(rows["text"]),
        },
    )


def check_rates_intensity(model: Detector, spec: DatasetSpec) -> None:
    """Refuse intensity data (SemEval-2025 track B, scored by Pearson's r) for a detector that does not rate
    intensity. A detector not trained yet is refused only when its kind never rates it (its capabilities'
    ``may_rate_intensity``): training may still give an embedding model an intensity head."""
    if not spec.rates_intensity:
        return
    trained, capabilities = model.capabilities_ is not None, model.capabilities
    if not capabilities.may_rate_intensity or (trained and not capabilities.rates_intensity):
        raise InputError(
            f"{describe_model(model)} does not rate intensity, which {spec.name} is scored on (a model whose encoder "
            "was fine-tuned with an intensity head does: the default ekman head as `affectlab build-default "
            "--fine-tune` builds it)"
        )


def intensity_scores(
    rows: Any, space: LabelSpace, rated: np.ndarray, predicted: np.ndarray, n_bootstrap: int
) -> dict[str, Any]:
    """Track B's scores of a detector's intensities ``rated`` (unrounded, the dataset's columns) for ``rows``: the
    primary one on the 0-3 levels a user is shown (:func:`intensity_levels`), with its interval, per emotion, and
    on the unrounded ratings; the track A score of the same rows moves to ``labels_primary``."""
    emotions = [j for j, label in enumerate(space.labels) if label != space.none_label]
    gold = np.array(
        [[json.loads(meta)["intensity"][space.labels[j]] for j in emotions] for meta in rows["meta"]], dtype=float
    ).reshape(len(rows), len(emotions))
    levels = intensity_levels(rated[:, emotions], predicted[:, emotions])
    labels_score = macro_f1_emotions(space.encode(rows["labels"]), predicted, space)
    interval = list(pearson_intensity_ci(gold, levels, n_bootstrap))
    per_emotion = pearson_per_emotion(gold, levels)
    return {
        "labels_primary": {"name": "macro_f1_emotions", "value": labels_score},
        "primary": {"name": "pearson_intensity", "value": pearson_intensity(gold, levels), "ci95": interval},
        "intensity_per_label": {space.labels[j]: r for j, r in zip(emotions, per_emotion, strict=True)},
        "pearson_unrounded": pearson_intensity(gold, rated[:, emotions]),
    }


def _jsonable(params: dict[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}


def library_versions() -> dict[str, str]:
    """Installed versions of the libraries a result depends on."""
    return installed_versions(LIBRARIES)


def git_commit() -> str | None:
    """The git commit of the affectlab source tree, when it runs from a checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None
