"""``affectlab.detect``: emotions of texts with the embedded default detector (or any saved detector), the common
case in one call and no configuration."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from affectlab.detectors import Detector, Inputs, is_model_dir, load_detector
from affectlab.encoders.sentence import MAX_CHARS
from affectlab.errors import InputError
from affectlab.langid import detect_languages
from affectlab.text import check_texts


@dataclass
class Detection:
    """The result for one text: the predicted ``labels`` and every label's probability in ``scores``."""

    text: str
    labels: list[str]
    scores: dict[str, float]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """``{"text", "labels", "scores"}`` (plus ``notes`` when there are any)."""
        out: dict[str, Any] = {"text": self.text, "labels": self.labels, "scores": self.scores}
        if self.notes:
            out["notes"] = self.notes
        return out


def get_detector(model: str | os.PathLike[str] = "default", taxonomy: str = "ekman", fast: bool = False) -> Detector:
    """The shipped default head for ``taxonomy`` (``fast``: its n-gram member only), or a saved detector."""
    if str(model) == "default":
        from affectlab.detectors.default import load_default

        return load_default(taxonomy, fast)
    if not is_model_dir(str(model)):
        raise InputError(f"{str(model)!r} is neither 'default' nor a saved model directory")
    return load_detector(model)


def detect(
    texts: str | Sequence[str],
    taxonomy: str = "ekman",
    context: Sequence[str] | None = None,
    top_k: int | None = None,
    model: str | os.PathLike[str] = "default",
    fast: bool = False,
) -> list[Detection]:
    """Detect emotions in ``texts`` (one string or several) with the default head for ``taxonomy``
    (``ekman``, ``goemotions``, ``emocontext``) or the saved detector ``model``.

    ``context`` gives earlier dialogue turns (the same for every text; EmoContext reads the last two). ``top_k``
    keeps only the k labels with the highest probability among those predicted, and at least the top one.
    ``fast`` uses the default head's n-gram member alone (no encoder): much faster, somewhat less accurate.
    """
    items = [texts] if isinstance(texts, str) else list(texts)
    check_texts(items)
    detector = get_detector(model, taxonomy, fast)
    unknown = Inputs(texts=items, contexts=[list(context or [])] * len(items), langs=[""] * len(items))
    inputs = Inputs(items, unknown.contexts, detect_languages(unknown))  # once, not once per routing step
    probs = detector.predict_proba(inputs)
    predicted = detector.decide(probs, inputs)
    space = detector.label_space
    results = []
    for text, row_probs, row_pred in zip(items, probs, predicted, strict=True):
        labels = [space.labels[j] for j in np.argsort(-row_probs) if row_pred[j]]
        if top_k is not None:
            labels = labels[:top_k] or [space.labels[int(np.argmax(row_probs))]]
        notes = [f"only the first {MAX_CHARS} characters were read by the encoder"] if len(text) > MAX_CHARS else []
        scores = {label: round(float(p), 4) for label, p in zip(space.labels, row_probs, strict=True)}
        results.append(Detection(text=text, labels=labels, scores=scores, notes=notes))
    return results
