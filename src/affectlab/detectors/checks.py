"""What a detection call may ask of a detector, checked before anything is scored, in one line each: the labels
to explain, intensity, sentences, dialogue context, and the length of each text."""

from __future__ import annotations

from collections.abc import Sequence

from affectlab.detectors.base import Detector
from affectlab.detectors.documents import MAX_TEXT_CHARS
from affectlab.detectors.readings import reads_documents
from affectlab.detectors.resolve import describe_model
from affectlab.errors import ArgumentTypeError, InputError
from affectlab.labels import LabelSpace
from affectlab.text import text_problem


def explained_labels(space: LabelSpace, explain: bool | Sequence[str] | str) -> list[str] | None:
    """The labels ``explain`` names beside the given ones (``[]`` for True; None: no explanation), refusing a
    label the taxonomy does not have."""
    if isinstance(explain, bool):
        return [] if explain else None
    if isinstance(explain, str):
        explain = [part.strip() for part in explain.split(",") if part.strip()]
    wanted = "explain must be True, False or a list of label names (str)"
    if not isinstance(explain, Sequence):
        raise ArgumentTypeError(f"{wanted}, not {type(explain).__name__}")
    odd = [type(label).__name__ for label in explain if not isinstance(label, str)]
    if odd:
        raise ArgumentTypeError(f"{wanted}, not a {type(explain).__name__} holding {odd[0]}")
    unknown = [label for label in explain if label not in space.labels]
    if unknown:
        raise InputError(f"cannot explain {', '.join(map(repr, unknown))}: the labels are {', '.join(space.labels)}")
    return list(dict.fromkeys(explain))


def check_lengths(texts: Sequence[str]) -> None:
    """Refuse a text longer than :data:`~affectlab.detectors.documents.MAX_TEXT_CHARS`, naming it (1-based)."""
    for number, text in enumerate(texts, start=1):
        if len(text) > MAX_TEXT_CHARS:
            raise InputError(too_long(len(text), f"text {number}"))


def too_long(n_chars: int, what: str = "the text") -> str:
    """Why a text of ``n_chars`` characters is not scored, as one line."""
    return f"{what} has {n_chars:,} characters; the limit is {MAX_TEXT_CHARS:,}: split it into parts"


def check_sentences(detector: Detector, sentences: bool) -> None:
    """Refuse ``sentences`` for a detector that reads a dialogue turn whole (with its context)."""
    if sentences and not reads_documents(detector):
        raise InputError(
            f"{describe_model(detector)} reads a dialogue turn whole, with its context, so it does not score "
            "sentences: sentences are for the ekman and goemotions taxonomies"
        )


def check_intensity(detector: Detector, intensity: bool) -> None:
    """Refuse ``intensity`` for a detector that does not rate it, rather than give no intensities."""
    if intensity and not detector.capabilities.rates_intensity:
        raise InputError(
            f"{describe_model(detector)} does not rate intensity (a model whose encoder was fine-tuned with an "
            "intensity head does: the default ekman head as `affectlab build-default --fine-tune` builds it)"
        )


def context_not_read(detector: Detector) -> str:
    """Why a context given to ``detector`` would be ignored, as one line."""
    return (
        f"{describe_model(detector)} reads each text alone, so the context would be ignored: earlier dialogue turns "
        "are read by the emocontext taxonomy and by models trained with context"
    )


def unscorable(text: object) -> str:
    """Why ``text`` cannot be scored, or "" when it can: :func:`~affectlab.text.text_problem`, or too long."""
    problem = text_problem(text)
    if problem or len(str(text)) <= MAX_TEXT_CHARS:
        return problem
    return too_long(len(str(text)))
