"""A project's state, derived from its event log alone (:mod:`.log`): replaying the same events always gives the
same state, which is how a restarted server (after ``kill -9`` too) finds every page, answer, ban and pause.

The events are typed records (:mod:`.events`), each applying itself to this state.
"""

from __future__ import annotations

from affectlab.collection.events import decode
from affectlab.collection.log import Event
from affectlab.collection.records import AnnotatorState, Answer, StateRecords

__all__ = ["AnnotatorState", "Answer", "CollectionState"]


class CollectionState(StateRecords):
    """Every annotator, page, answer and open stage, built by :meth:`apply` over the log's events in order."""

    def apply(self, event: Event) -> None:
        """Change the state by one event (its typed record applies itself: :mod:`.events`)."""
        self.last_seq = event.seq
        decode(event.kind, event.data).apply(self, event.at, event.annotator)
