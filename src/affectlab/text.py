"""Texts: the check every text a user passes in goes through, and the normalisation shared by the n-gram models
(user and URL masks, whitespace, and the word pattern that keeps emoji, emoticons and punctuation runs ("!!!",
":)") as tokens, since they carry much of the emotion in short texts)."""

from __future__ import annotations

import numbers
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import cast

from affectlab.errors import ArgumentTypeError, InputError, TextTypeError
from affectlab.handles import MENTION as _USER
from affectlab.handles import URL as _URL

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
        raise TextTypeError(f"texts must be {ACCEPTED}, not {type_name(texts)}")
    else:
        items = list(texts)
    for number, item in enumerate(items, start=1):
        if isinstance(item, bytes | bytearray):
            raise TextTypeError(f"text {number} is bytes, not str: decode it first, e.g. data.decode('utf-8')")
        if not isinstance(item, str):
            raise TextTypeError(f"text {number} is {type_name(item)}, not str (texts must be {ACCEPTED})")
    strings = cast(list[str], items)
    check_texts(strings)
    return strings


def type_name(value: object) -> str:
    """How a wrong argument's type is named in an error: ``None``, ``int``, ``list``."""
    return "None" if value is None else type(value).__name__


_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Zs", "Zl", "Zp"})
"""Unicode categories that carry no visible text: controls, format characters (zero-width space and joiners,
byte-order marks, direction marks), surrogates and separators. Unassigned code points are not among them: a newer
emoji than this Python's Unicode tables is text."""


def text_problem(text: object) -> str:
    """Why ``text`` cannot be scored, or "" when it can. The one check shared by ``affectlab.detect``, the command
    line, the service and every file scorer: missing, not a string, empty once whitespace, zero-width and control
    characters are removed, or holding a lone surrogate (what invalid UTF-8 on a command line becomes)."""
    if text is None or (isinstance(text, float) and text != text):  # NaN: a missing cell in a pandas frame
        return "missing text"
    if not isinstance(text, str):
        return f"text is a {type(text).__name__}, not a string"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (
            f"not valid Unicode text (a lone surrogate at character {exc.start + 1}, "
            "e.g. from bytes that are not UTF-8)"
        )
    if all(unicodedata.category(char) in _INVISIBLE for char in text):
        return "empty text" if not text.strip() else "empty text (only zero-width or control characters)"
    return ""


def check_texts(texts: Sequence[str]) -> None:
    """Refuse texts that cannot be scored (see :func:`text_problem`), naming the first by its position (1-based)."""
    for number, text in enumerate(texts, start=1):
        problem = text_problem(text)
        if problem.startswith("empty text"):  # "text 2 is empty", as the file scorers' "empty text" reads
            raise InputError(f"text {number} is empty{problem.removeprefix('empty text')}")
        if problem:
            raise InputError(f"text {number}: {problem}")


def as_context(context: object) -> list[str]:
    """Earlier dialogue turns as a list of ``str`` (None: no turns). One ``str`` is refused rather than read as a
    list of characters; a turn may be empty, but not hold a lone surrogate."""
    if context is None:
        return []
    if isinstance(context, str | bytes | bytearray | Mapping) or not isinstance(context, Iterable):
        hint = ": for one turn, write [turn]" if isinstance(context, str) else ""
        raise ArgumentTypeError(f"context must be a list of earlier turns (str), not {type_name(context)}{hint}")
    turns = list(context)
    for number, turn in enumerate(turns, start=1):
        if not isinstance(turn, str):
            raise ArgumentTypeError(f"context turn {number} is {type_name(turn)}, not str")
        problem = text_problem(turn)
        if problem and not problem.startswith("empty text"):
            raise InputError(f"context turn {number}: {problem}")
    return turns


def check_count(name: str, value: object, low: int = 1, high: int | None = None) -> int | None:
    """``value`` as a whole number in ``[low, high]``, or None; a string, a bool or a float is an
    :class:`~affectlab.errors.ArgumentTypeError`, a number out of range an :class:`~affectlab.errors.InputError`
    (as the command line's ``--top-k`` and the service's ``top_k`` refuse them)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):  # numpy integers too
        raise ArgumentTypeError(f"{name} must be a whole number, not {type_name(value)} {value!r}")
    number = int(value)
    if number < low or (high is not None and number > high):
        bounds = f"at least {low}" if high is None else f"from {low} to {high}"
        raise InputError(f"{name} must be {bounds}, got {number}")
    return number


_LEADING_MENTIONS = re.compile(r"^(?:@\w+[\s:,]*)+")
_SENTENCE_START = re.compile(r"(?:^|[.!?…]\s+)[^\w]*\w")
_CANONICAL_MIN_CASED = 6
_SHOUTED_SHARE = 0.8
_REPEATED_MIN_CHARS = 8
"""A text is read once when it is a unit of at least this many characters said again after a space (not "haha")."""
_REPEATED = re.compile(rf"(.{{{_REPEATED_MIN_CHARS},}}?)(?:\s+\1)+", re.DOTALL)
_REPEATS_UP_TO = 1000
"""Only a text this short is searched for a repetition of itself (a longer one is read sentence by sentence, where
a repeated sentence gets its sentence's answer anyway)."""


def _shouted(text: str) -> bool:
    """Whether ``text`` is written in capitals: at least :data:`_SHOUTED_SHARE` of its cased letters (6 or more)
    upper case. Most texts have too few capitals to be, which one pass of ``str.isupper`` in C tells first."""
    if sum(map(str.isupper, text)) < _SHOUTED_SHARE * _CANONICAL_MIN_CASED:
        return False
    cased = [c for c in text if c.lower() != c.upper()]
    return len(cased) >= _CANONICAL_MIN_CASED and sum(c.isupper() for c in cased) >= _SHOUTED_SHARE * len(cased)


def canonical_text(text: str) -> str:
    """The spelling of ``text`` that the default detector's encoder reads (issue 41), so that edits that keep a
    text's meaning keep its answer: links and the @mentions it opens with dropped, a text said twice (or more)
    read once, a text written in capitals (at least 80 % of 6 or more cased letters) read in sentence case (its
    other capitals, such as German nouns, are not recovered). Punctuation stays: a run of "!!!" carries emotion,
    and dropping a text's final marks cost 0.07-0.10 dev macro-F1 (en, uk); that edit is taught by data
    (:mod:`affectlab.build.augment`). A text that would be left empty is read as it is."""
    canonical = _URL.sub(" ", text)
    canonical = _SPACE.sub(" ", _LEADING_MENTIONS.sub("", canonical.strip())).strip()
    if len(canonical) <= _REPEATS_UP_TO:
        repeated = _REPEATED.fullmatch(canonical)
        canonical = repeated.group(1).strip() if repeated else canonical
    if _shouted(canonical):
        canonical = _SENTENCE_START.sub(lambda start: start.group(0).upper(), canonical.lower())
    return canonical or text
