"""JSON Lines: one JSON object per line, with one clear error naming the line that is not one."""

from __future__ import annotations

import json
from typing import Any

from affectlab.errors import InputError


def json_object(line: str, where: str) -> dict[str, Any]:
    """The JSON object on ``line``; ``where`` (e.g. ``"posts.jsonl line 3"``) starts the error message."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON ({exc.msg})") from None
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a JSON object")
    return record
