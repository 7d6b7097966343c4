"""UA-CBT story analysis: sentences, the context/challenge split, and every word's reading, gap kind and counts.

Eval-UA-tion 1.0 (Hamotskyi et al. 2024), section 3.1. A story is split into sentences; the first 65 % are the
*context*, the rest the *challenge* segment (3.1.2). Each word gets one reading (picked with the rules of
:mod:`affectlab.uatasks.ukr_morphology`) and, where it can be a gap, one of three kinds (3.1.3), from pymorphy3 alone
(the authors tagged with a spaCy model; none is available offline):

* NAMED_ENTITY: nouns that are proper names (``Name``/``Surn``/``Patr``/``Geox``) or animate (``anim``). Animacy
  is decided per lemma: the Ukrainian dictionary lists many animals (``лев``, ``ластівка``) under both animacies, so
  a lemma with any animate reading counts as animate, as the authors' own clean-up also does.
* COMMON_NOUN: the other (inanimate) nouns.
* VERB: finite verbs (past, present, future, imperative) and infinitives, except the copula ``бути``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from affectlab.errors import InputError
from affectlab.uatasks.ukr_morphology import (
    UKRAINIAN_WORD,
    is_proper,
    parse_word,
    plausible_readings,
    rank_readings,
    tag_features,
)

TASK = "ua-cbt"
NAMED_ENTITY, COMMON_NOUN, VERB = "NAMED_ENTITY", "COMMON_NOUN", "VERB"
KINDS = (NAMED_ENTITY, COMMON_NOUN, VERB)
QUESTION_SHARE = 0.35  # 3.1.2: 65 % context, 35 % challenge

_SKIP_VERBS = frozenset({"бути"})  # the copula/auxiliary carries no story information
_SENTENCE_END = re.compile(r"[.!?…]+[»\"”)\]]*\s+|\n\s*")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of ``text``: a sentence ends at ``.!?…`` (and closing quotes) followed by
    space and anything but a lower-case letter, or at a line break. Abbreviations are not handled; stories rarely have
    them."""
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        # a lower-case word after the punctuation means the sentence goes on ("Тихо!" - сказав він)
        if "\n" in match.group() or not text[match.end() : match.end() + 1].islower():
            spans.append((start, match.end()))
            start = match.end()
    spans.append((start, len(text)))
    return [_strip_span(text, s, e) for s, e in spans if text[s:e].strip()]


def _strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    segment = text[start:end]
    return start + len(segment) - len(segment.lstrip()), start + len(segment.rstrip())


def split_context_challenge(n_sentences: int, question_share: float = QUESTION_SHARE) -> int:
    """Number of context sentences: 65 % of the story, at least one sentence on each side (3.1.2)."""
    if n_sentences < 2:
        raise InputError(f"it has {n_sentences} sentence(s), UA-CBT needs at least 2 (context and challenge)")
    n_question = min(max(round(n_sentences * question_share), 1), n_sentences - 1)
    return n_sentences - n_question


@dataclass(frozen=True)
class StoryToken:
    """One word of the story with the reading picked for it; ``kind`` is None for words that cannot be gaps."""

    text: str
    start: int
    end: int
    sentence: int
    parse: Any
    kind: str | None

    @property
    def lemma(self) -> str:
        return self.parse.normal_form if self.parse is not None else self.text.lower()


@dataclass
class AnalysedStory:
    """A story analysed once: sentence spans, the number of context sentences, tokens and lemma statistics."""

    text: str
    sentences: list[tuple[int, int]]
    n_context: int
    tokens: list[StoryToken]
    counts: Counter[tuple[str, str]] = field(default_factory=Counter)  # (kind, lemma) -> mentions in the story
    first_seen: dict[tuple[str, str], int] = field(default_factory=dict)  # (kind, lemma) -> first token index
    proper: set[str] = field(default_factory=set)  # lemmas read as proper names somewhere in the story

    def ranked_lemmas(self, kind: str) -> list[str]:
        """Lemmas of ``kind``, most frequent in the whole story first, ties by first mention (3.1.3)."""
        keys = [key for key in self.counts if key[0] == kind]
        return [lemma for _, lemma in sorted(keys, key=lambda key: (-self.counts[key], self.first_seen[key]))]


Word = tuple[str, int, int, int]  # text, start, end, sentence index


def _words(text: str, sentences: list[tuple[int, int]]) -> list[Word]:
    return [
        (m.group(), m.start(), m.end(), index)
        for index, (start, end) in enumerate(sentences)
        for m in UKRAINIAN_WORD.finditer(text, start, end)
    ]


def _proper_lemmas(words: list[Word]) -> set[str]:
    """Lemmas written with a capital inside a sentence: the names of the story's characters."""
    found: set[str] = set()
    for i, (word, _start, _end, sentence) in enumerate(words):
        if word[0].isupper() and i > 0 and words[i - 1][3] == sentence:
            found |= {p.normal_form for p in parse_word(word) if p.tag.POS == "NOUN"}
    return found


def _kind(parse: Any, animate: bool) -> str | None:
    """The UA-CBT gap kind of a reading (3.1.3): NAMED_ENTITY, COMMON_NOUN, VERB or None."""
    if parse.tag.POS == "NOUN" and parse.tag.case:
        return NAMED_ENTITY if animate or is_proper(parse) else COMMON_NOUN
    verb_form = tag_features(parse.tag).get("form") if parse.tag.POS == "VERB" else None
    if verb_form in ("infn", "impr", "past", "pres", "futr") and parse.normal_form not in _SKIP_VERBS:
        return VERB
    return None


def _token_readings(text: str, words: list[Word]) -> list[list[Any]]:
    """The plausible readings of every word, best first, using the word before it when nothing but spaces
    separates them and the whole story's lemmas."""
    proper = _proper_lemmas(words)
    out = []
    for i, (word, start, _end, sentence) in enumerate(words):
        initial = i == 0 or words[i - 1][3] != sentence
        adjacent = not initial and not text[words[i - 1][2] : start].strip()
        out.append(plausible_readings(word, words[i - 1][0] if adjacent else None, initial, proper))
    support = Counter(key for parses in out for key in {(p.normal_form, p.tag.POS) for p in parses})
    return [rank_readings(word, parses, support) for (word, *_), parses in zip(words, out, strict=True)]


def _animate_lemmas(words: list[Word], readings: list[list[Any]]) -> set[str]:
    """Noun lemmas with an animate common-noun reading anywhere in the dictionary for any of their forms in the
    story. Animacy belongs to the lemma, and the dictionary often lists an animal both ways, sometimes animate only
    in entries without a case (``ластівка``), so one animate reading is enough (3.1.3)."""
    found = set()
    for (word, *_), parses in zip(words, readings, strict=True):
        if parses and parses[0].tag.POS == "NOUN":
            lemma = parses[0].normal_form
            if any(p.normal_form == lemma and "anim" in p.tag and not is_proper(p) for p in parse_word(word)):
                found.add(lemma)
    return found


def analyse_story(text: str) -> AnalysedStory:
    """Sentences, the context/challenge split (3.1.2), and every word's reading and gap kind with lemma counts."""
    sentences = split_sentences(text)
    story = AnalysedStory(text, sentences, split_context_challenge(len(sentences)), [])
    words = _words(text, sentences)
    readings = _token_readings(text, words)
    animate = _animate_lemmas(words, readings)
    for index, ((word, start, end, sentence), parses) in enumerate(zip(words, readings, strict=True)):
        parse = parses[0] if parses else None
        kind = _kind(parse, parse.normal_form in animate) if parse is not None else None
        story.tokens.append(StoryToken(word, start, end, sentence, parse, kind))
        if kind is not None and parse is not None:
            story.counts[(kind, parse.normal_form)] += 1
            story.first_seen.setdefault((kind, parse.normal_form), index)
            if is_proper(parse):
                story.proper.add(parse.normal_form)
    return story
