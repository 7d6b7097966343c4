"""What a submitted page becomes: the events it appends (its answers, flags and control results) and those the
quality rules then add (bans, pauses, retraining) over the annotator's pages with this one as it will be, computed
from the state without changing it, so that the project appends them all in one transaction."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from affectlab.annotation.protocol import Protocol, duration_seconds
from affectlab.collection.answers import presence_matches
from affectlab.collection.events import (
    AnswerRecord,
    Banned,
    ControlResult,
    Entry,
    Flagged,
    Paused,
    Retrain,
    Skipped,
    Submitted,
)
from affectlab.collection.records import StateRecords
from affectlab.collection.rules import AnswersOf, Choice, ItemChoices, Page, fired_rules
from affectlab.collection.state import AnnotatorState


def submission_events(
    protocol: Protocol, gold: Mapping[tuple[str, str], float], page: Page, answers: list[dict[str, Any]]
) -> list[Entry]:
    """The events of ``page``'s checked ``answers``: ``submitted`` (or ``skipped`` when every answer is a skip),
    a ``flagged`` per flag and a ``control-result`` per answered control task."""
    records = tuple(
        AnswerRecord(page.items[a["position"]], a["labels"], a["none"], a["skip"], a["flag"], a.get("other", False))
        for a in answers
    )
    kind = Skipped if all(answer.skip for answer in records) else Submitted
    entries: list[Entry] = [(page.annotator, kind(page.id, records))]
    stage = next(s for s in protocol.stages if s.name == page.stage)
    for answer in records:
        if answer.flag is not None:
            entries.append((page.annotator, Flagged(page.id, answer.item, answer.flag)))
        if answer.item in page.controls and not answer.skip:
            known = {lb: v for (it, lb), v in gold.items() if it == answer.item and lb in stage.labels}
            correct = presence_matches(answer.labels, known)
            entries.append((page.annotator, ControlResult(page.id, answer.item, correct)))
    return entries


def submitted_page(page: Page, entries: list[Entry], now: float) -> Page:
    """``page`` as it will be once its submission ``entries`` are applied at ``now`` (what the rules read, so that
    a submission and the rules' actions are appended in one transaction)."""
    results = [record.correct for _, record in entries if isinstance(record, ControlResult)]
    skipped = isinstance(entries[0][1], Skipped)
    return dataclasses.replace(page, submitted_at=now, skipped=skipped, control_results=[*page.control_results,
                                                                                          *results])  # fmt: skip


def answers_read(state: StateRecords, page: Page, entries: list[Entry]) -> AnswersOf:
    """What each of the annotator's pages chose, beside the earlier answers of others to the same items, with
    ``page`` read from its submission ``entries`` (not yet in ``state``). Only the answers of annotators in good
    standing when the annotator answered count (:meth:`~affectlab.collection.records.AnnotatorState.stopped_before`):
    a stopped annotator's answers are no evidence of what a text says (issue 53: a colluder copies the first good
    answer, which a fast clicker's answer before its ban often preceded)."""
    submitted = [r for _, r in entries if isinstance(r, Submitted)]
    new_answers = [(a.item, _choice(a.labels, a.other), math.inf) for r in submitted for a in r.answers if not a.skip]

    def read(page_id: str) -> list[ItemChoices]:
        own = new_answers if page_id == page.id else [
            (a.item, _choice(a.labels, a.other), a.at) for a in state.page_answers[page_id] if not a.skip
        ]  # fmt: skip
        stage = state.pages[page_id].stage
        return [
            (choice, [(b.annotator, _choice(b.labels, b.other)) for b in state.item_answers[(stage, item)]
                      if b.at < at and not b.skip and b.annotator != page.annotator
                      and not state.annotators[b.annotator].stopped_before(at)])
            for item, choice, at in own
        ]  # fmt: skip

    return read


def _choice(labels: Mapping[str, float], other: bool) -> Choice:
    return frozenset(label for label, value in labels.items() if value > 0), other


def rule_events(
    protocol: Protocol, annotator: AnnotatorState, pages: list[Page], now: float, answers_of: AnswersOf | None = None
) -> list[Entry]:
    """The actions of the protocol's rules that fire on ``pages`` (the annotator's, the one being submitted
    last) at ``now``; ``answers_of``: what the pages' answers chose (:func:`answers_read`)."""
    entries: list[Entry] = []
    for rule in fired_rules(protocol.rules, pages, annotator.marks, answers_of):
        then = rule.then
        if then.ban is not None:
            until = None if then.ban == "permanent" else now + duration_seconds(then.ban)
            entries.append((annotator.name, Banned(rule.name, until)))
        elif then.pause is not None:
            entries.append((annotator.name, Paused(rule.name, now + duration_seconds(then.pause))))
        else:
            entries.append((annotator.name, Retrain(rule.name)))
    return entries
