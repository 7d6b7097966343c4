"""Is a conjunct an adjective? The check that decides whether "X" in "I feel happy and X" is a new affective state
(MASIVE section 3.1: "any adjective conjuncts of the query emotion term are also affective states").

* :class:`SpacyAdjectives`: a real part-of-speech tagger, a spaCy pipeline (the paper used ``en_core_web_md`` and
  ``es_core_news_md``), used when spaCy and a pipeline are installed. The word counts when it is tagged ``ADJ``, or
  ``VERB``/``AUX`` as a participle ("excited", "cansado" are often tagged so).
* :class:`LexicalAdjectives`: the documented fallback when no tagger is installed (spaCy's pipelines are not on
  PyPI): a lowercase alphabetic word that is not a function word or a common verb/adverb, and that is a known
  state, a common base adjective, or ends with an adjective or participle suffix. It accepts "excited", "hopeful",
  "lonely", "cansada" and refuses "want", "then", "that", "going"; it is a heuristic, and it misses base adjectives
  outside its short list ("numb" is on it, "raw" is not).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Protocol

from affectlab.extras import require

WORD = re.compile(r"^[^\W\d_]+(?:-[^\W\d_]+)?$")

FUNCTION_WORDS = {
    "en": set(
        "a an the i me my you your he she it we they them his her its our their this that these those and or but so "
        "then than very really just too also not no yes like as if when while because since to of in on at by for "
        "with about from into out up down over off again now still even ever never always only much more most less "
        "least some any all both each every other such own same what which who whom whose why how where there here "
        "am is are was were be been being have has had having do does did doing done can could will would shall "
        "should may might must want wanted need needed go going get got getting make made know knew think thought "
        "feel feeling felt say said see saw look looking try trying start started let lets cant dont didnt wont im "
        "ive thing things something nothing everything anything lot bit kind sort way time day today".split()
    ),
    "es": set(
        "el la los las un una unos unas lo le les me te se nos os mi mis tu tus su sus y o u pero que porque como "
        "cuando donde quien muy mas más menos tan tanto ya no sí si también tampoco solo sólo aún todavía siempre "
        "nunca ahora luego entonces de del al a en con sin por para sobre entre hasta desde hacia este esta estos "
        "estas ese esa esos esas aquel eso esto yo tú él ella nosotros ellos ellas usted ustedes es son era fue "
        "ser estar estoy está están estaba he ha han había tener tengo tiene hacer hago hace ir voy va quiero "
        "quiere puedo puede algo nada todo bien mal poco mucho muy bastante casi así cosa cosas vez día hoy".split()
    ),
}
"""Words that follow "and"/"y" in these templates without being states ("I feel happy and then ...")."""

BASE_ADJECTIVES = {
    "en": set(
        "sad mad glad bad good fine great calm weak strong low high lost free safe warm cold sick ill numb empty "
        "whole alone alive broken stuck old young small big dumb dead weird stupid blue hurt tense brave proud "
        "secure content sure ready able afraid awake asleep aware upset worn drained seen heard loved wanted "
        "valued grateful thankful helpless hopeless".split()
    ),
    "es": set(
        "feliz felices triste tristes mal bien solo sola vacío vacía libre fuerte débil enfermo enferma tranquilo "
        "tranquila alegre contento contenta harto harta loco loca raro rara sano sana roto rota perdido perdida "
        "nervioso nerviosa ansioso ansiosa orgulloso orgullosa agotado agotada".split()
    ),
}
"""Common adjectives that no suffix rule catches."""

SUFFIXES = {
    "en": ("ed", "ful", "less", "ous", "ive", "ic", "able", "ible", "al", "y", "ish", "ent", "ant", "ary", "ory"),
    "es": (
        "ado", "ada", "ados", "adas", "ido", "ida", "idos", "idas", "oso", "osa", "ble", "bles", "nte", "ntes",
        "ivo", "iva", "ico", "ica", "al", "ales", "ento", "enta", "ísimo", "ísima", "ero", "era", "ño", "ña",
    ),
}  # fmt: skip
"""Adjective and participle endings (English "-ed", Spanish "-ado/-ido" are participles used as states)."""

NOT_ADJECTIVES = {"en": {"really", "only", "early", "already", "anyway", "away", "everyday", "need"}, "es": set()}
"""Words a suffix rule would let through that are not adjectives."""


ADVERB_ENDINGS = {"en": ("ly",), "es": ("mente",)}
"""Adverbs the suffix rules would let through ("slightly", "totalmente"); the -ly adjectives are listed below."""
LY_ADJECTIVES = set(
    "lonely lovely ugly friendly unfriendly silly jolly lively likely unlikely lowly homely costly deadly elderly "
    "cowardly holy sickly ghastly smelly curly wobbly bubbly grumbly crumbly prickly surly".split()
)


class AdjectiveCheck(Protocol):
    """Decides whether ``word`` (lowercase), seen in ``sentence``, is an adjective usable as an affective state."""

    name: str

    def is_adjective(self, word: str, lang: str, sentence: str, known: Iterable[str] = ()) -> bool: ...


class LexicalAdjectives:
    """The fallback check (see the module docstring)."""

    name = "lexical fallback (no part-of-speech tagger installed)"

    def is_adjective(self, word: str, lang: str, sentence: str = "", known: Iterable[str] = ()) -> bool:
        """Whether ``word`` passes the lexical rules of ``lang`` (``known`` states always pass)."""
        word = word.lower()
        if not WORD.match(word) or len(word) < 3 or word in FUNCTION_WORDS[lang] or word in NOT_ADJECTIVES[lang]:
            return False
        if word in set(known) or word in BASE_ADJECTIVES[lang]:
            return True
        if word in LY_ADJECTIVES:
            return True
        if word.endswith(ADVERB_ENDINGS[lang]) or (lang == "en" and word.endswith("ing")):
            return False
        return word.endswith(SUFFIXES[lang]) and len(word) > 4


class SpacyAdjectives:
    """A spaCy pipeline per language as the tagger: ``pipelines={"en": "en_core_web_md", "es": ...}`` (names or
    paths of installed pipelines)."""

    def __init__(self, pipelines: dict[str, str]) -> None:
        self.spacy = require("spacy", "asi", "part-of-speech tagging with spaCy")
        self.pipelines = dict(pipelines)
        self._loaded: dict[str, Any] = {}
        self.name = "spaCy " + ", ".join(f"{lang}: {name}" for lang, name in self.pipelines.items())

    def _nlp(self, lang: str) -> Any:
        if lang not in self._loaded:
            self._loaded[lang] = self.spacy.load(self.pipelines[lang], exclude=["ner", "lemmatizer"])
        return self._loaded[lang]

    def is_adjective(self, word: str, lang: str, sentence: str, known: Iterable[str] = ()) -> bool:
        """Whether the first token spelled ``word`` in ``sentence`` is tagged an adjective or a participle."""
        if lang not in self.pipelines:
            return LexicalAdjectives().is_adjective(word, lang, sentence, known)
        for token in self._nlp(lang)(sentence):
            if token.lower_ == word.lower():
                participle = token.pos_ in ("VERB", "AUX") and "Part" in token.morph.get("VerbForm")
                return token.pos_ == "ADJ" or participle
        return False


def default_adjective_check(pipelines: dict[str, str] | None = None) -> AdjectiveCheck:
    """spaCy with ``pipelines`` when given, else the lexical fallback."""
    return SpacyAdjectives(pipelines) if pipelines else LexicalAdjectives()
