"""Reads of a project as views of its state: :class:`ProjectView` (what every report, the export and the pages read,
through :meth:`~affectlab.collection.project.Project.view`, never the project itself), and what annotators are
shown: their own standing and their pages (positions, texts and contexts: never item ids, which are control tasks,
or anyone's answers)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from affectlab.annotation.protocol import Protocol, Stage
from affectlab.collection.log import Item
from affectlab.collection.rules import Page
from affectlab.collection.state import AnnotatorState, CollectionState


@dataclass(frozen=True)
class ProjectView:
    """A project as its read views see it, under the project's lock: the protocol, items, control answers, the
    state, the server's time and whether an item has all its answers in a stage."""

    protocol: Protocol
    items: Mapping[str, Item]
    gold: Mapping[tuple[str, str], float]
    state: CollectionState
    now: float
    complete: Callable[[str, str], bool]

    def stage(self, name: str) -> Stage:
        """The stage ``name`` of the protocol."""
        return next(stage for stage in self.protocol.stages if stage.name == name)


def standing(protocol: Protocol, state: CollectionState, annotator: AnnotatorState, now: float) -> dict[str, Any]:
    """What an annotator may know of their own standing: status, until when, pages, and per stage whether it is
    open and what they must do first."""
    blocked = annotator.blocked(now)
    return {
        "name": annotator.name,
        "status": "retrain" if annotator.retrain else (blocked[0] if blocked else "active"),
        "until": blocked[1] if blocked else None,
        "pages": len(annotator.pages),
        "stages": [_stage_view(state, annotator, stage) for stage in protocol.stages],
    }


def _stage_view(state: CollectionState, annotator: AnnotatorState, stage: Stage) -> dict[str, Any]:
    needs = None
    if stage.exam is not None and stage.name not in annotator.passed:
        needs = "training" if stage.training is not None and stage.name not in annotator.trained else "exam"
    return {"name": stage.name, "labels": stage.labels, "open": stage.name in state.stage_items, "needs": needs}


def page_view(items: Mapping[str, Item], page: Page) -> dict[str, Any]:
    """A page as its annotator sees it: positions, texts and contexts."""
    shown = [
        {"position": i, "text": items[item].text, "context": list(items[item].context)}
        for i, item in enumerate(page.items)
    ]
    return {"page": page.id, "stage": page.stage, "expires_at": page.expires_at, "items": shown}
