"""Detectors by name (``keywords``, ``tfidf-lr``, ``tfidf-rf``) and loading of saved ones."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from affectlab.errors import ModelFileError
from affectlab.models.base import Detector, Inputs, as_inputs
from affectlab.models.embedding import EmbeddingLogisticRegression
from affectlab.models.ensemble import EnsembleDetector
from affectlab.models.keywords import KeywordDetector
from affectlab.models.routed import LanguageRoutedDetector
from affectlab.models.serialization import read_model_dir
from affectlab.models.tfidf import TfidfLogisticRegression, TfidfRandomForest
from affectlab.registry import Registry

__all__ = ["MODELS", "Detector", "Inputs", "as_inputs", "create_detector", "is_model_dir", "load_detector"]

MODELS: Registry[type[Detector]] = Registry("model")
for _cls in (
    KeywordDetector,
    TfidfLogisticRegression,
    TfidfRandomForest,
    EmbeddingLogisticRegression,
    EnsembleDetector,
    LanguageRoutedDetector,
):
    MODELS.add(_cls.name, _cls)


def create_detector(name: str, **params: Any) -> Detector:
    """A new, untrained detector of the registered kind ``name``."""
    return MODELS.get(name)(**params)


def is_model_dir(name: str) -> bool:
    """Whether ``name`` points at a directory (a saved model) rather than naming a model kind."""
    return Path(name).is_dir() or ("/" in name and name not in MODELS)


def load_detector(directory: str | os.PathLike[str]) -> Detector:
    """Load a detector saved with :meth:`Detector.save`, verifying its checksums."""
    config, arrays = read_model_dir(directory)
    kind = config.get("model")
    if kind not in MODELS:
        raise ModelFileError(f"{str(directory)!r} holds a {kind!r} model, which this affectlab does not know")
    return MODELS.get(kind).from_saved(config, arrays)
