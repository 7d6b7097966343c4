"""Which language a text is in, for the decisions tuned per language: open-set (issue 32), so a text is given one
of the 28 languages the default was trained on only where the identifier is sure of it against every language it
knows, and otherwise its own language's tag (``fi``, ``bg``, ...) or ``und``; :func:`affectlab.detect` then says
``supported: false`` and still scores it.

A dataset's ``lang`` column (or a caller's ``--lang``) wins. Otherwise:

* Cyrillic: letters only one language has decide where there are some (Kazakh ғ қ ұ, or і beside ә ө ү ң һ;
  Tatar җ, or ә ө ү ң һ; Belarusian ў, or і beside ы or э; Ukrainian ї є ґ, or і; Serbian ђ ћ; Macedonian ѓ ќ ѕ;
  Serbian or Macedonian by CLD3 for ј љ њ џ);
* every other text (Cyrillic without such letters too): the character n-gram model of
  :class:`NgramModel` (the 28 learnt from their train texts, 31 other languages from ``wordfreq``'s word
  lists) gives its best language of the 28 where that language beats every other language it knows by
  :data:`SURE_MARGIN` (log-likelihood); else the text is another language's: CLD3's (Google's Compact Language
  Detector v3, from the ``cld3-py`` package: Apache-2.0, 107 languages) where CLD3 is sure of one outside the 28,
  else the model's best outside them (``und`` where the model knows none of its letters and CLD3 is unsure);
* Nigerian Pidgin needs one of its marker words (``dey``, ``wetin``, ...), else the text is English; and a
  Latin-script text whose English function words clearly outnumber the Spanish ones and three quarters of whose
  words simplemma's English dictionary knows is English, whatever the model said (but not against Afrikaans,
  Swedish or German, or another language of the 28).

Identifiers return the tags of :data:`affectlab.languages.LANGUAGES` (``de``, ``pt-BR``, ...) for the 28, and
CLD3's or ``wordfreq``'s codes for others; the two Portuguese and the two Arabic sets are told apart by the model
where it can (a wrong one of a pair gets the sibling's thresholds). ``und`` means no language could be told.
Figures: ``benchmarks/langid_open_set.py``.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

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
_KAZAKH_LETTERS = frozenset("ғқұ")
_TURKIC_LETTERS = frozenset("әөүңһ")
_SPANISH_LETTERS = re.compile(r"[ñáéíóúü¿¡]")
_FUNCTION_WORDS = {
    lang: frozenset(listed.split())
    for lang, listed in json.loads((Path(__file__).parent / "function_words.json").read_text(encoding="utf-8")).items()
}
"""The commonest function words of Ukrainian, Russian, English and Spanish."""
_ENGLISH_WORDS, _SPANISH_WORDS = _FUNCTION_WORDS["en"], _FUNCTION_WORDS["es"]
SURE_MARGIN = 5.0
"""How much likelier (natural log, summed over the text's n-grams) the model must find a text in its best language
of the 28 than in its best other language for the text to be given the first (tuned on the dev splits and
``benchmarks/data/langid_outside_dev.tsv``)."""
SURE = 0.9
"""CLD3's probability from which it names the language of a text the model finds outside the 28."""
CLEAR_MARGIN = 2
"""English function words beyond Spanish ones (Spanish letters counting two) that make a text clearly English."""
MOST = 0.75
"""The share of a text's words simplemma's English dictionary must know for the text to be English whatever the
model said."""
IN_DOUBT = {"ru": ("uk", 5.0), "tt": ("uk", 5.0), "pt-MZ": ("pt-BR", 30.0)}
"""Where the model must prefer a language to another by a margin, in a text of more than one word, to say so, and
the other where it does not: as before issue 32, Ukrainian for a Cyrillic text in doubt ("Ура!" is Ukrainian,
Russian or Tatar; the default's first language), and Brazilian Portuguese (the larger set). On the dev splits,
99 % of Russian and all Tatar texts clear their margin, and 72 % of Mozambican texts (0.5 % of Brazilian ones would
have been read Mozambican)."""
ALL = 1.0
"""... where English function words outnumber Spanish ones by less than :data:`CLEAR_MARGIN`."""
ENGLISH_KEEPS = frozenset({"pcm"})
"""The model's answers the English rule leaves alone (Nigerian Pidgin has its marker words)."""


MODEL_FILE = Path(__file__).parent / "langid_ngrams.npz"
ORDERS = (1, 2, 3, 4)
"""The n-gram lengths counted."""
MAX_WORD = 30
"""Characters of a word read (a text without spaces, as Chinese, is one long word)."""
_LETTERS_RUN = re.compile(r"[^\W\d_]+")
CACHED_WORDS = 200_000
"""Words whose n-gram indices are kept between texts (then the cache starts again)."""


def words(text: str) -> list[str]:
    """The lower-cased runs of letters of ``text``, each cut to :data:`MAX_WORD` characters."""
    return [word[:MAX_WORD] for word in _LETTERS_RUN.findall(text.lower())]


def word_ngrams(word: str) -> list[str]:
    """The character n-grams (:data:`ORDERS`) of ``word`` padded with a space each side, the bare space left out."""
    padded = f" {word} "
    return [padded[i : i + n] for n in ORDERS for i in range(len(padded) - n + 1) if n > 1 or padded[i] != " "]


@dataclass(frozen=True)
class NgramModel:
    """A multinomial naive Bayes model over the character 1- to 4-grams of each word, padded with a space each side
    (so word starts and ends count): ``log_probs[ngram, language]`` for the n-grams ``index`` names and the
    languages ``tags`` (the 28 from their train texts, others from ``wordfreq``'s word frequencies), and the words
    that mark Nigerian Pidgin against English. :data:`MODEL_FILE` (built by ``python -m
    affectlab.build.langid_model``) holds the tags, the n-grams, each language's log-probabilities of its commonest
    n-grams (float16) and one floor for the rest; it is read with ``allow_pickle=False``."""

    tags: tuple[str, ...]
    index: dict[str, int]
    log_probs: np.ndarray
    pidgin_words: frozenset[str] = frozenset()
    _words: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def word_indices(self, word: str) -> np.ndarray:
        """The rows of ``word``'s known n-grams (n-grams no language has among its commonest are left out), kept
        for the next text (up to :data:`CACHED_WORDS` words)."""
        found = self._words.get(word)
        if found is None:
            found = np.array([self.index[g] for g in word_ngrams(word) if g in self.index], dtype=np.int32)
            with self._lock:
                if len(self._words) >= CACHED_WORDS:
                    self._words.clear()
                self._words[word] = found
        return found

    def best_inside_and_outside(self, scores: np.ndarray, inside: frozenset[str]) -> tuple[int, int]:
        """The columns of the best-scored language of ``inside`` and of the best-scored one outside it."""
        mask = np.array([tag in inside for tag in self.tags])
        return int(np.argmax(np.where(mask, scores, -np.inf))), int(np.argmax(np.where(mask, -np.inf, scores)))

    def log_likelihoods(self, text: str) -> tuple[np.ndarray, int]:
        """Each language's log-likelihood of ``text``'s known n-grams (one per :data:`tags`), and their number."""
        rows = [self.word_indices(word) for word in words(text)]
        known = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int32)
        if not len(known):
            return np.zeros(len(self.tags), dtype=np.float64), 0
        return self.log_probs[known].sum(axis=0, dtype=np.float64), len(known)


def read_model(path: Path = MODEL_FILE) -> NgramModel:
    """The model saved at ``path`` (see the module docstring for the arrays it holds)."""
    with np.load(path, allow_pickle=False) as saved:
        tags, ngrams = [str(tag) for tag in saved["tags"]], [str(ngram) for ngram in saved["ngrams"]]
        log_probs = np.repeat(saved["floors"].astype(np.float32)[None, :], len(ngrams), axis=0)
        log_probs[saved["rows"], saved["cols"]] = saved["values"].astype(np.float32)
        pidgin_words = frozenset(str(word) for word in saved["pidgin_words"])
    return NgramModel(tuple(tags), {ngram: i for i, ngram in enumerate(ngrams)}, log_probs, pidgin_words)


@cache
def ngram_model() -> NgramModel:
    """The shipped n-gram model, read once per process."""
    return read_model()


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
    """The tag of the language ``text`` is in (see the module docstring): one of :data:`SUPPORTED` only where the
    identifier is sure of it against every language it knows, else the tag of another language, or ``und`` when it
    has no letters or no language can be told."""
    if not _LETTER.search(text):
        return UNDETERMINED
    cyrillic, latin = len(_CYRILLIC.findall(text)), len(_LATIN.findall(text))
    if cyrillic and cyrillic >= latin:
        return _cyrillic_letters(text) or _open_set(text)
    found = _open_set(text)
    if found not in ENGLISH_KEEPS and latin >= len(_LETTER.findall(text)) / 2 and _clearly_english(text, found):
        return "en"
    return found


def _clearly_english(text: str, found: str) -> bool:
    """Whether English function words clearly outnumber Spanish ones (:data:`CLEAR_MARGIN`) and simplemma's English
    dictionary knows :data:`MOST` of the words, or, against ``found`` of the 28, they outnumber them at all and it
    knows every word (so a French, Dutch or Finnish text is not English, nor a short Danish one)."""
    margin = _function_word_margin(text)
    if margin >= 0 or (margin > -CLEAR_MARGIN and found not in SUPPORTED):
        return False
    return _known_english(text) >= (MOST if margin <= -CLEAR_MARGIN else ALL)


def _open_set(text: str) -> str:
    """The n-gram model's best language of the 28 where it beats every other language the model knows by
    :data:`SURE_MARGIN` (checked by :func:`_one_of_the_28`); else CLD3's language where it is sure of one outside
    the 28, else the model's best language outside them (``und`` where the model knows none of the text's letters
    and CLD3 is unsure). A single Latin-script word the model is unsure of is English ("ok", as before issue 32:
    short replies are English most often)."""
    model = ngram_model()
    scores, n_grams = model.log_likelihoods(text)
    if not n_grams:
        return _cld3_sure_of_another(text) or UNDETERMINED
    inside, outside = model.best_inside_and_outside(scores, SUPPORTED)
    if scores[inside] - scores[outside] < SURE_MARGIN:
        if len(words(text)) < 2 and _LATIN.search(text):  # CLD3 is no surer of one word ("ciao" is Macedonian)
            return "en"
        return _cld3_sure_of_another(text) or model.tags[outside]
    return _one_of_the_28(text, model.tags[inside], scores, model)


def _cld3_sure_of_another(text: str) -> str | None:
    """CLD3's language where it is at least :data:`SURE` of one outside the 28, else None."""
    guess, probability = cld3(text)
    return guess if probability >= SURE and guess not in SUPPORTED and guess != UNDETERMINED else None


def _one_of_the_28(text: str, candidate: str, scores: np.ndarray, model: NgramModel) -> str:
    """``candidate``, but English where the model says Nigerian Pidgin in a text without one of Pidgin's marker
    words (:attr:`NgramModel.pidgin_words`: Pidgin is English-based, and without them
    ordinary English posts can read as the Pidgin tweets the model learnt from), and the language :data:`IN_DOUBT`
    names where the model prefers ``candidate`` to it by less than the margin there, or the text is one word."""
    if candidate == "pcm" and not model.pidgin_words.intersection(words(text)):
        return "en"
    if candidate in IN_DOUBT:
        fallback, margin = IN_DOUBT[candidate]
        if len(words(text)) < 2 or scores[model.tags.index(candidate)] - scores[model.tags.index(fallback)] < margin:
            return fallback
    return candidate


def _cyrillic_letters(text: str) -> str | None:
    """The language a Cyrillic text's own letters name, or None: Kazakh (ғ қ ұ, or і beside ә ө ү ң һ), Tatar (җ,
    or ә ө ү ң һ without і), Belarusian (ў, or і beside ы or э), Ukrainian (ї є ґ, or і), Serbian (ђ ћ),
    Macedonian (ѓ ќ ѕ), and Serbian or Macedonian by CLD3 for ј љ њ џ."""
    letters = set(text.lower())
    if letters & _KAZAKH_LETTERS or ("і" in letters and letters & _TURKIC_LETTERS):
        return "kk"
    if "җ" in letters or letters & _TURKIC_LETTERS:
        return "tt"
    if letters & {"ї", "є", "ґ"}:
        return "uk"
    if "ў" in letters or ("і" in letters and letters & {"ы", "э"}):
        return "be"
    if "і" in letters:
        return "uk"
    if letters & {"ђ", "ћ"}:
        return "sr"
    if letters & {"ѓ", "ќ", "ѕ"}:
        return "mk"
    if letters & {"ј", "љ", "њ", "џ"}:
        return "mk" if cld3(text)[0] == "mk" else "sr"
    return None


def _known_english(text: str) -> float:
    """The share of the text's words simplemma's English dictionary knows."""
    import simplemma

    return dict(simplemma.langdetect(text, lang=("en",))).get("en", 0.0)


def _function_word_margin(text: str) -> int:
    """Spanish minus English evidence: function words, and Spanish letters counted twice."""
    lowered = text.lower()
    found = _WORD.findall(lowered)
    spanish = sum(w in _SPANISH_WORDS for w in found) + 2 * len(_SPANISH_LETTERS.findall(lowered))
    return spanish - sum(w in _ENGLISH_WORDS for w in found)


def detect_languages(inputs: Any) -> list[str]:
    """One tag per text of ``inputs`` (an :class:`~affectlab.detectors.base.Inputs`), from its ``langs`` when set."""
    return [
        normalise(lang) if lang else detect_language(text)
        for text, lang in zip(inputs.texts, inputs.langs, strict=True)
    ]
