"""The one resolver of a model reference to a detector object.

``affectlab.detect``, ``affectlab.load_detector``, ``affectlab score``, the service and every command take a
reference: a :class:`~affectlab.detectors.base.Detector` object (used as it is), ``"default"`` (the shipped head for
a taxonomy, or its fast profile) or the folder of a saved detector. Each is loaded once per process: the shipped
heads once per (taxonomy, profile), a saved folder once per path and content (:class:`~affectlab.io.loaded.FolderCache`:
a model retrained in place is loaded anew). Loading holds a lock, so concurrent callers share one load.
"""

from __future__ import annotations

import os
from pathlib import Path

from affectlab.detectors.base import Detector
from affectlab.detectors.registry import is_model_dir, read_detector
from affectlab.errors import InputError
from affectlab.io.loaded import FolderCache

ModelRef = Detector | str | os.PathLike[str]
"""What may name a detector: the object itself, ``"default"`` or a saved detector's folder."""


def _load_saved(folder: Path) -> Detector:
    return read_detector(folder).named(f"the model {folder.name!r}")


SAVED = FolderCache(_load_saved)
"""Saved detectors loaded in this process, by folder and content."""


def resolve_detector(model: ModelRef = "default", taxonomy: str = "ekman", fast: bool = False) -> Detector:
    """The detector ``model`` names: the object itself, the shipped head for ``taxonomy`` (``fast``: its n-gram
    profile), or the detector saved in a folder. ``fast`` applies to the shipped heads only."""
    if isinstance(model, Detector):
        if fast:
            raise InputError("fast applies to the default model, not to a detector object")
        return model
    if str(model) == "default":
        return default_head(taxonomy, fast)
    if fast:
        raise InputError("--fast applies only to the default model (a saved model has no fast profile)")
    if not is_model_dir(str(model)):
        raise InputError(f"{str(model)!r} is neither 'default' nor a saved model directory")
    return SAVED.get(model)


def default_head(taxonomy: str = "ekman", fast: bool = False) -> Detector:
    """The shipped head for ``taxonomy`` (``fast``: its fast profile), loaded once per process (``load_default``
    keeps it, and threads asking at once share one load)."""
    from affectlab.detectors.default import load_default

    return load_default(taxonomy, fast).named(f"the default {taxonomy} head" + (" (fast profile)" if fast else ""))


def describe_model(detector: Detector) -> str:
    """How messages name a resolved detector: "the default ekman head", "the model 'go-lr'" (a saved folder), or,
    for an object made in Python, "the tfidf-lr detector"."""
    return detector.describe()
