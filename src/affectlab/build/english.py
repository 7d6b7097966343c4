"""The optional English member of the goemotions head (``build-default --english-encoder``): a fine-tuned ``hf``
encoder, stored int8, joining the head's ensemble as an optional member with the weights and decision re-tuned on
dev (the head without it kept for when it cannot be loaded)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from affectlab.build.sources import joined_data
from affectlab.detectors import Detector, read_detector
from affectlab.detectors.default import HeadRecipe
from affectlab.detectors.ensemble import EnsembleDetector, combine, tune_ensemble_weights
from affectlab.detectors.serialization import FORMAT as MODEL_FORMAT
from affectlab.errors import InputError
from affectlab.evaluation.training import train_detector
from affectlab.io.progress import Progress
from affectlab.metrics.thresholds import fit_decision

ENGLISH_ENCODER_HEAD = "goemotions"
"""The head that takes a fine-tuned English encoder as an optional third member."""
ENGLISH_ENCODER_RECIPE: dict[str, Any] = {
    "pooling": "mean",
    "class_weight": "capped",
    "weight_cap": 10.0,
    "lr": 5e-5,
    "epochs": 3,
    "batch_size": 32,
    "max_length": 64,
}
"""How ``--english-encoder`` fine-tunes an encoder directory: sigmoid + BCE (GoEmotions 5.2), mean pooling, positive
weights capped at 10, early stopping and thresholds on dev. Issue 6's GPU recipe runs 4 epochs; the shipped member
was trained for 3 on a 2-core CPU (70 minutes), and this recipe reproduces that one."""


def english_encoder_member(
    source: str | os.PathLike[str], recipe: HeadRecipe, data_dir: str | os.PathLike[str] | None, progress: Progress
) -> Detector:
    """The head's fine-tuned encoder, as it ships (int8 storage, reloaded so that dev tuning sees those weights):
    a saved affectlab ``hf`` model for the head's labels is taken as it is; a Hugging Face encoder directory is
    fine-tuned on the head's data with :data:`ENGLISH_ENCODER_RECIPE` first (on a CPU that takes hours)."""
    from affectlab.detectors.hf import HFEncoderDetector

    if _is_affectlab_model(source):
        model = read_detector(source)
        if not isinstance(model, HFEncoderDetector) or model.label_space.labels != recipe.space.labels:
            raise InputError(f"{str(source)!r} is not an hf model trained on the {recipe.name} labels")
    else:
        ((names),) = recipe.routes.values()
        spec, data = joined_data(recipe, names, data_dir)
        model = HFEncoderDetector(model=str(source), **ENGLISH_ENCODER_RECIPE)
        train_detector(model, spec, data, progress=progress)
    model.params["weight_storage"] = "int8"
    with tempfile.TemporaryDirectory() as tmp:
        model.save(Path(tmp) / "encoder")
        return read_detector(Path(tmp) / "encoder")


def _is_affectlab_model(directory: str | os.PathLike[str]) -> bool:
    """Whether ``directory`` holds a saved affectlab model (a Hugging Face one has a config.json too)."""
    path = Path(directory) / "config.json"
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("format") == MODEL_FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def add_optional_member(
    model: EnsembleDetector,
    member: Detector,
    recipe: HeadRecipe,
    data_dir: str | os.PathLike[str] | None,
    progress: Progress,
) -> EnsembleDetector:
    """``model`` plus the trained ``member`` as an optional last member: weights and decision re-tuned on dev for
    all members, the old ones kept for when the member cannot be loaded."""
    ((names),) = recipe.routes.values()
    _, data = joined_data(recipe, names, data_dir)
    progress(f"tuning the {recipe.name} head's weights with the {member.name} member on dev")
    combined = model.with_optional_member(member)
    y_dev = recipe.space.encode(data["dev"]["labels"])
    probas = combined.member_probas(data["dev"])
    combined.set_weights(tune_ensemble_weights(probas, y_dev, recipe.space, recipe.primary_metric, combined.rule()))
    decision = fit_decision(
        combined.rule(),
        combine(probas, combined.weights_),
        y_dev,
        recipe.space,
        recipe.primary_metric,
        train_prior=recipe.space.encode(data["train"]["labels"]).mean(axis=0),
    )
    combined.set_decision(decision)
    return combined
