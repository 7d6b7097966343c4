"""Which of English, Ukrainian and Spanish a text is in, for decisions tuned per language. A dataset's ``lang``
column wins; otherwise Cyrillic script means Ukrainian; between English and Spanish, common function words and
Spanish letters decide when they clearly point one way (about 200,000 texts/s), and simplemma's dictionary-based
detector (2,000-40,000 texts/s) decides the rest."""

from __future__ import annotations

import re
from typing import Any

CODES = {"uk": "uk", "ukr": "uk", "en": "en", "eng": "en", "es": "es", "esp": "es", "spa": "es"}
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_LATIN = re.compile(r"[A-Za-zÀ-ÿ]")
_WORD = re.compile(r"\w+")
_SPANISH_LETTERS = re.compile(r"[ñáéíóúü¿¡]")
_ENGLISH_WORDS = frozenset(
    "the and to of a in is it you that i for on with was my me this be have are not but so just at he she they we "
    "your what all do can if or as from an by like about would there".split()
)
_SPANISH_WORDS = frozenset(
    "de la que el en y los se del las por un para con no una su al es lo como más pero sus le ya o este sí porque "
    "esta entre cuando muy sin sobre también me hasta hay donde quien desde todo nos durante todos uno les ni "
    "contra otros ese eso ante ellos e esto mí antes algunos qué unos yo otro otras otra él tanto esa estos mucho "
    "quienes nada muchos cual poco ella estar estas algunas algo nosotros mi mis tú te ti tu tus".split()
)
CLEAR_MARGIN = 2


def detect_language(text: str) -> str:
    """``uk``, ``en`` or ``es`` (``en`` when nothing tells)."""
    cyrillic = len(_CYRILLIC.findall(text))
    latin = len(_LATIN.findall(text))
    if cyrillic and cyrillic >= latin:
        return "uk"
    if not latin:
        return "en"
    lowered = text.lower()
    words = _WORD.findall(lowered)
    spanish = sum(w in _SPANISH_WORDS for w in words) + 2 * len(_SPANISH_LETTERS.findall(lowered))
    english = sum(w in _ENGLISH_WORDS for w in words)
    if abs(spanish - english) >= CLEAR_MARGIN:
        return "es" if spanish > english else "en"
    import simplemma

    scores = dict(simplemma.langdetect(text, lang=("en", "es")))
    return "es" if scores.get("es", 0.0) > scores.get("en", 0.0) else "en"


def detect_languages(inputs: Any) -> list[str]:
    """One code per text of ``inputs`` (an :class:`~affectlab.detectors.base.Inputs`), from its ``langs`` when set."""
    return [
        CODES.get(lang.lower()) or detect_language(text) for text, lang in zip(inputs.texts, inputs.langs, strict=True)
    ]
