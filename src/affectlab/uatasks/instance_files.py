"""Instances to and from JSON Lines: what ``affectlab ua generate`` writes and ``ua eval --file`` reads."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from affectlab.errors import InputError
from affectlab.io.atomic import write_atomically
from affectlab.io.jsonlines import reject_lone_surrogates
from affectlab.io.tables import read_text
from affectlab.uatasks.instances import MCInstance

FIELDS = ("task", "question", "options", "answer", "id", "context", "template_id", "few_shot", "metadata")
# the JSON types of the other fields (a question of null would otherwise fail only when a prompt is built)
_TYPES: dict[str, type | tuple[type, ...]] = {
    "task": str, "question": str, "id": str, "context": str, "template_id": (str, type(None)), "few_shot": bool,
    "metadata": dict,
}  # fmt: skip
_TYPE_NAMES = {"template_id": "a string or null", "few_shot": "true or false", "metadata": "a JSON object"}
_TYPE_NAMES.update({key: "a string" for key in _TYPES if key not in _TYPE_NAMES})
_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", int: "a number", float: "a number",
               bool: "true or false", type(None): "null"}  # fmt: skip


def instance_record(instance: MCInstance) -> dict[str, Any]:
    """One instance as a JSON-ready dict with the fields of :class:`MCInstance` (options as a list)."""
    record = asdict(instance)
    record["options"] = list(instance.options)
    record["metadata"] = dict(instance.metadata)
    return record


def write_instances(instances: Iterable[MCInstance], path: str | Path) -> Path:
    """Write one JSON object per line (UTF-8), all at once: a failure leaves no half-written file."""
    path = Path(path)
    lines = [json.dumps(instance_record(instance), ensure_ascii=False, default=str) for instance in instances]
    write_atomically({path: ("\n".join(lines) + "\n").encode("utf-8")})
    return path


def read_instances(path: str | Path) -> list[MCInstance]:
    """Read instances written by :func:`write_instances`; a malformed line is an error naming its number."""
    path = Path(path)
    lines = read_text(path).split("\n")  # not splitlines(): JSON strings may hold U+2028, U+0085 and the like unescaped
    instances = [_instance(line, number, path.name) for number, line in enumerate(lines, 1) if line.strip()]
    if not instances:
        raise InputError(f"{path.name} holds no instances")
    return instances


def _instance(line: str, number: int, name: str) -> MCInstance:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{name} line {number}: not JSON ({exc.msg})") from None
    except (ValueError, RecursionError):  # an integer of over 4300 digits, or nesting deeper than Python's stack
        raise InputError(f"{name} line {number}: not usable JSON (a number too long or nesting too deep)") from None
    if not isinstance(record, dict):
        raise InputError(f"{name} line {number}: expected a JSON object")
    reject_lone_surrogates(line, record, f"{name} line {number}")
    missing = [key for key in ("task", "question", "options", "answer") if key not in record]
    if missing:
        raise InputError(f"{name} line {number}: missing {', '.join(missing)}")
    unknown = sorted(set(record) - set(FIELDS))
    if unknown:
        raise InputError(f"{name} line {number}: unknown field {', '.join(unknown)}")
    if not isinstance(record["options"], list) or not isinstance(record["answer"], int):
        raise InputError(f"{name} line {number}: options must be a list and answer an integer index")
    wrong = [key for key, types in _TYPES.items() if key in record and not isinstance(record[key], types)]
    if wrong:
        key = wrong[0]
        found = _JSON_TYPES.get(type(record[key]), type(record[key]).__name__)
        raise InputError(f"{name} line {number}: {key} must be {_TYPE_NAMES[key]}, not {found}")
    record["options"] = tuple(str(option) for option in record["options"])
    return MCInstance(**record)
