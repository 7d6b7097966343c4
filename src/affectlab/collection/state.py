"""A project's state, derived from its event log alone (:mod:`.log`): replaying the same events always gives the
same state, which is how a restarted server (after ``kill -9`` too) finds every page, answer, ban and pause.

The events and their data (``annotator`` is the annotator's name, None for the owner's own events):

* ``invited`` ``{token_hash, expires_at, pseudonym}``; ``revoked`` ``{}``
* ``trained`` ``{stage}`` (the training was shown); ``exam-taken`` ``{stage, accuracy, passed}``
* ``issued`` ``{page, stage, items, controls, expires_at}``: a page reserves its items until it expires
* ``submitted`` / ``skipped`` ``{page, answers}`` (``skipped``: every answer of the page is a skip); each answer
  ``{item, labels: {label: value}, none, other, skip, flag}`` (``other`` absent from logs written before it
  existed: false); ``flagged`` ``{page, item, flag}``
* ``control-result`` ``{page, item, correct}``
* ``banned`` ``{rule, until}`` (until None: permanent); ``paused`` ``{rule, until}``; ``retrain`` ``{rule}``
* ``stage-opened`` ``{stage, items}``: the items a stage receives
* ``owner-rotated`` ``{token_hash}``: the owner's token replaced (the one ``annotate create`` printed, or the last
  one rotated in, stops working)
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from affectlab.collection.log import Event
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


class CollectionState:
    """Every annotator, page, answer and open stage, built by :meth:`apply` over the log's events in order."""

    def __init__(self) -> None:
        self.annotators: dict[str, AnnotatorState] = {}
        self.by_token: dict[str, str] = {}
        self.pages: dict[str, Page] = {}
        self.stage_items: dict[str, list[str]] = {}
        self.answers: list[Answer] = []
        self.answered: Counter[tuple[str, str]] = Counter()
        self.votes: defaultdict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        self.reservations: defaultdict[tuple[str, str], set[str]] = defaultdict(set)
        self.owner_token_hash: str | None = None
        """The owner's token's hash since the last rotation (None: the project's first, in the log's meta)."""
        self.last_seq = 0

    def apply(self, event: Event) -> None:
        """Change the state by one event."""
        self.last_seq = event.seq
        handler = getattr(self, "_" + event.kind.replace("-", "_"))
        handler(event, event.data)

    def _owner_rotated(self, event: Event, data: Mapping[str, Any]) -> None:
        self.owner_token_hash = str(data["token_hash"])

    def _invited(self, event: Event, data: Mapping[str, Any]) -> None:
        name = str(event.annotator)
        old = self.annotators.get(name)
        if old is not None:
            self.by_token.pop(old.token_hash, None)
            old.token_hash, old.expires_at, old.revoked = data["token_hash"], data["expires_at"], False
        else:
            self.annotators[name] = AnnotatorState(name, data["token_hash"], data["expires_at"], data["pseudonym"])
        self.by_token[data["token_hash"]] = name

    def _revoked(self, event: Event, data: Mapping[str, Any]) -> None:
        annotator = self.annotators[str(event.annotator)]
        annotator.revoked = True
        self.by_token.pop(annotator.token_hash, None)

    def _trained(self, event: Event, data: Mapping[str, Any]) -> None:
        self.annotators[str(event.annotator)].trained.add(data["stage"])

    def _exam_taken(self, event: Event, data: Mapping[str, Any]) -> None:
        annotator = self.annotators[str(event.annotator)]
        annotator.exams.append({**data, "at": event.at})
        if data["passed"]:
            annotator.passed.add(data["stage"])
            annotator.retrain = False

    def _issued(self, event: Event, data: Mapping[str, Any]) -> None:
        annotator = self.annotators[str(event.annotator)]
        page = Page(
            data["page"], annotator.name, data["stage"], tuple(data["items"]), frozenset(data["controls"]),
            event.at, data["expires_at"],
        )  # fmt: skip
        self.pages[page.id] = page
        annotator.open_pages[page.stage] = page
        annotator.seen.update((page.stage, item) for item in page.items)
        for item in page.items:
            if item not in page.controls:
                self.reservations[(page.stage, item)].add(page.id)

    def _submitted(self, event: Event, data: Mapping[str, Any]) -> None:
        page = self.pages[data["page"]]
        annotator = self.annotators[page.annotator]
        page.submitted_at = event.at
        page.skipped = event.kind == "skipped"
        annotator.pages.append(page)
        annotator.open_pages.pop(page.stage, None)
        for answer in data["answers"]:
            self._record(page, answer, event.at)

    _skipped = _submitted

    def _record(self, page: Page, answer: Mapping[str, Any], at: float) -> None:
        item = answer["item"]
        key = (page.stage, item)
        self.reservations[key].discard(page.id)
        recorded = Answer(
            page.annotator, page.stage, item, page.id, at, dict(answer["labels"]), bool(answer["none"]),
            bool(answer["skip"]), answer.get("flag"), bool(answer.get("other", False)),
        )  # fmt: skip
        self.answers.append(recorded)
        if item in page.controls or recorded.skip:
            return
        self.answered[key] += 1
        self.votes[key].update(label for label, value in recorded.labels.items() if value > 0)

    def _flagged(self, event: Event, data: Mapping[str, Any]) -> None:
        """A flag is part of its answer (recorded with ``submitted``); the event makes it visible in the log."""

    def _control_result(self, event: Event, data: Mapping[str, Any]) -> None:
        self.pages[data["page"]].control_results.append(bool(data["correct"]))

    def _banned(self, event: Event, data: Mapping[str, Any]) -> None:
        annotator = self._acted(event, data)
        annotator.banned_until = math.inf if data["until"] is None else float(data["until"])

    def _paused(self, event: Event, data: Mapping[str, Any]) -> None:
        self._acted(event, data).paused_until = float(data["until"])

    def _retrain(self, event: Event, data: Mapping[str, Any]) -> None:
        annotator = self._acted(event, data)
        annotator.retrain = True
        annotator.passed.clear()
        annotator.trained.clear()

    def _acted(self, event: Event, data: Mapping[str, Any]) -> AnnotatorState:
        annotator = self.annotators[str(event.annotator)]
        annotator.marks[data["rule"]] = len(annotator.pages)
        annotator.actions.append({"action": event.kind, **data, "at": event.at})
        return annotator

    def _stage_opened(self, event: Event, data: Mapping[str, Any]) -> None:
        self.stage_items[data["stage"]] = list(data["items"])

    def reserved(self, stage: str, item: str, now: float) -> int:
        """Pages holding ``item`` of ``stage`` at ``now`` (issued, not submitted, not expired)."""
        return sum(self.pages[page].reserves(now) for page in self.reservations.get((stage, item), ()))
