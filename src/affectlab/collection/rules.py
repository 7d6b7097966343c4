"""The quality rules of a protocol (:class:`~affectlab.annotation.protocol.Rule`), measured on an annotator's pages
with the server's times.

A rule looks at the pages submitted since it last fired for that annotator (so a one-day ban for three skipped
pages needs three new skipped pages to fire again), and only once it has a full ``window`` of them:

* ``each_page_faster_than D``: every page of the window was *answered* (not skipped) in under ``D``, from the
  moment the server issued it to the moment it received the answers;
* ``all_skipped``: every page of the window was skipped;
* ``without_break D``: no gap of ``D`` or more between one page's submission and the next one's issue, over the
  window;
* ``control_accuracy_below A``: over the window's *answered* pages, the share of control tasks answered right is
  below ``A`` (a window without a control task never fires).

Skipped pages count in neither the speed nor the control rule: skipping is fast by nature and has its own rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from affectlab.annotation.protocol import Rule, duration_seconds


@dataclass
class Page:
    """A page issued to an annotator: its items (``controls`` among them: the owner's knowledge only), server
    times, and once submitted whether it was skipped and how its control tasks were answered."""

    id: str
    annotator: str
    stage: str
    items: tuple[str, ...]
    controls: frozenset[str]
    issued_at: float
    expires_at: float
    submitted_at: float | None = None
    skipped: bool = False
    control_results: list[bool] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        """Seconds from issue to submission (server time)."""
        return (self.submitted_at or self.issued_at) - self.issued_at

    def reserves(self, now: float) -> bool:
        """Whether the page still holds its items: issued, not submitted, not expired at ``now``."""
        return self.submitted_at is None and now < self.expires_at


def fired_rules(rules: Sequence[Rule], pages: Sequence[Page], marks: Mapping[str, int]) -> list[Rule]:
    """The rules that fire on ``pages`` (an annotator's submitted pages, oldest first); ``marks``: for each rule
    that fired before, how many pages the annotator had submitted then."""
    return [rule for rule in rules if _holds(rule, pages[marks.get(rule.name, 0) :])]


def _holds(rule: Rule, pages: Sequence[Page]) -> bool:
    when = rule.when
    if when.each_page_faster_than is not None or when.control_accuracy_below is not None:
        pages = [page for page in pages if not page.skipped]
    if len(pages) < rule.window:
        return False
    window = pages[-rule.window :]
    if when.each_page_faster_than is not None:
        limit = duration_seconds(when.each_page_faster_than)
        return all(page.seconds < limit for page in window)
    if when.all_skipped:
        return all(page.skipped for page in window)
    if when.without_break is not None:
        limit = duration_seconds(when.without_break)
        return all(after.issued_at - (before.submitted_at or 0.0) < limit for before, after in pairwise(window))
    if when.control_accuracy_below is not None:
        results = [correct for page in window for correct in page.control_results]
        return bool(results) and sum(results) / len(results) < when.control_accuracy_below
    return False
