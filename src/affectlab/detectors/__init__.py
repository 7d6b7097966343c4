"""Emotion detectors behind one protocol (:mod:`.base`: ``fit / predict_proba / predict / save / load``), a
registry of their kinds (:mod:`.registry`), and the shipped default detector (:mod:`.default`)."""

from affectlab.detectors.base import Detector
from affectlab.detectors.batch import Inputs, as_inputs
from affectlab.detectors.registry import MODELS, create_detector, detector_class, is_model_dir, read_detector

__all__ = ["MODELS", "Detector", "Inputs", "as_inputs", "create_detector", "detector_class", "is_model_dir",
           "read_detector"]  # fmt: skip
