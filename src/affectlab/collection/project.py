"""A collection project at work: the protocol, the items and the event log, and everything annotators and the owner
do to them (issue 44). The service (:mod:`.app`) is a thin HTTP layer over :class:`Project`; the tests drive it
directly with a fake clock.

Every change is an event appended to the log (:mod:`.log`) and then applied to the derived state (:mod:`.state`),
under one lock, so two requests never see or make a half-done change. Time is the project's ``clock`` (the
server's), never a client's.

**Overlap is exact.** A page reserves its items until it is submitted or its reservation expires (``reservation``
seconds, then the items go back to the pool). An item is issued only while its answers plus live reservations are
below its target: ``overlap.per_item``, plus ``overlap.extra`` once the first round is in and no label has
``overlap.min_votes`` votes. No annotator is issued an item twice in a stage, not even after a page of theirs expired.

**Control tasks** are items the owner gave known answers for: each place on a page holds one with probability
``controls.share`` (drawn from the annotator's unseen control tasks of the stage); nothing an annotator receives
says which they are. A control task's result (its answer names exactly the known labels of the stage; a skip
counts neither way) is logged at submission, and the rules run then (:mod:`.rules`).
"""

from __future__ import annotations

import hashlib
import random
import secrets
import statistics
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from affectlab.annotation.protocol import Protocol, Stage, duration_seconds, protocol_from_data
from affectlab.collection.answers import checked_answers, exam_accuracy, presence_matches
from affectlab.collection.log import EventLog, Item
from affectlab.collection.rules import Page, fired_rules
from affectlab.collection.state import AnnotatorState, CollectionState
from affectlab.errors import AffectlabError

Clock = Callable[[], float]
DEFAULT_RESERVATION = "30m"
MIN_RESERVATION_SECONDS = 60
"""The shortest reservation a project takes: a page must stay an annotator's long enough to be read and sent."""
DEFAULT_INVITE_EXPIRY = "14d"


class CollectionError(AffectlabError):
    """A request the project refuses: ``status`` is its HTTP status (403 forbidden now, 404 not found, 409 in
    conflict with the state)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def token_hash(token: str) -> str:
    """How a token is stored: SHA-256 (the tokens are 256 random bits, so a slow hash adds nothing)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh token of 256 random bits."""
    return secrets.token_urlsafe(32)


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
        self._complete_before: dict[str, int] = {}
        """Per stage, how many of its first items are known to be complete (where :meth:`_free_items` starts)."""
        for event in log.events():
            self.state.apply(event)

    # -- the log ---------------------------------------------------------------------------------------------------

    def _append(self, entries: Sequence[tuple[str, str | None, Mapping[str, Any]]], now: float) -> None:
        for event in self.log.append(now, entries):
            self.state.apply(event)

    # -- who is asking ---------------------------------------------------------------------------------------------

    def is_owner(self, token: str) -> bool:
        """Whether ``token`` is the owner's."""
        return secrets.compare_digest(token_hash(token), self.state.owner_token_hash or self._owner_hash)

    def rotate_owner(self) -> str:
        """A new owner token (shown once, stored hashed); the old one is refused from now on."""
        token = new_token()
        with self.lock:
            self._append([("owner-rotated", None, {"token_hash": token_hash(token)})], self.clock())
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
            data = {"token_hash": token_hash(token), "expires_at": now + duration_seconds(expires),
                    "pseudonym": pseudonym}  # fmt: skip
            self._append([("invited", name, data)], now)
        return token

    def revoke(self, name: str) -> None:
        """Revoke the invite of annotator ``name``: their token stops working at once."""
        with self.lock:
            if name not in self.state.annotators:
                raise CollectionError(f"no annotator {name!r}", 404)
            self._append([("revoked", name, {})], self.clock())

    # -- what an annotator does ------------------------------------------------------------------------------------

    def stage(self, name: str) -> Stage:
        """The stage ``name`` (404 when the protocol has none)."""
        if name not in self.stages:
            raise CollectionError(f"no stage {name!r}", 404)
        return self.stages[name]

    def me(self, annotator: AnnotatorState) -> dict[str, Any]:
        """What an annotator may know of their own standing."""
        with self.lock:
            now = self.clock()
            blocked = annotator.blocked(now)
            return {
                "name": annotator.name,
                "status": "retrain" if annotator.retrain else (blocked[0] if blocked else "active"),
                "until": blocked[1] if blocked else None,
                "pages": len(annotator.pages),
                "stages": [self._stage_view(annotator, stage) for stage in self.protocol.stages],
            }

    def _stage_view(self, annotator: AnnotatorState, stage: Stage) -> dict[str, Any]:
        needs = None
        if stage.exam is not None and stage.name not in annotator.passed:
            needs = "training" if stage.training is not None and stage.name not in annotator.trained else "exam"
        return {"name": stage.name, "labels": stage.labels, "open": stage.name in self.state.stage_items,
                "needs": needs}  # fmt: skip

    def training(self, annotator: AnnotatorState, stage_name: str) -> list[dict[str, Any]]:
        """The stage's training examples with their answers and explanations (logged as seen)."""
        stage = self.stage(stage_name)
        if stage.training is None:
            raise CollectionError(f"stage {stage_name!r} has no training", 404)
        with self.lock:
            self._check_blocked(annotator, training=True)
            if stage.name not in annotator.trained:
                self._append([("trained", annotator.name, {"stage": stage.name})], self.clock())
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
            data = {"stage": stage.name, "accuracy": accuracy, "passed": passed}
            self._append([("exam-taken", annotator.name, data)], self.clock())
        return {"accuracy": accuracy, "passed": passed, "pass_accuracy": stage.exam.pass_accuracy}

    def _exam_stage(self, annotator: AnnotatorState, stage_name: str) -> Stage:
        stage = self.stage(stage_name)
        if stage.exam is None:
            raise CollectionError(f"stage {stage_name!r} has no exam", 404)
        self._check_blocked(annotator, training=True)
        if stage.training is not None and stage.name not in annotator.trained:
            raise CollectionError("read the training before the exam", 403)
        if stage.name in annotator.passed:
            raise CollectionError(f"the exam of stage {stage_name!r} is already passed", 409)
        assert stage.exam is not None
        if stage.exam.attempts is not None and failed_in_a_row(annotator, stage.name) >= stage.exam.attempts:
            raise CollectionError(f"the exam of stage {stage_name!r} was failed {stage.exam.attempts} times", 403)
        return stage

    def _check_blocked(self, annotator: AnnotatorState, training: bool = False) -> None:
        blocked = annotator.blocked(self.clock())
        if blocked is not None:
            until = (
                "" if blocked[1] is None else f" until {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(blocked[1]))}"
            )
            raise CollectionError(f"{'banned' if blocked[0] == 'banned' else 'on a break'}{until}", 403)
        if annotator.retrain and not training:
            raise CollectionError("take the training and pass the exam again before more pages", 403)

    def next_page(self, annotator: AnnotatorState, stage_name: str) -> dict[str, Any] | None:
        """The annotator's page of ``stage_name``: the open one again, or a new one reserving its items; None when
        no item is left for them."""
        stage = self.stage(stage_name)
        with self.lock:
            now = self.clock()
            self._check_blocked(annotator)
            if stage.name not in self.state.stage_items:
                raise CollectionError(f"stage {stage.name!r} is not open yet", 403)
            if stage.exam is not None and stage.name not in annotator.passed:
                raise CollectionError(f"pass the exam of stage {stage.name!r} first", 403)
            page = annotator.open_pages.get(stage.name)
            if page is None or not page.reserves(now):
                page = self._issue(annotator, stage, now)
            return None if page is None else self.page_view(page)

    def _issue(self, annotator: AnnotatorState, stage: Stage, now: float) -> Page | None:
        rng = random.Random(f"{self.seed}:{annotator.name}:{stage.name}:{len(annotator.pages)}")
        share = self.protocol.controls.share if self.protocol.controls else 0.0
        n_controls = sum(rng.random() < share for _ in range(self.protocol.page_size))
        controls = self._free_controls(annotator, stage, n_controls, rng)
        items = self._free_items(annotator, stage, self.protocol.page_size - len(controls), now)
        if not items:
            return None
        order = items + controls
        rng.shuffle(order)
        page_id = secrets.token_urlsafe(12)
        data = {"page": page_id, "stage": stage.name, "items": order, "controls": controls,
                "expires_at": now + self.reservation}  # fmt: skip
        self._append([("issued", annotator.name, data)], now)
        return self.state.pages[page_id]

    def _free_items(self, annotator: AnnotatorState, stage: Stage, n: int, now: float) -> list[str]:
        """The first ``n`` items of the stage the annotator has not seen and that need more answers than they have
        and hold; the scan starts past the items known to be complete (a complete item stays complete: answers
        only grow, and its target only grows while its first round is short of votes)."""
        chosen: list[str] = []
        items = self.state.stage_items[stage.name]
        start = self._complete_before.get(stage.name, 0)
        while start < len(items) and self.complete(stage.name, items[start]):
            start += 1
        self._complete_before[stage.name] = start
        for item in items[start:]:
            if len(chosen) == n:
                break
            if (stage.name, item) in annotator.seen:
                continue
            key = (stage.name, item)
            if self.state.answered[key] + self.state.reserved(stage.name, item, now) < self.target(stage.name, item):
                chosen.append(item)
        return chosen

    def _free_controls(self, annotator: AnnotatorState, stage: Stage, n: int, rng: random.Random) -> list[str]:
        if n == 0:
            return []
        known = sorted(
            {item for item, label in self.gold if label in stage.labels and (stage.name, item) not in annotator.seen}
        )
        return rng.sample(known, min(n, len(known)))

    def target(self, stage: str, item: str) -> int:
        """How many answers ``item`` needs in ``stage`` (the extra raters once the first round shows no label
        with ``min_votes`` votes)."""
        overlap = self.protocol.overlap
        key = (stage, item)
        if overlap.extra and self.state.answered[key] >= overlap.per_item:
            top = max(self.state.votes[key].values(), default=0)
            return overlap.per_item + (overlap.extra if top < overlap.min_votes else 0)
        return overlap.per_item

    def page_view(self, page: Page) -> dict[str, Any]:
        """A page as its annotator sees it: positions, texts and contexts; never item ids or which are controls."""
        items = [
            {"position": i, "text": self.items[item].text, "context": list(self.items[item].context)}
            for i, item in enumerate(page.items)
        ]
        return {"page": page.id, "stage": page.stage, "expires_at": page.expires_at, "items": items}

    def submit(self, annotator: AnnotatorState, page_id: str, raw: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Record a page's answers, the control results and whatever the rules then do; the annotator's standing."""
        with self.lock:
            now = self.clock()
            page = self.state.pages.get(page_id)
            if page is None or page.annotator != annotator.name:
                raise CollectionError("no such page", 404)
            if page.submitted_at is not None:
                raise CollectionError("this page was already submitted", 409)
            if now >= page.expires_at:
                raise CollectionError("this page's reservation expired; ask for a new page", 409)
            self._check_blocked(annotator)
            answers = checked_answers(self.protocol, self.stages[page.stage], raw, len(page.items))
            self._append(self._submission(page, answers), now)
            self._append(self._rule_actions(annotator, now), now)
        return self.me(annotator)

    def _submission(self, page: Page, answers: list[dict[str, Any]]) -> list[tuple[str, str | None, Mapping[str, Any]]]:
        records = [
            {"item": page.items[answer["position"]], **{k: v for k, v in answer.items() if k != "position"}}
            for answer in answers
        ]
        kind = "skipped" if all(answer["skip"] for answer in records) else "submitted"
        entries: list[tuple[str, str | None, Mapping[str, Any]]] = [
            (kind, page.annotator, {"page": page.id, "answers": records})
        ]
        stage = self.stages[page.stage]
        for answer in records:
            if answer["flag"] is not None:
                entries.append(("flagged", page.annotator, {"page": page.id, "item": answer["item"],
                                                            "flag": answer["flag"]}))  # fmt: skip
            if answer["item"] in page.controls and not answer["skip"]:
                known = {lb: v for (it, lb), v in self.gold.items() if it == answer["item"] and lb in stage.labels}
                correct = presence_matches(answer["labels"], known)
                entries.append(("control-result", page.annotator, {"page": page.id, "item": answer["item"],
                                                                   "correct": correct}))  # fmt: skip
        return entries

    def _rule_actions(self, annotator: AnnotatorState, now: float) -> list[tuple[str, str | None, Mapping[str, Any]]]:
        entries: list[tuple[str, str | None, Mapping[str, Any]]] = []
        for rule in fired_rules(self.protocol.rules, annotator.pages, annotator.marks):
            then = rule.then
            if then.ban is not None:
                until = None if then.ban == "permanent" else now + duration_seconds(then.ban)
                entries.append(("banned", annotator.name, {"rule": rule.name, "until": until}))
            elif then.pause is not None:
                entries.append(
                    ("paused", annotator.name, {"rule": rule.name, "until": now + duration_seconds(then.pause)})
                )
            else:
                entries.append(("retrain", annotator.name, {"rule": rule.name}))
        return entries

    # -- what the owner does ---------------------------------------------------------------------------------------

    def open_stage(self, stage_name: str) -> dict[str, Any]:
        """Open a gated stage: it receives the items that pass its gate (:meth:`Protocol.passes_gate`) by their
        aggregated labels in the gate's stage (items that have all their answers there); opening again adds the
        items done since."""
        from affectlab.collection.reports import stage_aggregation

        stage = self.stage(stage_name)
        if stage.gate is None:
            raise CollectionError(f"stage {stage_name!r} has no gate: it is open from the start", 409)
        source = self.stages[stage.gate.after]
        aggregation = stage_aggregation(self, source.name, complete_only=True)  # the fit runs outside the lock
        if aggregation is None:
            raise CollectionError(f"no item of stage {source.name!r} has all its answers yet", 409)
        items = [str(row.item) for row in aggregation.items.itertuples()
                 if self.protocol.passes_gate(stage, set(row.labels))]  # fmt: skip
        with self.lock:
            self._append([("stage-opened", None, {"stage": stage.name, "items": items})], self.clock())
            self._complete_before.pop(stage.name, None)  # a new list of items: scan it from its start
        return {"stage": stage.name, "items": len(items), "from": source.name, "aggregated": len(aggregation.items)}

    def complete(self, stage: str, item: str) -> bool:
        """Whether ``item`` has all the answers it needs in ``stage``."""
        return self.state.answered[(stage, item)] >= self.target(stage, item)

    def median_seconds(self, annotator: AnnotatorState) -> float | None:
        """The median seconds per answered page of ``annotator``."""
        seconds = [page.seconds for page in annotator.pages if not page.skipped]
        return statistics.median(seconds) if seconds else None


def failed_in_a_row(annotator: AnnotatorState, stage: str) -> int:
    """How many times ``annotator`` has failed the exam of ``stage`` since they last passed it (or ever)."""
    taken = [exam["passed"] for exam in annotator.exams if exam["stage"] == stage]
    return len(taken) - (max(i for i, passed in enumerate(taken) if passed) + 1 if any(taken) else 0)


def create_project(
    path: str, protocol_text: str, items: Sequence[Item], gold: Mapping[tuple[str, str], float],
    seed: int = 0, reservation: str = DEFAULT_RESERVATION, clock: Clock = time.time,
) -> tuple[Project, str]:  # fmt: skip
    """A new project file at ``path`` and its owner token (shown once; only its hash is kept). The first stages
    (those without a gate) open at once with every item that is not a control task."""
    import yaml

    from affectlab.errors import InputError

    protocol = protocol_from_data(yaml.safe_load(protocol_text), "the protocol")
    ids = [item.id for item in items]
    if len(set(ids)) != len(ids):
        raise InputError("the items have a repeated id")
    unknown = sorted({item for item, _ in gold} - set(ids))
    if unknown:
        raise InputError(f"control task {unknown[0]!r} is not among the items")
    known = {choice.name for choice in protocol.labels}
    off_protocol = sorted({label for _, label in gold} - known)
    if off_protocol:
        raise InputError(f"control answers name {off_protocol[0]!r}, which is not a label of the protocol")
    held = duration_seconds(reservation)
    if held < MIN_RESERVATION_SECONDS:
        raise InputError(f"--reservation must hold a page at least {MIN_RESERVATION_SECONDS // 60} minute, not "
                         f"{reservation!r} (each page would expire before it is sent back)")  # fmt: skip
    controls = {item for item, _ in gold}
    items = [Item(it.id, it.text, it.context, it.id in controls) for it in items]
    token = new_token()
    meta = {"protocol": protocol_text, "seed": str(seed), "owner_token_hash": token_hash(token),
            "reservation_seconds": str(held), "created_at": str(clock())}  # fmt: skip
    log = EventLog.create(path, meta, items, gold)
    project = Project(log, clock)
    ordinary = [item.id for item in items if not item.control]
    opened = [("stage-opened", None, {"stage": stage.name, "items": ordinary}) for stage in protocol.stages
              if stage.gate is None]  # fmt: skip
    project._append(opened, clock())
    return project, token
