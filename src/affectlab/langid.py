"""Which of English, Ukrainian and Spanish a text is in, for decisions tuned per language. A dataset's ``lang``
column wins; otherwise Cyrillic script means Ukrainian, and simplemma's dictionary-based language detector
decides between English and Spanish."""

from __future__ import annotations

import re
from typing import Any

CODES = {"uk": "uk", "ukr": "uk", "en": "en", "eng": "en", "es": "es", "esp": "es", "spa": "es"}
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_LATIN = re.compile(r"[A-Za-zÀ-ÿ]")


def detect_language(text: str) -> str:
    """``uk``, ``en`` or ``es`` (``en`` when nothing tells)."""
    cyrillic = len(_CYRILLIC.findall(text))
    latin = len(_LATIN.findall(text))
    if cyrillic and cyrillic >= latin:
        return "uk"
    if not latin:
        return "en"
    import simplemma

    scores = dict(simplemma.langdetect(text, lang=("en", "es")))
    return "es" if scores.get("es", 0.0) > scores.get("en", 0.0) else "en"


def detect_languages(inputs: Any) -> list[str]:
    """One code per text of ``inputs`` (an :class:`~affectlab.models.base.Inputs`), from its ``langs`` when set."""
    return [
        CODES.get(lang.lower()) or detect_language(text) for text, lang in zip(inputs.texts, inputs.langs, strict=True)
    ]
