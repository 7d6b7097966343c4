"""Ukrainian morphology with pymorphy3: readings of a word, their grammemes, agreement, inflection and casing.

Written for UA-CBT (Eval-UA-tion 1.0, Hamotskyi et al. 2024, section 3.1), whose authors tagged with a spaCy model;
none is available offline, so everything here rests on pymorphy3's Ukrainian dictionary.

pymorphy3 has no disambiguation for Ukrainian, so a token's reading is picked with a few cheap rules
(:func:`plausible_readings`, :func:`rank_readings`): function words win; proper-name readings only for capitalised
words; the case a preceding preposition governs and agreement with a preceding adjective; no vocative when anything
else fits; then the lemma and part of speech that most words of the text allow (``жила`` is read as ``жити`` in a
story that also has ``жили``, ``живе``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from affectlab.extras import require
from affectlab.loaded_once import loaded_once

UKRAINIAN_WORD = re.compile(r"[^\W\d_]+(?:['’ʼ`-][^\W\d_]+)*")
"""A word: letters, with apostrophes or hyphens inside (``любов'ю``, ``з-під``)."""

_PROPER = frozenset({"Name", "Surn", "Patr", "Geox"})
_CLOSED_CLASS = frozenset({"PREP", "CONJ", "PRCL", "NPRO", "INTJ"})
_APOSTROPHES = str.maketrans({"’": "'", "ʼ": "'", "`": "'"})
# Cases each preposition governs (Ukrainian grammar); pymorphy3's Ukrainian PREP tags carry no government.
_PREPOSITION_CASES: dict[str, frozenset[str]] = {
    **dict.fromkeys(
        "від од до без для біля коло після серед посеред крім окрім замість навколо довкола проти протягом "
        "вздовж уздовж з-під з-за із-за поблизу щодо".split(),
        frozenset({"gent"}),
    ),
    **dict.fromkeys("завдяки всупереч назустріч".split(), frozenset({"datv"})),
    **dict.fromkeys("про крізь через".split(), frozenset({"accs"})),
    **dict.fromkeys("на о об".split(), frozenset({"accs", "loct"})),
    **dict.fromkeys("в у".split(), frozenset({"accs", "loct", "gent"})),
    "по": frozenset({"loct", "accs", "datv"}),
    "при": frozenset({"loct"}),
    **dict.fromkeys("за під".split(), frozenset({"accs", "ablt", "gent"})),
    **dict.fromkeys("над перед поза понад попід".split(), frozenset({"ablt", "accs"})),
    **dict.fromkeys("між поміж".split(), frozenset({"ablt", "gent", "accs"})),
    **dict.fromkeys("з із зі зо".split(), frozenset({"gent", "ablt", "accs"})),
}


def _analyzer() -> Any:
    require("pymorphy3", "ua", "UA-CBT generation")  # without the extra, the one line names what needed it
    return ukrainian_analyzer()


@loaded_once
def ukrainian_analyzer() -> Any:
    """The pymorphy3 analyser for Ukrainian, loaded once per process (its dictionary takes a moment and some
    memory): UA-CBT's inflections and LMES's numerals share it."""
    return require("pymorphy3", "ua", "Ukrainian morphology").MorphAnalyzer(lang="uk")


@lru_cache(maxsize=65536)
def parse_word(word: str) -> tuple[Any, ...]:
    """All pymorphy3 readings of ``word`` (lower case, apostrophes normalised: the dictionary uses ``'``)."""
    return tuple(_analyzer().parse(word.lower().translate(_APOSTROPHES)))


def tag_features(tag: Any) -> dict[str, str]:
    """The grammemes a UA-CBT option must share with its gap, read off a pymorphy3 tag.

    Nouns (and adjectives): ``case``, ``number``, ``gender``; verbs: ``form`` (``infn``, ``impr``, ``past``,
    ``pres``, ``futr``), ``person``, ``number``, ``gender``. Singular is unmarked in pymorphy3's Ukrainian tags,
    hence the default.
    """
    features = {"pos": str(tag.POS)}
    if tag.POS == "VERB":
        features["form"] = "infn" if "infn" in tag else "impr" if "impr" in tag else str(tag.tense or "")
        if tag.person:
            features["person"] = str(tag.person)
    if tag.case or tag.POS == "NOUN":  # adjectives too, for the agreement of a noun with the adjective before it
        features["case"] = str(tag.case or "")
    if "case" in features or features.get("form") not in (None, "infn"):
        features["number"] = "plur" if "plur" in tag else "sing"
    if tag.gender:
        features["gender"] = str(tag.gender)
    return features


def required_features(tag: Any) -> dict[str, str]:
    """What every option for a gap with this tag must match: case and number (nouns) or form, person and number
    (verbs), and gender where Ukrainian marks it on the form (singular nouns, singular past-tense verbs)."""
    features = tag_features(tag)
    if features.get("number") != "sing" or features.get("form") in ("pres", "futr", "impr"):
        features.pop("gender", None)
    return features


def agrees_with_gap(word: str, features: Mapping[str, str], lemma: str | None = None) -> bool:
    """True if pymorphy3 reads ``word`` with all of ``features`` (as from :func:`required_features`), as a form
    of ``lemma`` when one is given."""
    return any(
        matches_features(parse.tag, features) and lemma in (None, parse.normal_form) for parse in parse_word(word)
    )


def matches_features(tag: Any, features: Mapping[str, str]) -> bool:
    """True if a pymorphy3 tag has every one of ``features`` (as :func:`tag_features` reads them)."""
    found = tag_features(tag)
    return all(found.get(key) == value for key, value in features.items())


def is_proper(parse: Any) -> bool:
    """True for a proper-name reading: a first name, surname, patronymic or place name."""
    return bool(_PROPER & parse.tag.grammemes)


def _reading_candidates(word: str, sentence_initial: bool, proper: set[str]) -> list[Any]:
    """Readings of ``word`` that fit its spelling: proper names only when capitalised (at a sentence start only
    if the story also capitalises them inside a sentence); nouns without a case are dictionary stubs."""
    parses = [p for p in parse_word(word) if not (p.tag.POS == "NOUN" and not p.tag.case)] or list(parse_word(word))
    if word[0].isupper():
        names = [p for p in parses if is_proper(p) and (not sentence_initial or p.normal_form in proper)]
        if names:  # first names before surnames: "Василько" is also a (feminine, indeclinable) surname
            return sorted(names, key=lambda p: "Name" not in p.tag) + [p for p in parses if not is_proper(p)]
    return [p for p in parses if not is_proper(p)] or parses


def _narrow(parses: list[Any], previous: str | None) -> list[Any]:
    """Keep the readings that fit the word before: a case the preposition governs, or the case, number and gender
    of the adjective (a noun or another adjective follows it)."""
    if previous is None:
        return parses
    cases = _PREPOSITION_CASES.get(previous.lower())
    before = parse_word(previous)
    if cases is None and before and all(p.tag.POS in ("ADJF", "PRTF") for p in before):
        wanted = [{k: v for k, v in required_features(p.tag).items() if k != "pos"} for p in before]
        kept = [p for p in parses if p.tag.case and any(matches_features(p.tag, w) for w in wanted)]
    else:
        kept = [p for p in parses if cases is not None and p.tag.case in cases]
    return kept or parses


def plausible_readings(word: str, previous: str | None, sentence_initial: bool, proper: set[str]) -> list[Any]:
    """Plausible readings of a token, in dictionary order (pymorphy3 gives no probabilities for Ukrainian)."""
    closed = [p for p in parse_word(word) if p.tag.POS in _CLOSED_CLASS]
    if closed:  # function words are far more frequent than their noun/verb homonyms (до, під, його)
        return closed
    parses = _narrow(_reading_candidates(word, sentence_initial, proper), previous)
    return [p for p in parses if p.tag.case != "voct"] or parses


def rank_readings(word: str, parses: list[Any], support: Counter[tuple[str, str]]) -> list[Any]:
    """Best reading first: the lemma and part of speech that the most words of the story can have (a story about
    a mother has ``матір``, ``матері`` beside ``мати``); on a tie an adjective before its noun homonym (the
    dictionary lists ``мудрий``, ``старий`` as nouns too, and stories use them as adjectives), then the reading
    whose lemma is the word itself (``камінь`` before ``каміння``), then dictionary order."""
    return sorted(
        parses,
        key=lambda p: (
            -support[(p.normal_form, p.tag.POS)],
            p.tag.POS not in ("ADJF", "PRTF"),
            p.normal_form != word.lower().translate(_APOSTROPHES),
        ),
    )


@lru_cache(maxsize=4096)
def _lemma_readings(lemma: str, pos: str, proper: bool, animate: bool) -> tuple[Any, ...]:
    """Dictionary readings of a lemma to inflect from: part of speech ``pos``; for names the first-name readings,
    else other proper-name ones, else common ones; for common words never a proper-name homonym (which has its own
    gender: ``ластівка`` is also a masculine surname); readings of the wanted animacy first."""
    parses = [p for p in parse_word(lemma) if p.normal_form == lemma and pos == p.tag.POS]
    common = [p for p in parses if not is_proper(p)]
    if proper:
        names = [p for p in parses if "Name" in p.tag]
        fitting = names or [p for p in parses if is_proper(p)] or common
    else:
        fitting = common
    return tuple(sorted(fitting, key=lambda p: ("anim" in p.tag) != animate))


def inflect_lemma(
    lemma: str, pos: str, features: Mapping[str, str], proper: bool = False, animate: bool = False
) -> str | None:
    """The form of ``lemma`` (part of speech ``pos``: ``NOUN`` or ``VERB``) with ``features`` (see
    :func:`required_features`), or None if it has none; ``proper`` inflects it as a name, ``animate`` prefers its
    animate readings (a named entity's)."""
    for parse in _lemma_readings(lemma, pos, proper, animate):
        for form in parse.lexeme:
            if matches_features(form.tag, features):
                return str(form.word)
    return None


def match_case(word: str, model: str) -> str:
    """``word`` written like ``model``: all capitals, a capital first letter, or all lower case (3.1.3)."""
    if len(model) > 1 and model.isupper():
        return word.upper()
    return word[:1].upper() + word[1:].lower() if model[:1].isupper() else word.lower()
