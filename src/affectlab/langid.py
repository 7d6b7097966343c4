"""Which language a text is in, for the decisions tuned per language.

A dataset's ``lang`` column (or a caller's ``--lang``) wins. Otherwise rules decide where they are sure and CLD3
(Google's Compact Language Detector v3, from the ``cld3-py`` package: Apache-2.0, 107 languages, about 20,000
texts/s) decides the rest:

* Cyrillic: a letter only Ukrainian has (і ї є ґ) means Ukrainian, one only Tatar has (ә ө ү җ ң һ) Tatar, one
  Russian has and Ukrainian lacks (ы э ъ ё) Russian; otherwise their own common words decide, then CLD3 where it
  is sure of Russian in a longer text, and Ukrainian where nothing does;
* Latin: when CLD3 is not sure of a language, or names English or Spanish, common function words and Spanish
  letters decide between English and Spanish where they clearly point one way, and simplemma's dictionary
  detector where they do not (CLD3 alone calls a third of the Spanish test texts another Romance language and
  every tenth English one something else; BENCHMARKS.md);
* other scripts (Arabic, Devanagari, Ethiopic, Han, ...): CLD3.

Identifiers return the tags of :data:`affectlab.languages.LANGUAGES` (``de``, ``pt-BR``, ...); Portuguese is
read as Brazilian (``pt-BR``) and Arabic as Moroccan (``ary``), the larger of each pair's training sets. No
identifier tells Oromo, Tigrinya, Nigerian Pidgin, Kinyarwanda or Emakhuwa, so their texts need their ``lang``
given. ``und`` means no language could be told (no letters).
"""

from __future__ import annotations

import json
import re
import threading
from functools import cache
from pathlib import Path
from typing import Any

from affectlab.languages import LANGUAGES, tags_by_code

SUPPORTED = frozenset(LANGUAGES)
"""The languages the default model was trained on (the 28 of SemEval-2025 Task 11 track A)."""
UNDETERMINED = "und"
ALIASES = tags_by_code()
"""Codes a caller or a dataset may give (ISO 639-1/639-3, the task's own), mapped to the tags above
(:attr:`affectlab.languages.Language.codes`)."""
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_LATIN = re.compile(r"[A-Za-zÀ-ÿ]")
_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"\w+")
_UKRAINIAN_LETTERS = re.compile(r"[іїєґІЇЄҐ]")
_TATAR_LETTERS = re.compile(r"[әөүҗңһӘӨҮҖҢҺ]")
_RUSSIAN_LETTERS = re.compile(r"[ыэъёЫЭЪЁ]")
_SPANISH_LETTERS = re.compile(r"[ñáéíóúü¿¡]")
_FUNCTION_WORDS = {
    lang: frozenset(words.split())
    for lang, words in json.loads((Path(__file__).parent / "function_words.json").read_text(encoding="utf-8")).items()
}
"""The commonest function words of Ukrainian, Russian, English and Spanish, which tell those pairs apart."""
_UKRAINIAN_WORDS, _RUSSIAN_WORDS = _FUNCTION_WORDS["uk"], _FUNCTION_WORDS["ru"]
_ENGLISH_WORDS, _SPANISH_WORDS = _FUNCTION_WORDS["en"], _FUNCTION_WORDS["es"]
_YORUBA_LETTERS = re.compile(r"[ṣṢ]")
_YORUBA_VOWELS = re.compile(r"[ẹọẸỌ]")
_VIETNAMESE_LETTERS = re.compile(r"[đĐơƠưƯăĂâÂêÊôÔ]")
CLEAR_MARGIN = 2
SURE_OF_RUSSIAN = 0.98
"""CLD3's probability from which a longer Cyrillic text without Russian or Ukrainian marks is Russian (Ukrainian
before issue 23 and the default's first language, so it keeps the doubt)."""
SHORT = 6
"""Texts of at most this many words are where CLD3 errs most (it calls "I had been AWAKE." Somali)."""
SPANISH_LOOKALIKES = frozenset({"eo", "gl", "ca", "ast", "oc", "it"})
"""What CLD3 calls informal Spanish even when sure (Esperanto, Galician, Catalan, ...): Spanish where the function
words clearly say so."""
MOSTLY = 0.5
"""The share of a text's words the English or Spanish dictionary must know to overrule CLD3 in a short text."""
MOST = 0.75
"""... to overrule it anywhere, with the function words (CLD3 calls some plain English sentences Frisian)."""
LIKELY = 0.5
"""CLD3's probability below which a Latin-script text is read as English or Spanish (as before issue 23)."""
SURE = 0.9
"""CLD3's probability from which it is taken at its word for a text longer than :data:`SHORT` words."""


def normalise(lang: str) -> str:
    """The tag of a language code (``ukr`` -> ``uk``, ``pt`` -> ``pt-BR``); an unknown code is kept, lower-cased."""
    return ALIASES.get(lang.strip().lower(), lang.strip().lower())


def is_supported(lang: str) -> bool:
    """Whether the default model was trained on texts of ``lang``."""
    return normalise(lang) in SUPPORTED


@cache
def _cld3() -> Any:
    import gcld3  # the module the cld3-py package installs

    return gcld3.NNetLanguageIdentifier(min_num_bytes=0, max_num_bytes=1000)


_CLD3_LOCK = threading.Lock()  # one identifier object, not documented as thread-safe


def cld3(text: str) -> tuple[str, float]:
    """CLD3's language (as a tag) and probability for ``text``."""
    with _CLD3_LOCK:
        result = _cld3().FindLanguage(text=text)
    return normalise(str(result.language)), float(result.probability)


def detect_language(text: str) -> str:
    """The tag of the language ``text`` is in (see the module docstring); ``und`` when it has no letters."""
    if not _LETTER.search(text):
        return UNDETERMINED
    cyrillic = len(_CYRILLIC.findall(text))
    latin = len(_LATIN.findall(text))
    if cyrillic and cyrillic >= latin:
        return _cyrillic_language(text)
    if _YORUBA_LETTERS.search(text) or (_YORUBA_VOWELS.search(text) and not _VIETNAMESE_LETTERS.search(text)):
        return "yo"
    guess, probability = cld3(text)
    if not latin or latin < len(_LETTER.findall(text)) / 2:
        return guess
    return _latin_language(text, guess, probability)


def _latin_language(text: str, guess: str, probability: float) -> str:
    """English or Spanish where CLD3 names one of them or is unsure (:func:`_english_or_spanish`). CLD3's answer
    where it is sure of a text longer than :data:`SHORT` words, but Spanish for one of :data:`SPANISH_LOOKALIKES`
    where Spanish words make most of the text (:func:`_spanish_after_all`); Portuguese against Spanish and English
    by their dictionaries. In a shorter text or where CLD3 is less sure: English or Spanish where their function
    words clearly say so, or else where their dictionaries know at least half the words (short texts fool CLD3
    most: it calls "Aah me muero" Afrikaans); CLD3's answer where it is a trained language; else English or
    Spanish."""
    if guess in ("en", "es") or probability < LIKELY:
        return _english_or_spanish(text)
    margin = _function_word_margin(text)
    if margin <= -CLEAR_MARGIN and _known_words(text)["en"] >= MOST:
        return "en"
    if guess == "pt-BR":
        return _portuguese_or_spanish(text)
    if probability >= SURE and len(_WORD.findall(text)) > SHORT:
        return "es" if _spanish_after_all(text, guess, margin) else guess
    if abs(margin) >= CLEAR_MARGIN:
        return "es" if margin > 0 else "en"
    known = _known_words(text)
    best = max(("en", "es"), key=lambda lang: known[lang])
    if known[best] >= MOSTLY:
        return best
    return guess if guess in SUPPORTED else _english_or_spanish(text)


def _portuguese_or_spanish(text: str) -> str:
    """Where CLD3 says Portuguese: Spanish or English where simplemma's dictionary of that language knows at least
    as many of the words as its Portuguese one (CLD3 calls short Spanish texts Portuguese; the two share many
    words, so counting Spanish words alone would call a fifth of the Portuguese texts Spanish)."""
    import simplemma

    scores = dict(simplemma.langdetect(text, lang=("pt", "es", "en")))
    best = max(("es", "en", "pt"), key=lambda lang: scores.get(lang, 0.0))  # ties go to Spanish, then English
    return "pt-BR" if best == "pt" else best


def _spanish_after_all(text: str, guess: str, margin: int) -> bool:
    """Whether a longer text CLD3 is sure is in ``guess`` is Spanish: for one of :data:`SPANISH_LOOKALIKES`, where
    the function words clearly say so or Spanish words make most of it; for another language it was not trained
    on, where both hold (a French text has Spanish-looking function words, but few Spanish words); for a trained
    language, where the function words clearly say so and Spanish words make three quarters of it."""
    clear, known = margin >= CLEAR_MARGIN, _known_words(text)["es"]
    if guess in SUPPORTED:
        return clear and known >= MOST
    return (clear or known >= MOSTLY) if guess in SPANISH_LOOKALIKES else (clear and known >= MOSTLY)


def _known_words(text: str) -> dict[str, float]:
    """The share of the text's words simplemma's English and Spanish dictionaries know."""
    import simplemma

    scores = dict(simplemma.langdetect(text, lang=("en", "es")))
    return {"en": scores.get("en", 0.0), "es": scores.get("es", 0.0)}


def _cyrillic_language(text: str) -> str:
    """Ukrainian, Tatar or Russian by their own letters, else by their own common words, else (in a text longer
    than :data:`SHORT` words) Russian where CLD3 is all but certain of it, else Ukrainian (as before issue 23;
    CLD3 calls short Ukrainian texts without і, ї, є or ґ Russian)."""
    if _UKRAINIAN_LETTERS.search(text):
        return "uk"
    if _TATAR_LETTERS.search(text):
        return "tt"
    if _RUSSIAN_LETTERS.search(text):
        return "ru"
    words = _WORD.findall(text.lower())
    ukrainian, russian = sum(w in _UKRAINIAN_WORDS for w in words), sum(w in _RUSSIAN_WORDS for w in words)
    if russian != ukrainian or len(words) <= SHORT:
        return "ru" if russian > ukrainian else "uk"
    guess, probability = cld3(text)
    return "ru" if guess == "ru" and probability >= SURE_OF_RUSSIAN else "uk"


def _function_word_margin(text: str) -> int:
    """Spanish minus English evidence: function words, and Spanish letters counted twice."""
    lowered = text.lower()
    words = _WORD.findall(lowered)
    spanish = sum(w in _SPANISH_WORDS for w in words) + 2 * len(_SPANISH_LETTERS.findall(lowered))
    return spanish - sum(w in _ENGLISH_WORDS for w in words)


def _english_or_spanish(text: str) -> str:
    margin = _function_word_margin(text)
    if abs(margin) >= CLEAR_MARGIN:
        return "es" if margin > 0 else "en"
    known = _known_words(text)
    return "es" if known["es"] > known["en"] else "en"


def detect_languages(inputs: Any) -> list[str]:
    """One tag per text of ``inputs`` (an :class:`~affectlab.detectors.base.Inputs`), from its ``langs`` when set."""
    return [
        normalise(lang) if lang else detect_language(text)
        for text, lang in zip(inputs.texts, inputs.langs, strict=True)
    ]
