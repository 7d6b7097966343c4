"""JSON Lines: one JSON object per line, with one clear error naming the line that is not one."""

from __future__ import annotations

import json
import re
from typing import Any

from affectlab.errors import InputError

# A \uD800-\uDFFF escape: JSON allows it alone, but a lone surrogate is not text (it cannot be written as UTF-8).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def json_object(line: str, where: str) -> dict[str, Any]:
    """The JSON object on ``line``; ``where`` (e.g. ``"posts.jsonl line 3"``) starts the error message."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON ({exc.msg})") from None
    except ValueError as exc:  # an integer of more digits than Python converts (4300 by default)
        raise InputError(f"{where}: not usable JSON ({str(exc).split(':')[0]})") from None
    except RecursionError:
        raise InputError(f"{where}: not usable JSON (nested too deeply)") from None
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a JSON object")
    reject_lone_surrogates(line, record, where)
    return record


def reject_lone_surrogates(line: str, record: Any, where: str) -> None:
    """Raise :class:`InputError` if ``record``, parsed from ``line``, holds a lone surrogate from a ``\\uD800``-style
    escape: JSON allows one, but it is half a character that no UTF-8 output can hold."""
    if not _SURROGATE_ESCAPE.search(line):
        return  # the usual case, found at the speed of a regular expression
    try:
        json.dumps(record, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(
            f"{where}: a \\u escape makes half a character (a lone UTF-16 surrogate), which is not text"
        ) from None
