"""The candidate lexicons of affective states the open-vocabulary ranker reads at run time (MASIVE's open-ended
states, English and Spanish): the lists shipped in ``lexicon_data/{en,es}.txt`` (:func:`default_states`) and the
reader of a user's ``--states FILE`` (:func:`read_states_file`, :func:`state_problem`). How the shipped lists are
built (``affectlab asi lexicon``) is :mod:`affectlab.openstates.lexicon_build`, which nothing at run time imports.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from affectlab.errors import InputError
from affectlab.io.tables import check_readable_file
from affectlab.loaded_once import loaded_once
from affectlab.openstates.languages import OPEN_LANGS, OPEN_LANGUAGES

LEXICON_DIR = Path(__file__).parent / "lexicon_data"
"""The shipped lists, ``<lang>.txt`` (rebuilt by ``affectlab asi lexicon --data-dir DIR``)."""

MAX_STATES = 20_000
"""A ``--states`` file holds at most this many states (the ranker embeds every one), each of at most
:data:`MAX_WORDS` words and :data:`MAX_CHARS` characters, in at most :data:`MAX_FILE_BYTES`."""
MAX_WORDS = 4
MAX_CHARS = 40
MAX_FILE_BYTES = 16 * 1024 * 1024
MASK_TOKEN = re.compile(r"<extra_id_\d+>|<mask>|___")
"""T5 sentinels, XLM-R's mask and blanks: a states file holding them is a masked text, not states."""
TABLE_CELLS = re.compile(r"[\t,;|]|\s\d[\d.,]*$")
"""A table's row: cells split by a tab, comma, semicolon or bar, or a number after the state ("happy 0.5")."""


def default_states(lang: str) -> list[str]:
    """The shipped candidate lexicon of ``lang`` (``en`` or ``es``), sorted; a new list on every call."""
    if lang not in OPEN_LANGUAGES:
        raise InputError(f"no lexicon of affective states for language {lang!r} (known: {', '.join(OPEN_LANGS)})")
    return list(shipped_states(lang))


@loaded_once
def shipped_states(lang: str) -> tuple[str, ...]:
    """The shipped list of ``lang``, read once per process (``shipped_states.clear()`` after rewriting it)."""
    return tuple(read_states_file(LEXICON_DIR / f"{lang}.txt"))


def read_states_file(path: str | os.PathLike[str]) -> list[str]:
    """The states of a ``--states FILE``: one a line, UTF-8; blank lines and ``#`` comments skipped; each state
    stripped, NFC-normalised and lowercased; repeats dropped (the first kept, in file order). A file that cannot
    be a list of states (binary, empty, a masked text, a table, over :data:`MAX_STATES` states) is one
    :class:`~affectlab.errors.InputError` line naming the file and line; a missing file a ``DataNotFoundError``."""
    path = Path(path)
    check_readable_file(path)
    if path.stat().st_size > MAX_FILE_BYTES:
        raise InputError(f"{str(path)!r} is over {MAX_FILE_BYTES // 2**20} MiB: not a list of states")
    states: dict[str, None] = {}
    for number, line in enumerate(_utf8_text(path).split("\n"), start=1):
        if not line.strip() or line.strip().startswith("#"):
            continue
        states.setdefault(checked_state(line, f"{str(path)!r} line {number}"), None)
        if len(states) > MAX_STATES:
            raise InputError(f"{str(path)!r} holds more than {MAX_STATES:,} states (line {number})")
    if not states:
        raise InputError(f"{str(path)!r} holds no states (only blank lines and # comments)")
    return list(states)


def _utf8_text(path: Path) -> str:
    data = path.read_bytes()
    if b"\0" in data:
        raise InputError(f"{str(path)!r} is not UTF-8 text (it holds NUL bytes: binary, or UTF-16?)")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"{str(path)!r} line {line} is not UTF-8 text (bad byte at offset {exc.start})") from None


def check_states(states: object) -> list[str]:
    """The candidate states a caller gives (``detect_open(states=...)``, the service's ``states``; a ``--states``
    file's lines go through :func:`checked_state` one by one), as the ranker reads them: a list or tuple of 1 to
    :data:`MAX_STATES` texts, each as :func:`checked_state` makes it, repeats dropped (the first kept). Anything else
    is one :class:`~affectlab.errors.InputError` line naming the first bad state."""
    if isinstance(states, str):
        raise InputError(f"states is one text, not a list of states: give [{states[:MAX_CHARS]!r}]")
    if not isinstance(states, Sequence):
        raise InputError(f"states is a {type(states).__name__}, not a list of states")
    if not states:
        raise InputError("states is empty: give at least one state, or leave states out")
    if len(states) > MAX_STATES:
        raise InputError(f"states holds {len(states):,} states, more than the {MAX_STATES:,} ranked at once")
    return list(dict.fromkeys(checked_state(state, f"state {number}") for number, state in enumerate(states, 1)))


def checked_state(state: object, where: str) -> str:
    """One candidate state, NFC-normalised, stripped and lowercased; a value that cannot be one (not text, empty,
    or what :func:`state_problem` refuses) is an :class:`~affectlab.errors.InputError` starting with ``where``."""
    if not isinstance(state, str):
        raise InputError(f"{where} is {state!r}, a {type(state).__name__}, not text")
    normalised = unicodedata.normalize("NFC", state).strip().lower()
    problem = "is empty" if not normalised else state_problem(normalised)
    if problem:
        raise InputError(f"{where}: {problem}" if normalised else f"{where} {problem}")
    return normalised


def state_problem(state: str) -> str | None:
    """Why ``state`` (stripped, lowercase) cannot be an affective state, or None: a table's row (cells split by a
    tab, comma, semicolon or bar, or a number after the state), a control
    character, a mask token, no letter (a number), or more than :data:`MAX_WORDS` words or :data:`MAX_CHARS`
    characters (a sentence)."""
    shown = repr(state[:MAX_CHARS] + ("…" if len(state) > MAX_CHARS else ""))
    if TABLE_CELLS.search(state):
        return f"{shown} is a table's row: give one state a line, without other cells"
    control = next((char for char in state if unicodedata.category(char).startswith("C")), None)
    if control is not None:
        return f"{shown} holds the control character U+{ord(control):04X}"
    mask = MASK_TOKEN.search(state)
    if mask:
        return f"{shown} holds the mask {mask.group()!r}: give the states, not a masked text"
    if not any(char.isalpha() for char in state):
        return f"{shown} has no letter: a state is a word, not a number or a sign"
    if len(state) > MAX_CHARS or len(state.split()) > MAX_WORDS:
        return f"{shown} is too long for a state (at most {MAX_WORDS} words and {MAX_CHARS} characters)"
    return None
