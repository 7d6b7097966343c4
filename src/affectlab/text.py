"""Texts: the check every text a user passes in goes through, and the normalisation shared by the n-gram models
(user and URL masks, whitespace, and the word pattern that keeps emoji, emoticons and punctuation runs ("!!!",
":)") as tokens, since they carry much of the emotion in short texts)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from affectlab.errors import InputError

_URL = re.compile(r"https?://\S+|www\.\S+")
_USER = re.compile(r"(?<!\w)@\w+")
_SPACE = re.compile(r"\s+")

WORD_PATTERN = r"(?u)\b\w+\b|[^\w\s]+"
ENCODER_MAX_CHARS = 2000
"""Texts are cut to this many characters before a neural encoder reads them (e5 reads at most 512 tokens, so the
cut loses little and keeps a 100,000-character text from costing seconds); n-gram features read all of a text."""
"""Tokens: runs of word characters, and runs of other non-space characters (punctuation, emoticons, emoji)."""


def normalise(text: str) -> str:
    """Mask URLs and @user mentions and collapse whitespace; case is left to the vectoriser."""
    text = _URL.sub(" http ", text)
    text = _USER.sub(" @user ", text)
    return _SPACE.sub(" ", text).strip()


def check_texts(texts: Sequence[str]) -> None:
    """Refuse empty or whitespace-only texts, naming the first by its position (1-based)."""
    for number, text in enumerate(texts, start=1):
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"text {number} is empty")
