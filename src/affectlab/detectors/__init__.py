"""Detectors by name (``keywords``, ``tfidf-lr``, ``tfidf-rf``, ``embedding-lr``, ``ensemble``, ``hf``, ``llm``,
``translate-test``, ...) and loading of saved ones."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from affectlab.detectors.base import Detector, Inputs, as_inputs
from affectlab.detectors.embedding import EmbeddingLogisticRegression
from affectlab.detectors.ensemble import EnsembleDetector
from affectlab.detectors.hf import HFEncoderDetector
from affectlab.detectors.keywords import KeywordDetector
from affectlab.detectors.llm import LLMDetector
from affectlab.detectors.routed import LanguageRoutedDetector
from affectlab.detectors.serialization import read_model_dir
from affectlab.detectors.tfidf import TfidfLogisticRegression, TfidfRandomForest
from affectlab.detectors.translate_test import TranslateTestDetector
from affectlab.errors import InputError, ModelFileError
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
    HFEncoderDetector,
    LLMDetector,
    TranslateTestDetector,
):
    MODELS.add(_cls.name, _cls)


TARGETED_KINDS = ("hf", "llm")
"""Kinds named with what they run on: ``hf:PATH_OR_HUB_ID`` (the encoder to fine-tune), ``llm:MODEL_NAME``."""


def split_model_name(name: str) -> tuple[str, dict[str, Any]]:
    """``"hf:path/to/encoder"`` -> ``("hf", {"model": "path/to/encoder"})``; other names have no parameters."""
    kind, sep, target = name.partition(":")
    if sep and kind in TARGETED_KINDS:
        if not target:
            raise InputError(f"{kind}: needs what to run after the colon, e.g. {kind}:MODEL")
        return kind, {"model": target}
    return name, {}


def create_detector(name: str, **params: Any) -> Detector:
    """A new, untrained detector of the registered kind ``name`` (``hf:PATH`` and ``llm:NAME`` included)."""
    kind, implied = split_model_name(name)
    return MODELS.get(kind)(**{**implied, **params})


def is_model_dir(name: str) -> bool:
    """Whether ``name`` points at a directory (a saved model) rather than naming a model kind."""
    if split_model_name(name)[1]:
        return False
    return Path(name).is_dir() or ("/" in name and name not in MODELS)


def load_detector(directory: str | os.PathLike[str]) -> Detector:
    """Load a detector saved with :meth:`Detector.save`, verifying its checksums."""
    config, arrays = read_model_dir(directory)
    kind = config.get("model")
    if kind not in MODELS:
        raise ModelFileError(f"{str(directory)!r} holds a {kind!r} model, which this affectlab does not know")
    return MODELS.get(kind).from_saved(config, arrays)
