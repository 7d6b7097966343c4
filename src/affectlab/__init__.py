"""affectlab: emotion and affect analysis of text in 28 languages (Ukrainian, English and Spanish first).

>>> import affectlab
>>> affectlab.detect("Я так чекала на цей день!")[0].labels
['joy']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from affectlab.versions import __version__

__all__ = ["__version__", "detect", "detect_file", "detect_open", "load_detector"]

if TYPE_CHECKING:  # the types only: ``import affectlab`` stays light, each function imports its module when called
    import os
    from collections.abc import Callable, Sequence

    from affectlab.detectors import Detector
    from affectlab.detectors.resolve import ModelRef
    from affectlab.detectors.results import Detection
    from affectlab.openstates.detect import OpenDetection
    from affectlab.scale.batch import ScoreProgress, ScoreSummary


def detect(
    texts: str | Sequence[str],
    taxonomy: str = "ekman",
    context: Sequence[str] | None = None,
    top_k: int | None = None,
    model: ModelRef = "default",
    fast: bool = False,
    lang: str | None = None,
    intensity: bool = False,
    sentences: bool = False,
    explain: bool | Sequence[str] = False,
) -> list[Detection]:
    """Detect emotions with the embedded default detector; see :func:`affectlab.detectors.detect.detect`."""
    from affectlab.detectors.detect import detect as _detect

    return _detect(
        texts, taxonomy, context=context, top_k=top_k, model=model, fast=fast, lang=lang, intensity=intensity,
        sentences=sentences, explain=explain,
    )  # fmt: skip


def detect_file(
    input_path: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    taxonomy: str = "ekman",
    model: ModelRef = "default",
    fast: bool = False,
    text_col: str = "text",
    batch_size: int = 1024,
    progress: Callable[[ScoreProgress], None] | None = None,
    lang: str | None = None,
    intensity: bool = False,
    sentences: bool = False,
    lang_col: str | None = None,
    explain: bool | Sequence[str] = False,
) -> ScoreSummary:
    """Score every row of a file into another, as ``affectlab detect --input`` does; see
    :func:`affectlab.scale.jobs.detect_file`."""
    from affectlab.scale.jobs import detect_file as _detect_file

    return _detect_file(
        input_path, output_path, taxonomy, model=model, fast=fast, text_col=text_col, batch_size=batch_size,
        progress=progress, lang=lang, intensity=intensity, sentences=sentences, lang_col=lang_col, explain=explain,
    )  # fmt: skip


def detect_open(
    texts: str | Sequence[str],
    lang: str | None = None,
    k: int = 5,
    model: Any = "default",
    states: Sequence[str] | None = None,
    states_only: bool = False,
) -> list[OpenDetection]:
    """Open-ended affective states (feeling words) for masked texts; see
    :func:`affectlab.openstates.detect.detect_open`."""
    from affectlab.openstates.detect import detect_open as _detect_open

    return _detect_open(texts, lang=lang, k=k, model=model, states=states, states_only=states_only)


def load_detector(model: ModelRef = "default", taxonomy: str = "ekman", fast: bool = False) -> Detector:
    """The default head for ``taxonomy`` (``fast``: its n-gram profile) or a saved detector's folder, loaded once per
    process (``fit / predict_proba / predict``); pass it to :func:`detect` as ``model=`` to reuse it. See
    :func:`affectlab.detectors.resolve.resolve_detector`."""
    from affectlab.detectors.resolve import resolve_detector

    return resolve_detector(model, taxonomy, fast)
