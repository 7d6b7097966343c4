"""LMentry-static-UA (LMES) instance builders: one instance of each of the six tasks from its inputs.

Eval-UA-tion 1.0 (Hamotskyi et al. 2024), section 3.2. Each builder takes one input (a word and a position, a
sentence and a position, a pair of words, a list of words and a category) and one template, and records the
variant (``template_n``, ``kind``, ``reversed``, ``needle``) and the word metadata in ``metadata`` as the published
files do. LOW/WIS templates carry a capitalised numeral that is inflected to the asked position (section 3.2.5,
:mod:`affectlab.uatasks.numerals`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from affectlab.errors import InputError
from affectlab.uatasks.instances import MCInstance
from affectlab.uatasks.lmes_resources import LMESTemplate
from affectlab.uatasks.numerals import LAST, fill_numerals

YES_NO = ("так", "ні")
"""CATS-BIN options, as the paper's prompts expect them (section 4.1)."""

UKRAINIAN_ALPHABET = "абвгґдеєжзиіїйклмнопрстуфхцчшщьюя"
NEEDLE_STEP = 4
"""Positions asked in LOW/WIS: 1, 5, 9, ... before the last one, then "last" (the published needles)."""

_APOSTROPHES = "'’ʼ"
_TOKEN = re.compile(rf"\w+(?:[{_APOSTROPHES}]\w+)*|\.\.\.|[^\w\s]")


def sentence_tokens(sentence: str) -> list[str]:
    """Words and punctuation marks of ``sentence``; apostrophes stay inside words (``любов'ю``).

    The authors counted spaCy tokens: ``len_haystack`` includes punctuation, while the n-th word skips it (the
    published WIS answers); this splitter reproduces both on the published sentences.
    """
    return _TOKEN.findall(sentence)


def sentence_words(sentence: str) -> list[str]:
    """The words of ``sentence`` in order, punctuation left out (WIS counts words, section 3.2.1)."""
    return [token for token in sentence_tokens(sentence) if token[0].isalnum() or token[0] == "_"]


def needles(length: int) -> list[int]:
    """Positions asked about a haystack of ``length`` letters/words: every fourth from the first, short of the last
    one, then -1 ("last"), as in the published LOW/WIS instances."""
    return [*range(1, length, NEEDLE_STEP), LAST]


def _pick(items: Sequence[str], needle: int) -> str:
    return items[-1] if needle == LAST else items[needle - 1]


def _fill(template: LMESTemplate, needle: int, **fields: str) -> str | None:
    """The template with its numeral inflected to ``needle`` and the placeholders filled; ``None`` if the
    numeral cannot express ``needle`` (a cardinal for "last")."""
    text = fill_numerals(template.text, needle)
    return None if text is None else text.format(**fields)


def low_instance(
    word: str,
    needle: int,
    template: LMESTemplate,
    word_meta: Mapping[str, Any] | None = None,
    few_shot: bool = False,
) -> MCInstance | None:
    """LOW: the ``needle``-th letter of ``word`` (section 3.2.1), options the word's distinct letters."""
    if needle != LAST and not 1 <= needle <= len(word):
        raise InputError(f"word {word!r} has no letter {needle}")
    meta = {"word": word, "word_length": _length_class(word), **(word_meta or {})}
    return _position_instance("lmes-low", word, needle, template, few_shot, meta, WORD=word)


def _length_class(word: str) -> str:
    """The authors' coarse word length (short up to 3 letters, mid up to 6, long beyond)."""
    return "short" if len(word) <= 3 else "mid" if len(word) <= 6 else "long"


def wis_instance(sentence: str, needle: int, template: LMESTemplate, few_shot: bool = False) -> MCInstance | None:
    """WIS: the ``needle``-th word of ``sentence`` (section 3.2.1), options the sentence's distinct words."""
    words = sentence_words(sentence)
    if not words or (needle != LAST and not 1 <= needle <= len(words)):
        raise InputError(f"sentence {sentence!r} has no word {needle}")
    meta = {"len_haystack": len(sentence_tokens(sentence)), "sentence": sentence}
    return _position_instance("lmes-wis", words, needle, template, few_shot, meta, SENT=sentence)


def _position_instance(
    task: str,
    haystack: Sequence[str],
    needle: int,
    template: LMESTemplate,
    few_shot: bool,
    meta: Mapping[str, Any],
    **fields: str,
) -> MCInstance | None:
    """A LOW/WIS question: which item of ``haystack`` stands at ``needle``, with its distinct items as options
    and ``meta`` after the template's metadata and the needle; ``None`` if the template cannot ask ``needle``."""
    question = _fill(template, needle, **fields)
    if question is None:
        return None
    options = tuple(dict.fromkeys(haystack))
    return MCInstance(
        task,
        question,
        options,
        options.index(_pick(haystack, needle)),
        template_id=template.id,
        few_shot=few_shot,
        metadata={**template.meta, "needle": needle, **meta},
    )


def alphabet_key(word: str) -> tuple[int, ...]:
    """Sort key in Ukrainian alphabetical order (ґ after г, є after е, і and ї after и); apostrophes and hyphens
    are skipped, as the authors' ``uk_UA`` collation does."""
    return tuple(
        UKRAINIAN_ALPHABET.index(char) if char in UKRAINIAN_ALPHABET else len(UKRAINIAN_ALPHABET) + ord(char)
        for char in word.lower()
        if char not in _APOSTROPHES + "-"
    )


def _longer_or_shorter(first: str, second: str, kind: str) -> str | None:
    """WordLength gold: the longer (``more``) or shorter (``less``) word; ``None`` for equal lengths."""
    if len(first) == len(second):
        return None
    longer = first if len(first) > len(second) else second
    return longer if kind == "more" else (second if longer == first else first)


def _earlier_or_later(first: str, second: str, kind: str) -> str | None:
    """WordAlpha gold: the word closer to the end (``more``) or the beginning (``less``) of the alphabet."""
    if alphabet_key(first) == alphabet_key(second):
        return None
    ordered = sorted((first, second), key=alphabet_key)
    return ordered[1] if kind == "more" else ordered[0]


_COMPARE_GOLD: dict[str, Callable[[str, str, str], str | None]] = {
    "lmes-wordlength": _longer_or_shorter,
    "lmes-wordalpha": _earlier_or_later,
}

COMPARE_TASKS = frozenset(_COMPARE_GOLD)
"""The two comparison tasks: which of two words is longer/shorter (WordLength) or later/earlier (WordAlpha)."""


def compare_instance(
    task: str,
    pair: tuple[str, str],
    template: LMESTemplate,
    reversed_: bool,
    words: Mapping[str, Mapping[str, Any]] | None = None,
    few_shot: bool = False,
) -> MCInstance | None:
    """WordLength/WordAlpha: which of two words is longer/shorter or later/earlier (``kind`` of the template).

    ``reversed_`` asks about the same pair in swapped order (section 3.2.3); ``None`` if the words tie.
    """
    gold = _COMPARE_GOLD[task](*pair, str(template.kind))
    if gold is None:
        return None
    first, second = pair[::-1] if reversed_ else pair
    meta: dict[str, Any] = {**template.meta, "option_0": first, "option_1": second, "reversed": reversed_}
    if task == "lmes-wordalpha":
        meta["num_shared_characters"] = _shared_prefix(first, second)
    meta["t1_meta"], meta["t2_meta"] = (dict((words or {}).get(word, {})) for word in (first, second))
    question = template.text.format(t1=first, t2=second)
    return MCInstance(
        task,
        question,
        (first, second),
        (first, second).index(gold),
        template_id=template.id,
        few_shot=few_shot,
        metadata=meta,
    )


def _shared_prefix(first: str, second: str) -> int:
    """How many leading letters two words share (case-insensitive), a difficulty note the authors record."""
    count = 0
    for a, b in zip(first.lower(), second.lower(), strict=False):
        if a != b:
            break
        count += 1
    return count


def cats_instance(
    task: str,
    words: Sequence[str],
    cat_name: str,
    template: LMESTemplate,
    categories: Mapping[str, Sequence[str]],
    few_shot: bool = False,
) -> MCInstance:
    """CATS-BIN (do all ``words`` belong to ``cat_name``? так/ні) or CATS-MC (which word is the odd one out).

    The gold comes from the category lists, not from how the words were drawn (section 3.2.1).
    """
    if cat_name not in categories:
        raise InputError(f"unknown LMES category {cat_name!r} (known: {', '.join(categories)})")
    outsiders = list(dict.fromkeys(word for word in words if word not in categories[cat_name]))
    question = template.text.format(words_list=", ".join(words), cat_name=cat_name)
    meta = {**template.meta, "all_options": list(words), "cat_name_main": cat_name}
    meta["main_cat_words"] = [word for word in words if word not in outsiders]
    if len(outsiders) == 1:
        meta["other_word"] = outsiders[0]
        meta["cat_name_other"] = next((name for name, ws in categories.items() if outsiders[0] in ws), None)
    options: tuple[str, ...]
    if task == "lmes-cats-bin":
        options, answer = YES_NO, 1 if outsiders else 0
    else:
        if len(outsiders) != 1:
            raise InputError(f"CATS-MC needs exactly one word outside {cat_name!r}, got {outsiders or 'none'}")
        options = tuple(dict.fromkeys(words))
        answer = options.index(outsiders[0])
    return MCInstance(task, question, options, answer, template_id=template.id, few_shot=few_shot, metadata=meta)
