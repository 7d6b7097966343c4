"""Links and @mentions: the two kinds of token a social-media text carries that say nothing of its language or its
emotion, found by one pattern each (text normalisation and language identification read them the same way)."""

from __future__ import annotations

import re

URL = re.compile(r"https?://\S+|www\.\S+")
"""A link."""
MENTION = re.compile(r"(?<!\w)@\w+")
"""An @mention."""
_SPACE = re.compile(r"\s+")


def without_links_and_mentions(text: str) -> str:
    """``text`` with its links and @mentions taken out: what language identification reads (a handle or a URL
    says nothing of the language a text is written in)."""
    return _SPACE.sub(" ", MENTION.sub(" ", URL.sub(" ", text))).strip()
