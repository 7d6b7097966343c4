"""Detector kinds by name (``keywords``, ``tfidf-lr``, ``tfidf-rf``, ``embedding-lr``, ``ensemble``,
``by-language``, ``hf``, ``hf-onnx``, ``llm``, ``translate-test``) and loading of saved detectors. A kind's module
is imported when the kind is first used, so that loading one detector does not import every other one (and the
detectors that hold members, such as ``ensemble``, can create them through this registry without an import
cycle)."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from affectlab.detectors.serialization import read_model_dir
from affectlab.errors import InputError, ModelFileError
from affectlab.registry import Registry

if TYPE_CHECKING:
    from affectlab.detectors.base import Detector

MODELS: Registry[str] = Registry("model")
"""Kind name -> ``module:class`` of its detector."""
for _kind, _path in (
    ("keywords", "keywords:KeywordDetector"),
    ("tfidf-lr", "tfidf:TfidfLogisticRegression"),
    ("tfidf-rf", "tfidf:TfidfRandomForest"),
    ("embedding-lr", "embedding:EmbeddingLogisticRegression"),
    ("ensemble", "ensemble:EnsembleDetector"),
    ("by-language", "routed:LanguageRoutedDetector"),
    ("hf", "hf:HFEncoderDetector"),
    ("hf-onnx", "onnx_hf:OnnxHFDetector"),
    ("llm", "llm:LLMDetector"),
    ("translate-test", "translated:TranslateTestDetector"),
):
    MODELS.add(_kind, f"affectlab.detectors.{_path}")


def detector_class(kind: str) -> type[Detector]:
    """The detector class of a registered kind (its module imported now if it was not yet)."""
    module, _, name = MODELS.get(kind).partition(":")
    return getattr(importlib.import_module(module), name)


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
    return detector_class(kind)(**{**implied, **params})


def is_model_dir(name: str) -> bool:
    """Whether ``name`` points at a directory (a saved model) rather than naming a model kind."""
    if split_model_name(name)[1]:
        return False
    return Path(name).is_dir() or ("/" in name and name not in MODELS)


def read_detector(directory: str | os.PathLike[str]) -> Detector:
    """Load a detector saved with :meth:`Detector.save`, verifying its checksums."""
    config, arrays = read_model_dir(directory)
    kind = config.get("model")
    if not isinstance(kind, str) or kind not in MODELS:
        raise ModelFileError(f"{str(directory)!r} holds a {kind!r} model, which this affectlab does not know")
    return detector_class(kind).from_saved(config, arrays)
