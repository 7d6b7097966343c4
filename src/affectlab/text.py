"""Texts: the check every text a user passes in goes through, and the normalisation shared by the n-gram models
(user and URL masks, whitespace, and the word pattern that keeps emoji, emoticons and punctuation runs ("!!!",
":)") as tokens, since they carry much of the emotion in short texts)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import cast

from affectlab.errors import InputError, TextTypeError

_URL = re.compile(r"https?://\S+|www\.\S+")
_USER = re.compile(r"(?<!\w)@\w+")
_SPACE = re.compile(r"\s+")

WORD_PATTERN = r"(?u)\b\w+\b|[^\w\s]+"
"""Tokens: runs of word characters, and runs of other non-space characters (punctuation, emoticons, emoji)."""
ENCODER_MAX_CHARS = 2000
"""Texts are cut to this many characters before a neural encoder reads them (e5 reads at most 512 tokens, so the
cut loses little and keeps a 100,000-character text from costing seconds); n-gram features read all of a text."""


def normalise(text: str) -> str:
    """Mask URLs and @user mentions and collapse whitespace; case is left to the vectoriser."""
    text = _URL.sub(" http ", text)
    text = _USER.sub(" @user ", text)
    return _SPACE.sub(" ", text).strip()


ACCEPTED = "a str or a list (or other iterable) of str"


def as_texts(texts: object) -> list[str]:
    """The texts a user passed to the Python API as a list: one ``str``, or an iterable of ``str``. Anything else
    is a :class:`~affectlab.errors.TextTypeError` (a ``TypeError``) that says what is accepted; an empty or
    whitespace-only text is an :class:`~affectlab.errors.InputError`."""
    if isinstance(texts, str):
        items: list[object] = [texts]
    elif isinstance(texts, bytes | bytearray):
        raise TextTypeError(f"texts must be {ACCEPTED}, not bytes: decode them first, e.g. data.decode('utf-8')")
    elif isinstance(texts, Mapping) or not isinstance(texts, Iterable):
        raise TextTypeError(f"texts must be {ACCEPTED}, not {_kind(texts)}")
    else:
        items = list(texts)
    for number, item in enumerate(items, start=1):
        if isinstance(item, bytes | bytearray):
            raise TextTypeError(f"text {number} is bytes, not str: decode it first, e.g. data.decode('utf-8')")
        if not isinstance(item, str):
            raise TextTypeError(f"text {number} is {_kind(item)}, not str (texts must be {ACCEPTED})")
    strings = cast(list[str], items)
    check_texts(strings)
    return strings


def _kind(value: object) -> str:
    return "None" if value is None else type(value).__name__


def check_texts(texts: Sequence[str]) -> None:
    """Refuse empty or whitespace-only texts, naming the first by its position (1-based)."""
    for number, text in enumerate(texts, start=1):
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"text {number} is empty")
