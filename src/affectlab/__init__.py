"""affectlab: emotion and affect analysis of text in 28 languages (Ukrainian, English and Spanish first).

>>> import affectlab
>>> affectlab.detect("Я так чекала на цей день!")[0].labels
['joy']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from affectlab.versions import __version__

__all__ = ["__version__", "detect", "detect_file", "detect_open", "load_detector"]

if TYPE_CHECKING:
    from affectlab.detectors import Detector
    from affectlab.detectors.results import Detection


def detect(texts: Any, taxonomy: str = "ekman", **options: Any) -> list[Detection]:
    """Detect emotions with the embedded default detector; see :func:`affectlab.detectors.detect.detect`."""
    from affectlab.detectors.detect import detect as _detect

    return _detect(texts, taxonomy=taxonomy, **options)


def detect_file(input_path: Any, output_path: Any, taxonomy: str = "ekman", **options: Any) -> Any:
    """Score every row of a file into another, as ``affectlab detect --input`` does; see
    :func:`affectlab.scale.jobs.detect_file`."""
    from affectlab.scale.jobs import detect_file as _detect_file

    return _detect_file(input_path, output_path, taxonomy=taxonomy, **options)


def detect_open(texts: Any, **options: Any) -> list[Any]:
    """Open-ended affective states (feeling words) for masked texts; see
    :func:`affectlab.openstates.detect.detect_open`."""
    from affectlab.openstates.detect import detect_open as _detect_open

    return _detect_open(texts, **options)


def load_detector(model: Any = "default", taxonomy: str = "ekman", fast: bool = False) -> Detector:
    """The default head for ``taxonomy`` (``fast``: its n-gram profile) or a saved detector's folder, loaded once per
    process (``fit / predict_proba / predict``); pass it to :func:`detect` as ``model=`` to reuse it. See
    :func:`affectlab.detectors.resolve.resolve_detector`."""
    from affectlab.detectors.resolve import resolve_detector

    return resolve_detector(model, taxonomy, fast)
