"""The one place the detectors identify a text's language (:mod:`affectlab.langid`): every unit of a prepared batch
(:mod:`affectlab.detectors.units`), every batch prepared from plain inputs and the sentence rules of a long text
read their language here, so that a text is identified once per call and by one rule."""

from __future__ import annotations

from collections.abc import Sequence

from affectlab.langid import detect_language, detect_language_batch, normalise


def read_language(text: str, given: str = "") -> str:
    """The language tag ``text`` is read as: ``given`` (a tag or code, normalised: ``pt-BR``, ``orm`` -> ``om``),
    else the one identified from the text (``und`` where none can be told)."""
    return normalise(given) if given else detect_language(text)


def read_languages(texts: Sequence[str], given: Sequence[str]) -> list[str]:
    """:func:`read_language` of each text with its given tag (``""``: identify), those to identify in one batch
    (:func:`~affectlab.langid.detect_language_batch`)."""
    identified = iter(detect_language_batch([text for text, lang in zip(texts, given, strict=True) if not lang]))
    return [normalise(lang) if lang else next(identified) for lang in given]
