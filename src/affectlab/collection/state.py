"""A project's state, derived from its event log alone (:mod:`.log`): replaying the same events always gives the
same state, which is how a restarted server (after ``kill -9`` too) finds every page, answer, ban and pause.

The events are typed records (:mod:`.events`), each applying itself to this state.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from affectlab.collection.events import decode
from affectlab.collection.log import Event
from affectlab.collection.records import AnnotatorState, Answer
from affectlab.collection.rules import Page

__all__ = ["AnnotatorState", "Answer", "CollectionState"]


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
        """Change the state by one event (its typed record applies itself: :mod:`.events`)."""
        self.last_seq = event.seq
        decode(event.kind, event.data).apply(self, event.at, event.annotator)

    def reserved(self, stage: str, item: str, now: float) -> int:
        """Pages holding ``item`` of ``stage`` at ``now`` (issued, not submitted, not expired)."""
        return sum(self.pages[page].reserves(now) for page in self.reservations.get((stage, item), ()))
