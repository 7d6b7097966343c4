"""The collection log's events as typed records (issue 53): one frozen record per kind, each applying itself to the
state (:class:`~affectlab.collection.state.CollectionState`). The log stores each as its kind and its fields as JSON
(:meth:`EventRecord.data`), so the log's format is a contract: :func:`decode` reads every log written since issue 44
(a field added later, such as an answer's ``other``, has a default), and :data:`KINDS` is the whole vocabulary.

The annotator an event concerns (None: the owner's own) and its server time are the log line's, not the record's.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from affectlab.collection.records import AnnotatorState, Answer, StateRecords
from affectlab.collection.rules import Page
from affectlab.errors import InputError

LOG_FORMAT = 1
"""The version of the events' fields (what :func:`decode` reads; a record's fields are only ever added, with
defaults)."""


@dataclass(frozen=True)
class EventRecord:
    """What every event is: a kind, its fields, and how it changes the state."""

    kind: ClassVar[str] = ""

    def data(self) -> dict[str, Any]:
        """The fields as the log stores them (JSON)."""
        return dataclasses.asdict(self)

    def apply(self, state: StateRecords, at: float, annotator: str | None) -> None:
        """Change ``state`` by this event, logged at ``at`` for ``annotator``."""
        raise NotImplementedError


@dataclass(frozen=True)
class Invited(EventRecord):
    """An annotator invited (a new token replaces their old one)."""

    kind: ClassVar[str] = "invited"
    token_hash: str
    expires_at: float
    pseudonym: str

    def apply(self, state: StateRecords, at: float, annotator: str | None) -> None:
        name = str(annotator)
        old = state.annotators.get(name)
        if old is not None:
            state.by_token.pop(old.token_hash, None)
            old.token_hash, old.expires_at, old.revoked = self.token_hash, self.expires_at, False
        else:
            state.annotators[name] = AnnotatorState(name, self.token_hash, self.expires_at, self.pseudonym)
        state.by_token[self.token_hash] = name


@dataclass(frozen=True)
class Revoked(EventRecord):
    """An annotator's invite revoked: their token stops working."""

    kind: ClassVar[str] = "revoked"

    def apply(self, state: StateRecords, at: float, annotator: str | None) -> None:
        found = state.annotators[str(annotator)]
        found.revoked = True
        state.by_token.pop(found.token_hash, None)


@dataclass(frozen=True)
class Trained(EventRecord):
    """A stage's training shown to an annotator."""

    kind: ClassVar[str] = "trained"
    stage: str

    def apply(self, state: StateRecords, at: float, annotator: str | None) -> None:
        state.annotators[str(annotator)].trained.add(self.stage)


@dataclass(frozen=True)
class ExamTaken(EventRecord):
    """An exam taken: its accuracy and whether it passed."""

    kind: ClassVar[str] = "exam-taken"
    stage: str
    accuracy: float
    passed: bool

    def apply(self, state: StateRecords, at: float, annotator: str | None) -> None:
        found = state.annotators[str(annotator)]
        found.exams.append({**self.data(), "at": at})
        if self.passed:
            found.passed.add(self.stage)
            found.retrain = False


@dataclass(frozen=True)
class Issued(EventRecord):
    """A page issued: its items (control tasks among them) in page order, reserved until ``expires_at``."""

    kind: ClassVar[str] = "issued"
    page: str
    stage: str
    items: tuple[str, ...]
    controls: tuple[str, ...]
    expires_at: float

    def apply(self, state: StateRecords, at: float, annotator: str | None) -> None:
        found = state.annotators[str(annotator)]
        page = Page(self.page, found.name, self.stage, self.items, frozenset(self.controls), at, self.expires_at)
        state.pages[page.id] = page
        found.open_pages[page.stage] = page
        found.seen.update((page.stage, item) for item in page.items)
        for item in page.items:
            if item not in page.controls:
                state.reservations[(page.stage, item)].add(page.id)


@dataclass(frozen=True)
class AnswerRecord:
    """One item's answer in a submission (``other``: the protocol's other choice; logs before it lack it)."""

    item: str
    labels: Mapping[str, float]
    none: bool = False
    skip: bool = False
    flag: str | None = None
    other: bool = False


@dataclass(frozen=True)
class Submitted(EventRecord):
    """A page's answers (:class:`Skipped` when every answer is a skip)."""

    kind: ClassVar[str] = "submitted"
    page: str
    answers: tuple[AnswerRecord, ...]

    def apply(self, state: StateRecords, at: float, annotator: str | None) -> None:
        page = state.pages[self.page]
        found = state.annotators[page.annotator]
        page.submitted_at = at
        page.skipped = self.kind == "skipped"
        found.pages.append(page)
        found.open_pages.pop(page.stage, None)
        for answer in self.answers:
            key = (page.stage, answer.item)
            state.reservations[key].discard(page.id)
            given = Answer(page.annotator, page.stage, answer.item, page.id, at, dict(answer.labels), answer.none,
                           answer.skip, answer.flag, answer.other)  # fmt: skip
            state.answers.append(given)
            state.item_answers[key].append(given)
            state.page_answers[page.id].append(given)
            if answer.item in page.controls or answer.skip:
                continue
            state.answered[key] += 1
            state.votes[key].update(label for label, value in answer.labels.items() if value > 0)


@dataclass(frozen=True)
class Skipped(Submitted):
    """A page whose every answer is a skip."""

    kind: ClassVar[str] = "skipped"


@dataclass(frozen=True)
class Flagged(EventRecord):
    """A flag, made visible in the log (it is part of its answer, recorded with the submission)."""

    kind: ClassVar[str] = "flagged"
    page: str
    item: str
    flag: str

    def apply(self, state: StateRecords, at: float, annotator: str | None) -> None:
        """Nothing to change: the answer carries the flag."""


@dataclass(frozen=True)
class ControlResult(EventRecord):
    """Whether a control task on a page was answered right."""

    kind: ClassVar[str] = "control-result"
    page: str
    item: str
    correct: bool

    def apply(self, state: StateRecords, at: float, annotator: str | None) -> None:
        state.pages[self.page].control_results.append(self.correct)


@dataclass(frozen=True)
class RuleAction(EventRecord):
    """What a quality rule did to an annotator (the rule's window starts again after it)."""

    rule: str

    def apply(self, state: StateRecords, at: float, annotator: str | None) -> None:
        found = state.annotators[str(annotator)]
        found.marks[self.rule] = len(found.pages)
        found.actions.append({"action": self.kind, **self.data(), "at": at})
        self.act(found)

    def act(self, annotator: AnnotatorState) -> None:
        """The action's own change to the annotator."""
        raise NotImplementedError


@dataclass(frozen=True)
class Banned(RuleAction):
    """A ban until ``until`` (None: permanent)."""

    kind: ClassVar[str] = "banned"
    until: float | None = None

    def act(self, annotator: AnnotatorState) -> None:
        annotator.banned_until = math.inf if self.until is None else float(self.until)


@dataclass(frozen=True)
class Paused(RuleAction):
    """A break until ``until``."""

    kind: ClassVar[str] = "paused"
    until: float = 0.0

    def act(self, annotator: AnnotatorState) -> None:
        annotator.paused_until = float(self.until)


@dataclass(frozen=True)
class Retrain(RuleAction):
    """Back to the training and exam of every stage before more pages."""

    kind: ClassVar[str] = "retrain"

    def act(self, annotator: AnnotatorState) -> None:
        annotator.retrain = True
        annotator.passed.clear()
        annotator.trained.clear()


@dataclass(frozen=True)
class StageOpened(EventRecord):
    """The items a stage receives (a gated stage opened again receives its whole list anew)."""

    kind: ClassVar[str] = "stage-opened"
    stage: str
    items: tuple[str, ...]

    def apply(self, state: StateRecords, at: float, annotator: str | None) -> None:
        state.stage_items[self.stage] = list(self.items)


@dataclass(frozen=True)
class OwnerRotated(EventRecord):
    """The owner's token replaced (the one before stops working)."""

    kind: ClassVar[str] = "owner-rotated"
    token_hash: str

    def apply(self, state: StateRecords, at: float, annotator: str | None) -> None:
        state.owner_token_hash = self.token_hash


Entry = tuple[str | None, EventRecord]
"""An event to append: the annotator it concerns (None: the owner's own) and its record."""

KINDS: dict[str, type[EventRecord]] = {
    cls.kind: cls
    for cls in (Invited, Revoked, Trained, ExamTaken, Issued, Submitted, Skipped, Flagged, ControlResult, Banned,
                Paused, Retrain, StageOpened, OwnerRotated)
}  # fmt: skip
"""Every event kind the log holds."""


def decode(kind: str, data: Mapping[str, Any]) -> EventRecord:
    """The record of a log line (one-line :class:`InputError` for a kind or field this affectlab does not know)."""
    cls = KINDS.get(kind)
    if cls is None:
        raise InputError(f"the project's log holds an event {kind!r} this affectlab does not know (a newer one?)")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise InputError(f"the project's log holds a {kind!r} event with a field {unknown[0]!r} this affectlab lacks")
    values = dict(data)
    if "answers" in values:
        values["answers"] = tuple(AnswerRecord(**answer) for answer in values["answers"])
    for name in ("items", "controls"):
        if name in values:
            values[name] = tuple(values[name])
    return cls(**values)
