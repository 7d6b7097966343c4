"""Masked span format (MASIVE section 4.1, Figure 1): every occurrence of a post's affective states becomes a T5
sentinel, numbered in order of appearance, and the target lists the sentinels with their words; trimming to the
model's length removes whole sentences without cutting a mask (App. D.1).

Sentences are split by a regular expression at ., !, ?, … and line breaks: the paper used nltk, whose Punkt models
are a separate download; the split only decides which sentences trimming may drop.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from affectlab.errors import InputError

N_SENTINELS = 100
"""T5 and mT5 tokenizers have ``<extra_id_0>`` ... ``<extra_id_99>``."""
SENTINEL = re.compile(r"<extra_id_(\d+)>")
SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
MAX_TOKENS = 512


def sentinel(i: int) -> str:
    """The ``i``-th T5 sentinel token."""
    return f"<extra_id_{i}>"


@dataclass(frozen=True)
class MaskedText:
    """A text with its states masked: ``masked`` has ``<extra_id_i>`` where ``terms[i]`` was (as written in the
    text, lowercased); ``target`` is the T5 target ``<extra_id_0> w0 <extra_id_1> w1 ... <extra_id_n>``."""

    masked: str
    terms: tuple[str, ...]

    @property
    def target(self) -> str:
        """The seq2seq target, closed by the next sentinel as in T5's span corruption."""
        spans = " ".join(f"{sentinel(i)} {term}" for i, term in enumerate(self.terms))
        return f"{spans} {sentinel(len(self.terms))}".strip()


def mask_states(text: str, states: Sequence[str]) -> MaskedText:
    """Mask every whole-word, case-insensitive occurrence of each state in ``text``."""
    words = sorted({s.lower() for s in states if s.strip()}, key=len, reverse=True)
    if not words:
        raise InputError("no affective states to mask")
    if SENTINEL.search(text):
        raise InputError("the text already contains T5 sentinels (<extra_id_N>)")
    pattern = re.compile(r"(?<![\w'’-])(" + "|".join(map(re.escape, words)) + r")(?![\w'’-])", re.IGNORECASE)
    terms: list[str] = []

    def replace(match: re.Match[str]) -> str:
        terms.append(match.group(1).lower())
        return sentinel(len(terms) - 1)

    masked = pattern.sub(replace, text)
    if not terms:
        raise InputError(f"none of the states ({', '.join(words)}) occurs in the text")
    if len(terms) > N_SENTINELS:
        raise InputError(f"the text has {len(terms)} masks; T5 has only {N_SENTINELS} sentinels")
    return MaskedText(masked, tuple(terms))


def count_masks(text: str) -> int:
    """How many sentinels a text has; they must be ``<extra_id_0>``, ``<extra_id_1>``, ... in order."""
    numbers = SENTINEL.findall(text)  # as written: "<extra_id_00>" or "<extra_id_٠>" is refused, not read as 0
    if numbers != [str(i) for i in range(len(numbers))]:
        raise InputError(f"sentinels must be numbered 0, 1, 2, ... in order (found {', '.join(numbers)})")
    if len(numbers) > N_SENTINELS:
        raise InputError(f"the text has {len(numbers)} masks; T5 has only {N_SENTINELS} sentinels")
    return len(numbers)


def split_sentences(text: str) -> list[str]:
    """Sentences (with their trailing space kept on the previous one, so joining gives the text back)."""
    parts, start = [], 0
    for match in SENTENCE_END.finditer(text):
        parts.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        parts.append(text[start:])
    return [part for part in parts if part]


def trim_to_length(text: str, count_tokens: Callable[[str], int], max_tokens: int = MAX_TOKENS) -> str:
    """Drop whole sentences until ``count_tokens(text) <= max_tokens``: from the end while the last has no mask,
    else from the beginning while the first has none (App. D.1); a text that cannot fit without losing a mask is
    returned as short as it got (the tokenizer truncates the rest)."""
    sentences = split_sentences(text)
    while len(sentences) > 1 and count_tokens("".join(sentences)) > max_tokens:
        if not SENTINEL.search(sentences[-1]):
            sentences.pop()
        elif not SENTINEL.search(sentences[0]):
            sentences.pop(0)
        else:
            break
    return "".join(sentences).strip()
