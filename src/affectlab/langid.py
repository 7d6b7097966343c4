"""Which language a text is in, for the decisions tuned per language: open-set (issue 32), so a text is given one
of the 28 languages the default was trained on only where the identifier is sure of it against every language it
knows, and otherwise its own language's tag (``fi``, ``bg``, ...) or ``und``; :func:`affectlab.detect` then says
``supported: false`` and still scores it.

A dataset's ``lang`` column (or a caller's ``--lang``) wins: a BCP 47 tag is read as the language of the 28 it
matches (:func:`normalise`: ``zh-Hant`` is Chinese, ``es-419`` Spanish, ``pt-PT`` Mozambican Portuguese, the
nearer of the two Portuguese sets by CLDR's distances, through the ``langcodes`` package). Otherwise:

* ``und`` where a text is too short or too repetitive to tell (:func:`undetermined_reason`): no letters, fewer
  than :data:`MIN_LETTERS` different letters, or fewer than :data:`MIN_WORDS` different words (in a script written
  without spaces, as Chinese, every :data:`UNSPACED_WORD` characters count as a word; one of :data:`RUN_TOGETHER`
  letters or more is words run together). A single word ("Kiitos", "Teşekkürler", "ok") is shared by too many
  languages to name one;
* Arabic in Latin letters (Arabizi: digits for the letters Latin lacks, as in "3lach", "m3ak", "wa7d", and
  Maghrebi words such as "wach", "bzaf", "mzyan"): Moroccan Arabic where :func:`arabizi` finds
  :data:`ARABIZI_CLUES` such clues (it is the only Arabizi among the training texts; the n-gram model, which
  learnt mostly from Arabic script, gave them Swahili, Hausa, Igbo or Somali);
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
Figures: ``benchmarks/languages/langid_open_set.py`` (issue 41: ``benchmarks/results/langid_honest_dev.json``).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import regex

from affectlab.errors import ArgumentTypeError, InputError
from affectlab.handles import without_links_and_mentions
from affectlab.languages import LANGUAGES, tags_by_code
from affectlab.loaded_once import loaded_once
from affectlab.model_package import shipped_path, verified
from affectlab.text import type_name

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
"""The commonest function words of Ukrainian, Russian, English and Spanish, and words of Arabizi (below)."""
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
"""Where the model must prefer a language to another by a margin to say so, and the other where it does not: as
before issue 32, Ukrainian for a Cyrillic text in doubt between it and Russian or Tatar (the default's first
language), and Brazilian Portuguese (the larger set). On the dev splits, 99 % of Russian and all Tatar texts clear
their margin, and 72 % of Mozambican texts (0.5 % of Brazilian ones would have been read Mozambican)."""
ALL = 1.0
"""... where English function words outnumber Spanish ones by less than :data:`CLEAR_MARGIN`."""
ENGLISH_KEEPS = frozenset({"en", "pcm"})
"""The model's answers the English rule leaves alone: English (the rule could only say English again, so its
simplemma dictionary is not even loaded for it) and Nigerian Pidgin (it has its marker words)."""
MIN_LETTERS = 4
"""Different letters a text needs for its language to be told ("aaaa...", "ha ha ha", "lol" have fewer). Every
text of the 28 dev splits has at least 5."""
MIN_WORDS = 2
"""Different words a text needs for its language to be told: one word ("Kiitos", "Teşekkürler", "ok", "Ура!") is
spelt alike in too many languages. Of the 8,505 texts of the 28 dev splits, 5 are one word ("Överste!",
"Förstått?", "- Däruppe!", "10 000 dollar.", "Пиздос!!!"); 3 of them had been named right
(``benchmarks/results/langid_honest_dev.json``)."""
UNSPACED_WORD = 2
"""Characters of a script written without spaces (Han, kana, Thai, Lao, Khmer, Myanmar) that count as one word:
most Chinese words are one or two characters, so "谢谢" is one word and "好开心" more than one. Words of the other
scripts are longer ("ありがとう" is one), so one of them may still be named: never one of the 28, which write
none of them but Han."""
RUN_TOGETHER = 20
"""Letters from which one word is words run together (a hashtag, an Oromo tweet written without spaces,
"Isiiinjaaaladhamaaali...") and long enough for its language to be told; an ordinary word is shorter ("Teşekkürler"
has 11 letters). The one dev text of the 28 it keeps told is such an Oromo tweet (90 letters)."""
_UNSPACED_SCRIPTS = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}"
_UNSPACED = regex.compile(rf"[{_UNSPACED_SCRIPTS}]")
_WORD_RUN = regex.compile(
    rf"[{_UNSPACED_SCRIPTS}][{_UNSPACED_SCRIPTS}\p{{M}}]*|(?:(?![{_UNSPACED_SCRIPTS}])[\p{{L}}\p{{M}}])+"
)
"""A run of letters (with their marks) of one kind: of a script written without spaces, or of any other."""
ARABIZI_CLUES = 2
"""Clues (:func:`arabizi_clues`) from which a Latin-script text is Arabic in Latin letters. Of the 53 Latin-script
texts of Moroccan Arabic's dev split, 35 have two or more (183 of 283 in train); of the 220,603 train and dev texts
of the other 26 languages and of the English GoEmotions, EmoContext and CARER, 2 do (numbered lists glued to Oromo
and Somali words): ``benchmarks/languages/langid_honest.py``."""
ARABIZI_DIGITS = "3579"
"""The digits Arabizi writes for Arabic letters Latin lacks (3 ع, 5 خ, 7 ح, 9 ق); 2 and 8 are left out, as English
chat writes "2day", "gr8"."""
_ARABIZI_WORD = re.compile(rf"(?<![a-z0-9])[a-z]*(?:[{ARABIZI_DIGITS}][a-z]+)+(?![a-z0-9])")
_NUMBER_WITH_UNIT = re.compile(rf"[{ARABIZI_DIGITS}](?:st|nd|rd|th|am|pm|km|kg|cm|mm|ml|min|mins|hrs?|yrs?)")
_ASCII_WORD = re.compile(r"[a-z0-9]+")
ARABIZI_WORDS = _FUNCTION_WORDS["arabizi"]
"""Words of Moroccan and Algerian Arabic as written in Latin letters, from the Latin-script texts of Moroccan
Arabic's train split, less those that other languages of the 28 spell alike (Hausa and Spanish "daba", Igbo
"nti", Kinyarwanda "nta", Swahili "ana", "safi", "hadi", German "Bach", "Fach"); German "wach" stays, as one clue is
never enough."""
MATCH_DISTANCE = 5
"""The largest CLDR language-matching distance (``langcodes``) at which a tag is read as one of the 28: a region of
the same language (``en-GB``, ``es-419``, ``pt-PT``: 4-5), not a neighbouring language (Swiss German to German 8,
Wu to Chinese 10, Belarusian to Russian 24)."""


MODEL_FILE = shipped_path("langid/langid_ngrams.npz")
"""The shipped n-gram model, in the model package (:mod:`affectlab.model_package`)."""
ORDERS = (1, 2, 3, 4)
"""The n-gram lengths counted."""
MAX_WORD = 30
"""Characters of a word read (a text without spaces, as Chinese, is one long word)."""
_LETTERS_RUN = re.compile(r"[^\W\d_]+")
CACHED_WORDS = 200_000
"""Words whose n-gram indices are kept between texts (then the cache starts again)."""
_NONE = np.zeros(0, dtype=np.int32)


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
    _masks: dict[frozenset[str], np.ndarray] = field(default_factory=dict, repr=False, compare=False)

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

    def best_inside_and_outside(self, scores: np.ndarray, inside: frozenset[str]) -> tuple[np.ndarray, np.ndarray]:
        """The columns of the best-scored language of ``inside`` and of the best-scored one outside it, for each row
        of ``scores`` (one per text, as :meth:`batch_log_likelihoods` gives them)."""
        mask = self._masks.get(inside)
        if mask is None:  # one per set of languages asked about (in practice one): built once, not per text
            mask = self._masks.setdefault(inside, np.array([tag in inside for tag in self.tags]))
        return np.where(mask, scores, -np.inf).argmax(axis=1), np.where(mask, -np.inf, scores).argmax(axis=1)

    def log_likelihoods(self, text: str) -> tuple[np.ndarray, int]:
        """Each language's log-likelihood of ``text``'s known n-grams (one per :data:`tags`), and their number."""
        scores, counts = self.batch_log_likelihoods([text])
        return scores[0], int(counts[0])

    def batch_log_likelihoods(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`log_likelihoods` of every text at once: the scores (a row per text, float64) and each text's
        number of known n-grams. One sparse product (texts x the batch's n-grams, times their log-probabilities)
        instead of a gather and a sum per text, which was a third of identifying a short text."""
        import scipy.sparse  # here, not at the top: commands that only check a language tag do not load it

        known = [np.concatenate(rows) if (rows := [self.word_indices(w) for w in words(t)]) else _NONE for t in texts]
        lengths = np.fromiter(map(len, known), dtype=np.int64, count=len(known))
        columns, inverse = np.unique(np.concatenate([_NONE, *known]), return_inverse=True)
        counts = scipy.sparse.csr_matrix(
            (np.ones(len(inverse)), inverse, np.concatenate([[0], np.cumsum(lengths)])),
            shape=(len(known), len(columns)),
        )
        return counts @ self.log_probs[columns].astype(np.float64), lengths


def read_model(path: Path = MODEL_FILE) -> NgramModel:
    """The model saved at ``path`` (see the module docstring for the arrays it holds)."""
    with np.load(path, allow_pickle=False) as saved:
        tags, ngrams = [str(tag) for tag in saved["tags"]], [str(ngram) for ngram in saved["ngrams"]]
        log_probs = np.repeat(saved["floors"].astype(np.float32)[None, :], len(ngrams), axis=0)
        log_probs[saved["rows"], saved["cols"]] = saved["values"].astype(np.float32)
        pidgin_words = frozenset(str(word) for word in saved["pidgin_words"])
    return NgramModel(tuple(tags), {ngram: i for i, ngram in enumerate(ngrams)}, log_probs, pidgin_words)


@loaded_once
def ngram_model() -> NgramModel:
    """The shipped n-gram model, read once per process."""
    return read_model(verified(MODEL_FILE))


def normalise(lang: str) -> str:
    """The tag of the language of the 28 that a code or BCP 47 tag names (``ukr`` -> ``uk``, ``pt`` -> ``pt-BR``,
    ``zh-Hant`` -> ``zh``, ``es-419`` -> ``es``, ``en-GB`` -> ``en``, ``pt-PT`` -> ``pt-MZ``); any other is kept,
    lower-cased."""
    code = lang.strip().lower()
    return ALIASES.get(code) or _matching_tag(code)


@lru_cache(maxsize=4096)
def _matching_tag(code: str) -> str:
    """The tag of the 28 that BCP 47 tag ``code`` matches within :data:`MATCH_DISTANCE` (``langcodes``: CLDR's
    language matching), tried whole, then without its script (``zh-Hant`` is still Chinese), then as its language
    alone; else ``code``."""
    import langcodes

    try:
        tag = langcodes.Language.get(code)
    except ValueError:  # langcodes' LanguageTagError is one
        return code
    if tag.language in (None, UNDETERMINED):
        return code
    for candidate in (tag, tag.update_dict({"script": None}), langcodes.Language.make(language=tag.language)):
        found = ALIASES.get(candidate.to_tag().lower()) or langcodes.closest_supported_match(
            candidate, list(SUPPORTED), max_distance=MATCH_DISTANCE
        )
        if found:
            return str(found)
    return code


@lru_cache(maxsize=4096)
def is_known_tag(lang: str) -> bool:
    """Whether ``lang`` is a code of one of the 28 (their tags, file codes and aliases) or a valid BCP 47 tag
    (``langcodes``: registered subtags in a well-formed order, ``zh-Hant-TW``, ``fr``; not ``xx`` or ``en-US-US``)."""
    if lang.strip().lower() in ALIASES:
        return True
    import langcodes

    return bool(langcodes.tag_is_valid(lang.strip()))


_LANGUAGE_TAG = re.compile(r"[A-Za-z][A-Za-z0-9]{0,7}(?:-[A-Za-z0-9]{1,8})*")
"""A language tag or code as BCP 47 spells one (``uk``, ``pt-BR``, ``orm``, ``zh-Hant-TW``): ASCII letters and digits
in hyphen-joined parts, starting with a letter."""


def check_lang(lang: object, name: str = "lang") -> str | None:
    """``lang`` unchanged when it is a language tag or code (see :data:`_LANGUAGE_TAG`), or None. The one check of a
    language a user names, shared by ``affectlab.detect``, ``detect_file``, ``detect_open``, the command line's
    ``--lang`` and the service's ``lang``: a non-str is an :class:`~affectlab.errors.ArgumentTypeError`; whitespace,
    NUL, other punctuation and anything that is not ASCII (a lone surrogate from invalid UTF-8 too) an
    :class:`~affectlab.errors.InputError`, as is a tag BCP 47 does not know (``xx``, ``en-US-US``; a code of the
    28 languages, as ``ptbr``, is known: :func:`affectlab.langid.is_known_tag`)."""
    if lang is None:
        return None
    if not isinstance(lang, str):
        raise ArgumentTypeError(f"{name} must be a language tag (str) such as 'uk' or 'pt-BR', not {type_name(lang)}")
    if len(lang) > 35 or not _LANGUAGE_TAG.fullmatch(lang):
        shown = lang[:40].encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")
        raise InputError(
            f"{name} must be a language tag of letters, digits and hyphens such as 'uk', 'de' or 'pt-BR', not {shown!r}"
        )
    if not is_known_tag(lang):
        raise InputError(
            f"{name} {lang!r} is not a BCP 47 language tag: a language such as 'uk', 'de' or 'orm', then a script or "
            "region if any ('zh-Hant', 'pt-BR', 'es-419')"
        )
    return lang


def is_supported(lang: str) -> bool:
    """Whether the default model was trained on texts of ``lang``."""
    return normalise(lang) in SUPPORTED


@loaded_once
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
    identifier is sure of it against every language it knows, else the tag of another language, or ``und`` when the
    text is too short or too repetitive to tell (:func:`undetermined_reason`) or no language can be told."""
    return detect_language_batch([text])[0]


def detect_language_batch(texts: Sequence[str]) -> list[str]:
    """:func:`detect_language` of each of ``texts``, the same answers, with the n-gram model's scores of all the
    texts computed in one sparse product (:meth:`NgramModel.batch_log_likelihoods`)."""
    reads = [without_links_and_mentions(text) for text in texts]
    told = [i for i, (text, read) in enumerate(zip(texts, reads, strict=True)) if not _undetermined(text, read)]
    if not told:  # too short to tell: the model is not even loaded (37 MB)
        return [UNDETERMINED] * len(texts)
    model = ngram_model()
    scores, n_grams = model.batch_log_likelihoods([reads[i] for i in told])
    inside, outside = model.best_inside_and_outside(scores, SUPPORTED)
    tags = [UNDETERMINED] * len(texts)
    for row, i in enumerate(told):
        tags[i] = _identified(reads[i], _Scored(scores[row], int(n_grams[row]), int(inside[row]), int(outside[row])))
    return tags


class _Scored(NamedTuple):
    """The n-gram model's reading of one text: each language's log-likelihood, the number of known n-grams, and
    the columns of the best language of the 28 and of the best one outside them."""

    scores: np.ndarray
    n_grams: int
    inside: int
    outside: int


def _identified(text: str, scored: _Scored) -> str:
    """The language of ``text`` (its links and @mentions taken out, its language possible to tell) by the rules of
    the module docstring, ``scored`` by the n-gram model."""
    cyrillic, latin = len(_CYRILLIC.findall(text)), len(_LATIN.findall(text))
    if cyrillic and cyrillic >= latin:
        return _cyrillic_letters(text) or _open_set(text, scored)
    if latin and arabizi(text):
        return "ary"
    found = _open_set(text, scored)
    if found not in ENGLISH_KEEPS and latin >= len(_LETTER.findall(text)) / 2 and _clearly_english(text, found):
        return "en"
    return found


def undetermined_reason(text: str) -> str:
    """Why the language of ``text`` cannot be told, as a phrase, or "" where it may be: no letters (digits,
    punctuation, emoji), fewer than :data:`MIN_LETTERS` different letters (in an alphabet: a Han character is a
    word), or fewer than :data:`MIN_WORDS` different words (:func:`different_words`) unless its one word is
    words run together (:data:`RUN_TOGETHER`); links and @mentions are not read."""
    return _undetermined(text, without_links_and_mentions(text))


def _undetermined(text: str, read: str) -> str:
    """:func:`undetermined_reason` of ``text``, whose links and @mentions taken out are ``read``."""
    if text.strip() and not read:
        return "the text has only links and @mentions"
    text = read
    letters = {char.lower() for char in set(text) if char.isalpha()}
    few = len(letters) < MIN_LETTERS and not _UNSPACED.search(text)  # one Han character is a word, not a letter
    if not letters:
        return "the text has no letters"
    if few and len(letters) == 1:
        return "the text has only 1 different letter"
    if different_words(text, MIN_WORDS) < MIN_WORDS and max(map(len, _WORD_RUN.findall(text))) < RUN_TOGETHER:
        return "a single word is too little to tell"
    return f"the text has only {len(letters)} different letters" if few else ""


def different_words(text: str, enough: int) -> int:
    """How many different words ``text`` has, counted up to ``enough``: its runs of letters (with their marks),
    lower-cased, a run of a script written without spaces cut into pieces of :data:`UNSPACED_WORD` characters."""
    seen: set[str] = set()
    for run in _WORD_RUN.finditer(text):
        word = run.group().lower()
        pieces = [word[i : i + UNSPACED_WORD] for i in range(0, len(word), UNSPACED_WORD)]
        seen.update(pieces if _UNSPACED.match(word) else [word])
        if len(seen) >= enough:
            break
    return len(seen)


def arabizi(text: str) -> bool:
    """Whether ``text`` is Arabic in Latin letters: :data:`ARABIZI_CLUES` clues (:func:`arabizi_clues`), and most
    of its letters Latin."""
    return len(arabizi_clues(text)) >= ARABIZI_CLUES and 2 * len(_LATIN.findall(text)) > len(_LETTER.findall(text))


def arabizi_clues(text: str) -> set[str]:
    """The different words of ``text`` that mark Arabic in Latin letters: :data:`ARABIZI_WORDS`, and words of two
    letters or more joined by the digits of :data:`ARABIZI_DIGITS` ("m3ak", "wa7d", "3lach"; not "5th", "ps5",
    "3d")."""
    lowered = text.lower()
    clues = set(ARABIZI_WORDS.intersection(_ASCII_WORD.findall(lowered)))
    for word in _ARABIZI_WORD.findall(lowered):
        if sum(char.isalpha() for char in word) >= 2 and not _NUMBER_WITH_UNIT.fullmatch(word):
            clues.add(word)
    return clues


def _clearly_english(text: str, found: str) -> bool:
    """Whether English function words clearly outnumber Spanish ones (:data:`CLEAR_MARGIN`) and simplemma's English
    dictionary knows :data:`MOST` of the words, or, against ``found`` of the 28, they outnumber them at all and it
    knows every word (so a French, Dutch or Finnish text is not English, nor a short Danish one)."""
    margin = _function_word_margin(text)
    if margin >= 0 or (margin > -CLEAR_MARGIN and found not in SUPPORTED):
        return False
    return _known_english(text) >= (MOST if margin <= -CLEAR_MARGIN else ALL)


def _open_set(text: str, scored: _Scored) -> str:
    """The n-gram model's best language of the 28 where it beats every other language the model knows by
    :data:`SURE_MARGIN` (checked by :func:`_one_of_the_28`); else CLD3's language where it is sure of one outside
    the 28, else the model's best language outside them (``und`` where the model knows none of the text's letters
    and CLD3 is unsure). ``scored``: the model's reading of ``text``."""
    if not scored.n_grams:
        return _cld3_sure_of_another(text) or UNDETERMINED
    model = ngram_model()
    if scored.scores[scored.inside] - scored.scores[scored.outside] < SURE_MARGIN:
        return _cld3_sure_of_another(text) or model.tags[scored.outside]
    return _one_of_the_28(text, model.tags[scored.inside], scored.scores, model)


def _cld3_sure_of_another(text: str) -> str | None:
    """CLD3's language where it is at least :data:`SURE` of one outside the 28, else None."""
    guess, probability = cld3(text)
    return guess if probability >= SURE and guess not in SUPPORTED and guess != UNDETERMINED else None


def _one_of_the_28(text: str, candidate: str, scores: np.ndarray, model: NgramModel) -> str:
    """``candidate``, but English where the model says Nigerian Pidgin in a text without one of Pidgin's marker
    words (:attr:`NgramModel.pidgin_words`: Pidgin is English-based, and without them
    ordinary English posts can read as the Pidgin tweets the model learnt from), and the language :data:`IN_DOUBT`
    names where the model prefers ``candidate`` to it by less than the margin there."""
    if candidate == "pcm" and not model.pidgin_words.intersection(words(text)):
        return "en"
    if candidate in IN_DOUBT:
        fallback, margin = IN_DOUBT[candidate]
        if scores[model.tags.index(candidate)] - scores[model.tags.index(fallback)] < margin:
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
    """The share of the text's words simplemma's English dictionary knows. simplemma reads the dictionary on the
    first call (0.7 s) and keeps it for the process (one dictionary factory shared by all its callers); only texts
    the cheaper rules leave open get here (:func:`_clearly_english`, :data:`ENGLISH_KEEPS`)."""
    import simplemma

    return dict(simplemma.langdetect(text, lang=("en",))).get("en", 0.0)


def _function_word_margin(text: str) -> int:
    """Spanish minus English evidence: function words, and Spanish letters counted twice."""
    lowered = text.lower()
    found = _WORD.findall(lowered)
    spanish = sum(w in _SPANISH_WORDS for w in found) + 2 * len(_SPANISH_LETTERS.findall(lowered))
    return spanish - sum(w in _ENGLISH_WORDS for w in found)
