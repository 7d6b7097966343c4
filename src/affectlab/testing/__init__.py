"""Checks a detector kind must pass, exported so that a user's own kind is checked the way affectlab checks its own
(as scikit-learn's ``check_estimator``): :func:`check_detector` takes a trained detector and a few texts."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from affectlab.detectors.base import Detector
from affectlab.detectors.batch import prepare_batch
from affectlab.detectors.capabilities import Capabilities
from affectlab.detectors.registry import read_detector

__all__ = ["check_detector"]


def check_detector(
    detector: Detector,
    texts: Sequence[str],
    folder: str | os.PathLike[str] | None = None,
    reload: Callable[[Detector], object] | None = None,
) -> None:
    """Check a trained ``detector`` against the protocol on ``texts`` (a few short ones), raising
    ``AssertionError`` naming the first rule it breaks:

    * it says what it can do (:class:`~affectlab.detectors.capabilities.Capabilities`), and an untrained copy
      (:meth:`~affectlab.detectors.base.Detector.unfitted_copy`) says the same facts of its kind (what training
      asks before it fits);
    * :meth:`~affectlab.detectors.base.Detector.predict_proba` gives ``(n_texts, n_labels)`` probabilities in 0-1,
      and ``(0, n_labels)`` for no texts; :meth:`~affectlab.detectors.base.Detector.predict` gives 0/1 labels;
    * both are what the one scoring door gives a prepared batch
      (:meth:`~affectlab.detectors.base.Detector.score` of :func:`~affectlab.detectors.batch.prepare_batch`), and
      its decision scores lie in 0-1;
    * predicting, scoring and saving leave its public attributes (those set by ``fit``) as they were;
    * saved into ``folder`` (a temporary folder when None) and read back
      (:func:`~affectlab.detectors.registry.read_detector`, then ``reload(loaded)`` for what a kind needs once
      loaded, such as a translator), it has the same capabilities, the same public attributes and the same
      probabilities.
    """
    texts = list(texts)
    width = len(detector.label_space)
    _check(isinstance(detector.capabilities, Capabilities), "capabilities is not a Capabilities record")
    unfitted = detector.unfitted_copy().capabilities.kind_facts()
    _check(unfitted == detector.capabilities.kind_facts(), "an untrained copy says other facts of its kind")
    fitted = _public_state(detector)
    probs = detector.predict_proba(texts)
    _check(probs.shape == (len(texts), width), f"predict_proba gave shape {probs.shape}, not {(len(texts), width)}")
    _check(bool(np.all((probs >= 0) & (probs <= 1))), "predict_proba gave values outside 0-1")
    _check(detector.predict_proba([]).shape == (0, width), "predict_proba of no texts is not (0, n_labels)")
    scored = detector.score(prepare_batch(detector, texts))
    _check(np.array_equal(scored.probs, probs), "score() and predict_proba() gave other probabilities")
    labels = detector.predict(texts)
    _check(np.array_equal(labels, scored.labels), "score() and predict() gave other labels")
    _check(set(np.unique(labels)) <= {0, 1}, "predict gave values other than 0 and 1")
    _check(bool(np.all((scored.scores >= 0) & (scored.scores <= 1))), "decision scores outside 0-1")
    detector.diagnostics()
    with tempfile.TemporaryDirectory() as scratch:
        saved = Path(folder if folder is not None else scratch) / "saved"
        detector.save(saved)
        _check(_public_state(detector) == fitted, "predicting, scoring or saving changed the public attributes")
        loaded = read_detector(saved)
        if reload is not None:
            reload(loaded)
        _check(loaded.capabilities == detector.capabilities, "the loaded model says other capabilities")
        _check(set(_public_state(loaded)) == set(fitted), "loading set other public attributes than fit")
        again = loaded.predict_proba(texts)
        _check(bool(np.allclose(again, probs, rtol=0, atol=1e-6)), "the loaded model gave other probabilities")


def _check(holds: bool, broken: str) -> None:
    if not holds:
        raise AssertionError(f"check_detector: {broken}")


def _public_state(model: Detector) -> dict[str, str]:
    """Each public attribute's name and a fingerprint of its value."""
    return {name: repr(value)[:2000] for name, value in vars(model).items() if not name.startswith("_")}
