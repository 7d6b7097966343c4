"""What a submitted page becomes: the events it appends (its answers, flags and control results) and those the
quality rules then add (bans, pauses, retraining), computed from the state without changing it; the project
appends them in one transaction."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from affectlab.annotation.protocol import Protocol, duration_seconds
from affectlab.collection.answers import presence_matches
from affectlab.collection.rules import Page, fired_rules
from affectlab.collection.state import AnnotatorState

Entry = tuple[str, str | None, Mapping[str, Any]]
"""An event to append: its kind, the annotator it concerns (None: the owner's) and its data."""


def submission_events(
    protocol: Protocol, gold: Mapping[tuple[str, str], float], page: Page, answers: list[dict[str, Any]]
) -> list[Entry]:
    """The events of ``page``'s checked ``answers``: ``submitted`` (or ``skipped`` when every answer is a skip),
    a ``flagged`` per flag and a ``control-result`` per answered control task."""
    records = [
        {"item": page.items[answer["position"]], **{k: v for k, v in answer.items() if k != "position"}}
        for answer in answers
    ]
    kind = "skipped" if all(answer["skip"] for answer in records) else "submitted"
    entries: list[Entry] = [(kind, page.annotator, {"page": page.id, "answers": records})]
    stage = next(s for s in protocol.stages if s.name == page.stage)
    for answer in records:
        if answer["flag"] is not None:
            entries.append(("flagged", page.annotator, {"page": page.id, "item": answer["item"],
                                                        "flag": answer["flag"]}))  # fmt: skip
        if answer["item"] in page.controls and not answer["skip"]:
            known = {lb: v for (it, lb), v in gold.items() if it == answer["item"] and lb in stage.labels}
            correct = presence_matches(answer["labels"], known)
            entries.append(("control-result", page.annotator, {"page": page.id, "item": answer["item"],
                                                               "correct": correct}))  # fmt: skip
    return entries


def rule_events(protocol: Protocol, annotator: AnnotatorState, now: float) -> list[Entry]:
    """The actions of the protocol's rules that fire on the annotator's pages at ``now``."""
    entries: list[Entry] = []
    for rule in fired_rules(protocol.rules, annotator.pages, annotator.marks):
        then = rule.then
        if then.ban is not None:
            until = None if then.ban == "permanent" else now + duration_seconds(then.ban)
            entries.append(("banned", annotator.name, {"rule": rule.name, "until": until}))
        elif then.pause is not None:
            entries.append(("paused", annotator.name, {"rule": rule.name, "until": now + duration_seconds(then.pause)}))
        else:
            entries.append(("retrain", annotator.name, {"rule": rule.name}))
    return entries
