"""Checking what an annotator sends: a page's answers and an exam's, against the protocol (one-line errors that
the service turns into 422s), and scoring answers against known ones (control tasks, exams)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from affectlab.annotation.protocol import Example, Protocol, Stage
from affectlab.errors import InputError

MAX_FLAG_CHARS = 500


def checked_answers(protocol: Protocol, stage: Stage, raw: Sequence[Mapping[str, Any]], n: int) -> list[dict[str, Any]]:
    """The answers to a page of ``n`` items, one per position, in position order: each ``{position, labels:
    {label: value}, none, other, skip, flag}``, checked against ``protocol`` and ``stage``."""
    positions = [answer.get("position") for answer in raw]
    if sorted(p for p in positions if isinstance(p, int)) != list(range(n)) or len(positions) != n:
        raise InputError(f"answer each of the page's {n} items once (positions 0 to {n - 1})")
    return [_checked(protocol, stage, answer) for answer in sorted(raw, key=lambda a: int(a["position"]))]


def _checked(protocol: Protocol, stage: Stage, answer: Mapping[str, Any]) -> dict[str, Any]:
    where = f"item {answer['position']}"
    labels = dict(answer.get("labels") or {})
    none, skip, flag = bool(answer.get("none")), bool(answer.get("skip")), answer.get("flag")
    other = _other(protocol, answer, where, chosen=[name for name, on in (("skip", skip), ("none", none)) if on])
    if skip and not protocol.skip:
        raise InputError(f"{where}: this protocol has no skip")
    if flag is not None and not (protocol.flag or protocol.difficult_flag):
        raise InputError(f"{where}: this protocol has no flag")
    if flag is not None and (not isinstance(flag, str) or not 0 < len(flag) <= MAX_FLAG_CHARS):
        raise InputError(f"{where}: a flag is a text of 1 to {MAX_FLAG_CHARS} characters")
    if (skip or none or other) and labels:
        chosen = "a skipped item" if skip else "the none choice" if none else "the other choice"
        raise InputError(f"{where}: {chosen} takes no labels")
    if none and protocol.none_choice is None:
        raise InputError(f"{where}: this protocol has no none choice")
    if not (skip or none or other or labels):
        raise InputError(f"{where}: choose a label, the none choice, or skip")
    if skip and none:
        raise InputError(f"{where}: skip or the none choice, not both")
    if not protocol.multi_label and len(labels) > 1:
        raise InputError(f"{where}: choose one label")
    return {"position": int(answer["position"]), "labels": _values(protocol, stage, labels, where),
            "none": none, **({"other": other} if protocol.other_choice else {}), "skip": skip,
            "flag": flag}  # fmt: skip


def _other(protocol: Protocol, answer: Mapping[str, Any], where: str, chosen: list[str]) -> bool:
    """Whether the answer is the protocol's other choice (refused where it has none, or beside skip or none)."""
    other = bool(answer.get("other"))
    if other and protocol.other_choice is None:
        raise InputError(f"{where}: this protocol has no other choice")
    if other and chosen:
        raise InputError(f"{where}: the other choice or {chosen[0]}, not both")
    return other


def _values(protocol: Protocol, stage: Stage, labels: Mapping[str, Any], where: str) -> dict[str, int]:
    values = {}
    for label, value in labels.items():
        if label not in stage.labels:
            raise InputError(f"{where}: {label!r} is not a label of this stage ({', '.join(stage.labels)})")
        levels = protocol.intensity.n_levels if protocol.intensity is not None else 1
        if value is None and protocol.intensity is not None and not protocol.intensity.required:
            value = 1
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= levels:
            need = f"an intensity from 1 to {levels}" if protocol.intensity is not None else "the value 1"
            raise InputError(f"{where}: {label!r} needs {need}")
        values[label] = value
    return values


def presence_matches(given: Mapping[str, float], known: Mapping[str, float]) -> bool:
    """Whether ``given`` (label -> value, absent: 0) names exactly the labels present in ``known``."""
    return all((given.get(label, 0) > 0) == (value > 0) for label, value in known.items())


def exam_accuracy(examples: Sequence[Example], answers: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> float:
    """The share of exam ``examples`` whose checked ``answers`` name exactly their labels (of ``labels``)."""
    right = 0
    for example, answer in zip(examples, answers, strict=True):
        known = {label: float(label in example.labels) for label in labels}
        right += (not answer["skip"]) and presence_matches(answer["labels"], known)
    return right / len(examples)
