"""Who gets which items next (issue 53): the one place that decides a page's contents from the state, kept apart
from the project's requests as Label Studio keeps ``next_task`` and doccano its assignment strategies.

**Overlap is exact.** A page reserves its items until it is submitted or its reservation expires (then the items go
back to the pool). An item is issued only while its answers plus live reservations are below its target:
``overlap.per_item``, plus ``overlap.extra`` once the first round is in and no label has ``overlap.min_votes``
votes. No annotator is issued an item twice in a stage, not even after a page of theirs expired.

**Control tasks** are items the owner gave known answers for: each place on a page holds one with probability
``controls.share`` (drawn from the annotator's unseen control tasks of the stage); nothing an annotator receives
says which they are. The draw is seeded by the project's seed, the annotator, the stage and their page count, so a
replayed log issues the same pages.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping

from affectlab.annotation.protocol import Protocol, Stage
from affectlab.collection.events import Issued
from affectlab.collection.state import AnnotatorState, CollectionState


class Scheduler:
    """The items each page gets, for one project's ``protocol``, control answers ``gold`` and ``seed``."""

    def __init__(self, protocol: Protocol, gold: Mapping[tuple[str, str], float], seed: int) -> None:
        self.protocol = protocol
        self.gold = gold
        self.seed = seed
        self._complete_before: dict[str, int] = {}
        """Per stage, how many of its first items are known to be complete (where :meth:`_free_items` starts)."""

    def target(self, state: CollectionState, stage: str, item: str) -> int:
        """How many answers ``item`` needs in ``stage`` (the extra raters once the first round shows no label
        with ``min_votes`` votes)."""
        overlap = self.protocol.overlap
        key = (stage, item)
        if overlap.extra and state.answered[key] >= overlap.per_item:
            top = max(state.votes[key].values(), default=0)
            return overlap.per_item + (overlap.extra if top < overlap.min_votes else 0)
        return overlap.per_item

    def complete(self, state: CollectionState, stage: str, item: str) -> bool:
        """Whether ``item`` has all the answers it needs in ``stage``."""
        return state.answered[(stage, item)] >= self.target(state, stage, item)

    def stage_reopened(self, stage: str) -> None:
        """Forget what is known of ``stage``'s items: it has a new list (scanned from its start)."""
        self._complete_before.pop(stage, None)

    def next_page(
        self, state: CollectionState, annotator: AnnotatorState, stage: Stage, now: float, reservation: float
    ) -> Issued | None:
        """The ``issued`` event of the annotator's next page of ``stage`` (its items, control tasks among them, in
        page order, reserved for ``reservation`` seconds), or None when no item is left for them."""
        rng = random.Random(f"{self.seed}:{annotator.name}:{stage.name}:{len(annotator.pages)}")
        share = self.protocol.controls.share if self.protocol.controls else 0.0
        n_controls = sum(rng.random() < share for _ in range(self.protocol.page_size))
        controls = self._free_controls(annotator, stage, n_controls, rng)
        items = self._free_items(state, annotator, stage, self.protocol.page_size - len(controls), now)
        if not items:
            return None
        order = items + controls
        rng.shuffle(order)
        return Issued(secrets.token_urlsafe(12), stage.name, tuple(order), tuple(controls), now + reservation)

    def _free_items(
        self, state: CollectionState, annotator: AnnotatorState, stage: Stage, n: int, now: float
    ) -> list[str]:
        """The first ``n`` items of the stage the annotator has not seen and that need more answers than they have
        and hold; the scan starts past the items known to be complete (a complete item stays complete: answers
        only grow, and its target only grows while its first round is short of votes)."""
        chosen: list[str] = []
        items = state.stage_items[stage.name]
        start = self._complete_before.get(stage.name, 0)
        while start < len(items) and self.complete(state, stage.name, items[start]):
            start += 1
        self._complete_before[stage.name] = start
        # the scan passes every item in progress (reserved by the pages out) for every page asked for: under 200
        # annotators at once it was a third of the service's time, so the cheap tests come first. An item below
        # its first round's answers needs per_item (no call to target), and one below it even counting every page
        # that holds it, expired or not, is free without reading their expiry.
        per_item = self.protocol.overlap.per_item
        for item in items[start:]:
            if len(chosen) == n:
                break
            key = (stage.name, item)
            if key in annotator.seen:
                continue
            answered, holding = state.answered[key], state.reservations.get(key, ())
            if answered + len(holding) < per_item:
                chosen.append(item)
                continue
            target = per_item if answered < per_item else self.target(state, stage.name, item)
            if answered < target and answered + state.reserved(stage.name, item, now) < target:
                chosen.append(item)
        return chosen

    def _free_controls(self, annotator: AnnotatorState, stage: Stage, n: int, rng: random.Random) -> list[str]:
        if n == 0:
            return []
        known = sorted(
            {item for item, label in self.gold if label in stage.labels and (stage.name, item) not in annotator.seen}
        )
        return rng.sample(known, min(n, len(known)))
