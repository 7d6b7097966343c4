"""A collection project at work: the protocol, the items and the event log, and everything annotators and the owner
do to them (issue 44). The service (:mod:`.app`) is a thin HTTP layer over :class:`Project`; the tests drive it
directly with a fake clock.

Every change is an event appended to the log (:mod:`.log`) and then applied to the derived state (:mod:`.state`),
under one lock, so two requests never see or make a half-done change. Time is the project's ``clock`` (the
server's), never a client's.

Which items a page gets (exact overlap, reservations of ``reservation`` seconds, control tasks, extra raters) is
the scheduler's (:mod:`.scheduling`). A control task's result (its answer names exactly the known labels of the
stage; a skip counts neither way) is logged at submission, and the rules run then (:mod:`.rules`).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from affectlab.annotation.protocol import Protocol, Stage, duration_seconds, protocol_from_data
from affectlab.collection.access import (
    CollectionError,
    check_may_take_exam,
    check_not_blocked,
    new_token,
    token_hash,
)
from affectlab.collection.answers import checked_answers, exam_accuracy
from affectlab.collection.events import (
    Entry,
    ExamTaken,
    Invited,
    OwnerRotated,
    Revoked,
    StageOpened,
    Trained,
)
from affectlab.collection.log import EventLog
from affectlab.collection.rules import Page
from affectlab.collection.scheduling import Scheduler
from affectlab.collection.state import AnnotatorState, CollectionState
from affectlab.collection.submission import answers_read, rule_events, submission_events, submitted_page
from affectlab.collection.views import ProjectView, page_view, standing

__all__ = ["CollectionError", "Project"]

Clock = Callable[[], float]
T = TypeVar("T")
DEFAULT_RESERVATION = "30m"
MIN_RESERVATION_SECONDS = 60
"""The shortest reservation a project takes: a page must stay an annotator's long enough to be read and sent."""
DEFAULT_INVITE_EXPIRY = "14d"


class Project:
    """One open project file (see the module docstring)."""

    def __init__(self, log: EventLog, clock: Clock = time.time) -> None:
        import yaml

        self.log = log
        self.clock = clock
        meta = log.meta()
        self.protocol: Protocol = protocol_from_data(yaml.safe_load(meta["protocol"]), "the project's protocol")
        self.protocol_text = meta["protocol"]
        self.seed = int(meta.get("seed", "0"))
        self.reservation = float(meta.get("reservation_seconds", duration_seconds(DEFAULT_RESERVATION)))
        self._owner_hash = meta["owner_token_hash"]
        self.items = {item.id: item for item in log.items()}
        self.gold = log.gold()
        self.stages = {stage.name: stage for stage in self.protocol.stages}
        self.state = CollectionState()
        self.lock = threading.RLock()
        """Held by every change and every read of the state that iterates it (the reports take it too)."""
        self.scheduler = Scheduler(self.protocol, self.gold, self.seed)
        for event in log.events():
            self.state.apply(event)

    # -- the log ---------------------------------------------------------------------------------------------------

    def _append(self, entries: Sequence[Entry], now: float) -> None:
        for event in self.log.append(now, entries):
            self.state.apply(event)

    def view(self, read: Callable[[ProjectView], T]) -> T:
        """``read`` over a :class:`~.views.ProjectView` of this project, under its lock (how reports read it)."""
        with self.lock:
            return read(ProjectView(self.protocol, self.items, self.gold, self.state, self.clock(), self.complete))

    def catch_up(self) -> None:
        """Apply the events another :class:`Project` on the same log appended since this one last read it."""
        with self.lock:
            for event in self.log.events(after=self.state.last_seq):
                self.state.apply(event)

    def append_events(self, entries: Sequence[Entry]) -> None:
        """Append ``entries`` (annotator or None, record) at the project's time, in one transaction."""
        with self.lock:
            self._append(entries, self.clock())

    # -- who is asking ---------------------------------------------------------------------------------------------

    def is_owner(self, token: str) -> bool:
        """Whether ``token`` is the owner's."""
        return secrets.compare_digest(token_hash(token), self.state.owner_token_hash or self._owner_hash)

    def rotate_owner(self) -> str:
        """A new owner token (shown once, stored hashed); the old one is refused from now on."""
        token = new_token()
        with self.lock:
            self._append([(None, OwnerRotated(token_hash(token)))], self.clock())
        return token

    def annotator_for(self, token: str) -> AnnotatorState | None:
        """The annotator whose live invite ``token`` is (None: unknown, revoked or expired)."""
        with self.lock:
            name = self.state.by_token.get(token_hash(token))
            annotator = self.state.annotators.get(name) if name is not None else None
            if annotator is None or annotator.revoked or self.clock() >= annotator.expires_at:
                return None
            return annotator

    def invite(self, name: str, expires: str = DEFAULT_INVITE_EXPIRY) -> str:
        """A new invite token for annotator ``name`` (a new one replaces the old; shown once, stored hashed)."""
        name = name.strip()
        if not 0 < len(name) <= 100 or not name.isprintable():
            raise CollectionError("an annotator's name is 1 to 100 printable characters", 422)
        token = new_token()
        with self.lock:
            now = self.clock()
            known = self.state.annotators.get(name)
            pseudonym = known.pseudonym if known else f"annotator-{len(self.state.annotators) + 1:03d}"
            self._append([(name, Invited(token_hash(token), now + duration_seconds(expires), pseudonym))], now)
        return token

    def revoke(self, name: str) -> None:
        """Revoke the invite of annotator ``name``: their token stops working at once."""
        with self.lock:
            if name not in self.state.annotators:
                raise CollectionError(f"no annotator {name!r}", 404)
            self._append([(name, Revoked())], self.clock())

    # -- what an annotator does ------------------------------------------------------------------------------------

    def stage(self, name: str) -> Stage:
        """The stage ``name`` (404 when the protocol has none)."""
        if name not in self.stages:
            raise CollectionError(f"no stage {name!r}", 404)
        return self.stages[name]

    def me(self, annotator: AnnotatorState) -> dict[str, Any]:
        """What an annotator may know of their own standing (:func:`.views.standing`)."""
        with self.lock:
            return standing(self.protocol, self.state, annotator, self.clock())

    def training(self, annotator: AnnotatorState, stage_name: str) -> list[dict[str, Any]]:
        """The stage's training examples with their answers and explanations (logged as seen)."""
        stage = self.stage(stage_name)
        if stage.training is None:
            raise CollectionError(f"stage {stage_name!r} has no training", 404)
        with self.lock:
            check_not_blocked(annotator, self.clock(), training=True)
            if stage.name not in annotator.trained:
                self._append([(annotator.name, Trained(stage.name))], self.clock())
        return [example.model_dump(exclude={"source"}) for example in stage.training.examples]

    def exam(self, annotator: AnnotatorState, stage_name: str) -> list[dict[str, Any]]:
        """The exam's texts, never their answers (after the training, when the stage has one)."""
        stage = self._exam_stage(annotator, stage_name)
        assert stage.exam is not None
        return [{"position": i, "text": example.text} for i, example in enumerate(stage.exam.examples)]

    def take_exam(self, annotator: AnnotatorState, stage_name: str, raw: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Score an exam: its accuracy and whether it passed (the right answers are not given back)."""
        stage = self._exam_stage(annotator, stage_name)
        assert stage.exam is not None
        answers = checked_answers(self.protocol, stage, raw, len(stage.exam.examples))
        accuracy = exam_accuracy(stage.exam.examples, answers, stage.labels)
        passed = accuracy >= stage.exam.pass_accuracy
        with self.lock:
            self._append([(annotator.name, ExamTaken(stage.name, accuracy, passed))], self.clock())
        return {"accuracy": accuracy, "passed": passed, "pass_accuracy": stage.exam.pass_accuracy}

    def _exam_stage(self, annotator: AnnotatorState, stage_name: str) -> Stage:
        stage = self.stage(stage_name)
        check_may_take_exam(annotator, stage, self.clock())
        return stage

    def next_page(self, annotator: AnnotatorState, stage_name: str) -> dict[str, Any] | None:
        """The annotator's page of ``stage_name``: the open one again, or a new one reserving its items; None when
        no item is left for them."""
        stage = self.stage(stage_name)
        with self.lock:
            now = self.clock()
            check_not_blocked(annotator, self.clock())
            if stage.name not in self.state.stage_items:
                raise CollectionError(f"stage {stage.name!r} is not open yet", 403, "error_not_open")
            if stage.exam is not None and stage.name not in annotator.passed:
                raise CollectionError(f"pass the exam of stage {stage.name!r} first", 403, "error_exam_first")
            page = annotator.open_pages.get(stage.name)
            if page is None or not page.reserves(now):
                page = self._issue(annotator, stage, now)
            return None if page is None else page_view(self.items, page)

    def _issue(self, annotator: AnnotatorState, stage: Stage, now: float) -> Page | None:
        issued = self.scheduler.next_page(self.state, annotator, stage, now, self.reservation)
        if issued is None:
            return None
        self._append([(annotator.name, issued)], now)
        return self.state.pages[issued.page]

    def submit(self, annotator: AnnotatorState, page_id: str, raw: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Record a page's answers, the control results and whatever the rules then do; the annotator's standing."""
        with self.lock:
            now = self.clock()
            page = self.state.pages.get(page_id)
            if page is None or page.annotator != annotator.name:
                raise CollectionError("no such page", 404, "error_no_page")
            if page.submitted_at is not None:
                raise CollectionError("this page was already submitted", 409, "error_sent")
            if now >= page.expires_at:
                raise CollectionError("this page's reservation expired; ask for a new page", 409, "error_expired")
            check_not_blocked(annotator, self.clock())
            answers = checked_answers(self.protocol, self.stages[page.stage], raw, len(page.items))
            entries = submission_events(self.protocol, self.gold, page, answers)
            after = [*annotator.pages, submitted_page(page, entries, now)]
            read = answers_read(self.state, page, entries)
            self._append([*entries, *rule_events(self.protocol, annotator, after, now, read)], now)  # one transaction
        return self.me(annotator)

    # -- what the owner does ---------------------------------------------------------------------------------------

    def add_stage_items(self, stage: Stage, items: list[str]) -> None:
        """Give the gated ``stage`` its ``items`` (every item that passes its gate so far:
        :func:`.gates.open_stage` decides them)."""
        with self.lock:
            self._append([(None, StageOpened(stage.name, tuple(items)))], self.clock())
            self.scheduler.stage_reopened(stage.name)

    def complete(self, stage: str, item: str) -> bool:
        """Whether ``item`` has all the answers it needs in ``stage``."""
        return self.scheduler.complete(self.state, stage, item)


