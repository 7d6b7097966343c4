"""Reading label names out of a generative LLM's free-text answer (EmoBench-UA section 5.3, Appendix G).

The App. G prompts ask the model to "think step by step" and then answer with emotion names separated by commas,
so a reply may be a bare ``joy``, a paragraph of reasoning ending in ``Answer: joy, surprise``, a markdown list,
a Ukrainian ``Радісний.`` or a refusal. MASIVE (App. F.1) shows why the replies that give no label at all must be
counted rather than silently mapped: its models' invalid-answer rates differ by an order of magnitude and change
the ranking. :func:`parse_answer` therefore says whether a reply was valid.

Words are matched in English, Ukrainian and Spanish: every registered label space's label names and words
(:mod:`affectlab.labels`), the synonyms and inflected forms below, and else simplemma's lemma of the word. A word
for a label that the space lacks is mapped through the GoEmotions -> Ekman -> EmoContext groupings
(``annoyance`` is ``anger`` in the Ekman space, ``joy`` is ``happy`` in EmoContext's).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from affectlab.labels import (
    GOEMOTIONS_TO_EKMAN,
    GOEMOTIONS_TO_SENTIMENT,
    LABEL_SPACES,
    LabelSpace,
)
from affectlab.loaded_once import loaded_once

NONE = "<none>"
"""The concept of "no emotion", resolved to whatever a space calls its none label."""

SYNONYMS: dict[str, tuple[str, ...]] = {
    "joy": (
        "happiness", "happy", "joyful", "glad", "delight", "cheerful",
        "радість", "радості", "радістю", "радісний", "радісна", "радісне", "радісно", "щастя", "щасливий", "щаслива",
        "alegría", "alegre", "felicidad", "feliz", "contento", "contenta", "gozo",
    ),
    "sadness": (
        "sad", "sorrow", "unhappy", "unhappiness",
        "сум", "суму", "смуток", "смутку", "сумний", "сумна", "сумне", "сумно", "печаль", "журба", "туга",
        "tristeza", "triste", "pena", "melancolía",
    ),
    "anger": (
        "angry", "rage", "fury", "furious", "mad",
        "злість", "злості", "злістю", "гнів", "гніву", "злий", "зла", "лють", "сердитий", "сердита", "розлючений",
        "ira", "enojo", "enfado", "enojado", "enojada", "enfadado", "enfadada", "rabia", "furia", "cólera",
    ),
    "disgust": (
        "disgusted", "disgusting", "revulsion",
        "огида", "огиди", "огидою", "огидно", "огидний", "відраза", "відрази", "гидота",
        "asco", "asqueado", "asqueada", "repugnancia", "repulsión",
    ),
    "surprise": (
        "surprised", "surprising", "astonishment", "amazement", "shock", "shocked",
        "здивування", "здивований", "здивована", "подив", "подиву", "несподіванка",
        "sorpresa", "sorprendido", "sorprendida", "asombro",
    ),
    "fear": (
        "afraid", "scared", "fearful", "fright", "terror",
        "страх", "страху", "страхом", "боязнь", "переляк", "наляканий", "налякана",
        "miedo", "temor", "asustado", "asustada",
    ),
    "nervousness": ("anxiety", "anxious", "тривога", "тривоги", "тривожність", "ansiedad"),
    NONE: (
        "neutral", "none", "neutrality", "no emotion", "no emotions",
        "нейтральна", "нейтральний", "нейтральне", "нейтрально", "нейтральність", "немає", "жодної", "без емоцій",
        "ninguna", "ninguno", "neutra", "neutro", "sin emoción", "sin emociones",
    ),
}  # fmt: skip
"""Synonyms and inflected forms per concept (a label name of a registered space, or :data:`NONE`)."""

EMOCONTEXT_TO_EKMAN = {"happy": "joy", "sad": "sadness", "angry": "anger", "others": "none"}
"""EmoContext's labels as Ekman ones (SemEval-2019 Task 3 section 3 defines them by these emotions)."""
EKMAN_TO_EMOCONTEXT = {ekman: label for label, ekman in EMOCONTEXT_TO_EKMAN.items()}

ANSWER_MARKER = re.compile(r"\b(?:answer|відповідь|respuesta)(?:\s+final)?[ \t*_]*[:：][ \t*_]*", re.IGNORECASE)
THINKING = re.compile(r"<think>.*?(?:</think>|$)", re.IGNORECASE | re.DOTALL)
"""Reasoning models (EmoBench-UA tried DeepSeek-R1 distills) think inside ``<think>``; an unclosed one runs out."""
LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
SEPARATOR = re.compile(r"[,;/|+&\n]|\b(?:and|or|і|й|та|або|y|e|o)\b", re.IGNORECASE)
WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
NEGATIONS = frozenset({"not", "no", "never", "не", "ні", "без", "sin", "nunca", "ni"})
ACCENTS = str.maketrans("áéíóúü", "aeiouu")


def _key(word: str) -> str:
    """How a word is looked up: lower case, typographic apostrophe as ASCII, Spanish accents dropped (models
    often write ``alegria``)."""
    return word.lower().replace("’", "'").translate(ACCENTS)


@loaded_once
def _concepts() -> dict[str, str]:
    """Every known word -> its concept: the registered spaces' label names and their words in each language they
    give them in, then :data:`SYNONYMS` (built once per process)."""
    table: dict[str, str] = {}
    for _, space in LABEL_SPACES.items():
        for label in space.labels:
            concept = NONE if label == space.none_label else label
            table.setdefault(_key(label), concept)
            for lang in space.words:
                table.setdefault(_key(space.word(label, lang)), concept)
    for concept, words in SYNONYMS.items():
        for word in words:
            table.setdefault(_key(word), concept)
    return table


def _resolve(concept: str, space: LabelSpace) -> str | None:
    """The label of ``space`` that ``concept`` means, through the GoEmotions/Ekman/EmoContext groupings."""
    if concept in space.labels and concept != space.none_label:
        return concept
    ekman = GOEMOTIONS_TO_EKMAN.get(concept) or EMOCONTEXT_TO_EKMAN.get(concept) or concept
    if concept == NONE or ekman == "none":
        return space.none_label
    for candidate in (ekman, EKMAN_TO_EMOCONTEXT.get(ekman), GOEMOTIONS_TO_SENTIMENT.get(concept)):
        if candidate in space.labels:
            return candidate
    return None


class AnswerParser:
    """Parses replies for one label space; ``lang`` (the prompt's language) decides first whose words win when
    the space's own words in two languages collide."""

    def __init__(self, space: LabelSpace, lang: str = "en") -> None:
        self.space = space
        self.lang = lang
        self._own: dict[str, str] = {}
        for language in (lang, *space.words):
            for label in space.labels:
                self._own.setdefault(_key(space.word(label, language)), label)
        for label in space.labels:
            self._own.setdefault(_key(label), label)

    def parse(self, reply: str) -> tuple[list[str], bool]:
        """The labels ``reply`` gives (first mention first) and whether it gave any. An invalid reply predicts the
        none label where the space has one, else nothing. A single-label space keeps the first label named; an
        exclusive none label is dropped beside an emotion."""
        reply = THINKING.sub(" ", reply)
        labels: list[str] = []
        for segment in _answer_segments(reply):
            labels = list(dict.fromkeys(self._labels_in(segment)))
            if labels:
                break
        if not labels:
            return ([self.space.none_label] if self.space.none_label else []), False
        if self.space.none_label in labels and len(labels) > 1 and self.space.none_exclusive:
            labels.remove(self.space.none_label)
        return (labels[:1] if not self.space.multi_label else labels), True

    def _labels_in(self, segment: str) -> Iterable[str]:
        for item in SEPARATOR.split(segment):
            words = [_key(w) for w in WORD.findall(item)]
            whole = " ".join(words)
            if whole in self._own:
                yield self._own[whole]
                continue
            yield from self._scan(words)

    def _scan(self, words: list[str]) -> Iterable[str]:
        """Labels named inside a phrase (``the emotion is joy``): word pairs first (``no emotion``), then words,
        skipping a word right after a negation (``not angry``)."""
        i = 0
        while i < len(words):
            pair = " ".join(words[i : i + 2]) if i + 1 < len(words) else None
            if pair is not None and (label := self._lookup(pair)) is not None:
                yield label
                i += 2
                continue
            if not (i > 0 and words[i - 1] in NEGATIONS) and (label := self._lookup(words[i])) is not None:
                yield label
            i += 1

    def _lookup(self, word: str) -> str | None:
        if word in self._own:
            return self._own[word]
        concept = _concepts().get(word) or _concepts().get(_lemma(word))
        return None if concept is None else _resolve(concept, self.space)


@lru_cache(maxsize=65536)
def _lemma(word: str) -> str:
    """simplemma's lemma (Ukrainian for Cyrillic words, else Spanish then English): ``вдячності`` -> ``вдячність``."""
    import simplemma

    if " " in word:
        return word
    langs = ("uk",) if re.search("[а-яіїєґ]", word) else ("es", "en")
    return _key(simplemma.lemmatize(word, lang=langs))


def _answer_segments(reply: str) -> list[str]:
    """Where the answer is, most likely first: the line after the last ``Answer:``/``Відповідь:``/``Respuesta:``
    (or the list under it); without one, the last line (the prompts ask to reason first), or the list that ends
    the reply, then the first line (a model that answers and then explains)."""
    markers = list(ANSWER_MARKER.finditer(reply))
    if markers and reply[markers[-1].end() :].strip():
        first, _, rest = reply[markers[-1].end() :].lstrip(" \t").partition("\n")
        return [first if first.strip() else _leading_block(rest)]
    if markers:  # an answer label with nothing after it: the answer, if any, came before it
        reply = reply[: markers[-1].start()]
    lines = [line for line in reply.splitlines() if line.strip()]
    if not lines:
        return []
    block = [lines[-1]]
    while LIST_ITEM.match(block[0]) and len(block) < len(lines) and LIST_ITEM.match(lines[-len(block) - 1]):
        block.insert(0, lines[-len(block) - 1])
    return ["\n".join(block), lines[0]]


def _leading_block(text: str) -> str:
    """The first paragraph of ``text`` (an answer given as a list on the lines after its marker)."""
    return text.strip().split("\n\n")[0]


def parse_answer(reply: str, label_space: LabelSpace, lang: str = "en") -> tuple[list[str], bool]:
    """The labels of ``label_space`` that an LLM's ``reply`` gives, and whether it gave any (see
    :class:`AnswerParser`)."""
    return AnswerParser(label_space, lang).parse(reply)
