"""What the state holds: each answer, each annotator (pages are :class:`~affectlab.collection.rules.Page`) and the
whole (:class:`StateRecords`): the records the events (:mod:`.events`) build and the views read."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from affectlab.collection.rules import Page

STOPPING_ACTIONS = ("banned", "retrain")
"""The kinds of rule action that stop an annotator (:class:`~affectlab.collection.events.Banned`,
:class:`~affectlab.collection.events.Retrain`); a break (``paused``) does not."""


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

    def stopped_before(self, at: float) -> bool:
        """Whether a quality rule banned the annotator or sent them back to training before ``at`` (a break is not a
        stop): from then on their answers are not read as evidence by the agreement rules."""
        return any(action["action"] in STOPPING_ACTIONS and action["at"] < at for action in self.actions)

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


class StateRecords:
    """What the state holds (:class:`~affectlab.collection.state.CollectionState` adds how events change it): every
    annotator, page, answer, open stage, count of answers and votes, and live reservation."""

    def __init__(self) -> None:
        self.annotators: dict[str, AnnotatorState] = {}
        self.by_token: dict[str, str] = {}
        self.pages: dict[str, Page] = {}
        self.stage_items: dict[str, list[str]] = {}
        self.answers: list[Answer] = []
        self.item_answers: defaultdict[tuple[str, str], list[Answer]] = defaultdict(list)
        """Each (stage, item)'s answers in the order given (the copying rule's reading)."""
        self.page_answers: defaultdict[str, list[Answer]] = defaultdict(list)
        self.answered: Counter[tuple[str, str]] = Counter()
        self.votes: defaultdict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        self.reservations: defaultdict[tuple[str, str], set[str]] = defaultdict(set)
        self.owner_token_hash: str | None = None
        """The owner's token's hash since the last rotation (None: the project's first, in the log's meta)."""
        self.last_seq = 0

    def reserved(self, stage: str, item: str, now: float) -> int:
        """Pages holding ``item`` of ``stage`` at ``now`` (issued, not submitted, not expired)."""
        return sum(self.pages[page].reserves(now) for page in self.reservations.get((stage, item), ()))
