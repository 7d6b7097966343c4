"""What the state holds of each answer and each annotator (pages are :class:`~affectlab.collection.rules.Page`):
the records the events (:mod:`.events`) build and the views read."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from affectlab.collection.rules import Page


@dataclass(frozen=True)
class Answer:
    """One annotator's answer to one item of a page."""

    annotator: str
    stage: str
    item: str
    page: str
    at: float
    labels: Mapping[str, float]
    none: bool = False
    skip: bool = False
    flag: str | None = None
    other: bool = False


@dataclass
class AnnotatorState:
    """What the log says of one annotator."""

    name: str
    token_hash: str
    expires_at: float
    pseudonym: str
    revoked: bool = False
    trained: set[str] = field(default_factory=set)
    passed: set[str] = field(default_factory=set)
    exams: list[dict[str, Any]] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    open_pages: dict[str, Page] = field(default_factory=dict)
    seen: set[tuple[str, str]] = field(default_factory=set)
    """(stage, item) of every item issued to the annotator: never issued again in that stage."""
    banned_until: float | None = None
    paused_until: float | None = None
    retrain: bool = False
    marks: dict[str, int] = field(default_factory=dict)
    actions: list[dict[str, Any]] = field(default_factory=list)

    def blocked(self, now: float) -> tuple[str, float | None] | None:
        """Why the annotator may not work at ``now`` (``banned``, ``paused``), with until when; None when free."""
        if self.banned_until is not None and now < self.banned_until:
            return "banned", None if math.isinf(self.banned_until) else self.banned_until
        if self.paused_until is not None and now < self.paused_until:
            return "paused", self.paused_until
        return None

    def control_accuracy(self) -> float | None:
        """The share of control tasks answered right over every page (None before the first)."""
        results = [correct for page in self.pages for correct in page.control_results]
        return sum(results) / len(results) if results else None
