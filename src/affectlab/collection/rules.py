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
  below ``A`` (a window without a control task never fires);
* ``agreement_with_one {at_least: S, min_shared: N}`` (ours: copying): over the window's *answered* pages, some one
  other annotator who answered the same items *before* gave the same choice on at least ``S`` of the ``N`` or more
  items the two share, items both called "no emotion" left out. Only earlier answers count, so the annotator who is
  copied is never the one stopped;
* ``agreement_with_first {at_least: S, min_shared: N}`` (ours: copying whatever answer a text has): the same, with
  each item's first earlier answer in place of one annotator's;
* ``agreement_with_others {below: S, min_shared: N}`` (ours: guessing): over the same pairs, pooled over every
  earlier annotator, the share of the same choice is below ``S`` (``N`` pairs or more).

Skipped pages count in neither the speed nor the control rule: skipping is fast by nature and has its own rule. The
three agreement conditions read only the earlier answers of annotators in good standing when the answer was given
(:func:`affectlab.collection.submission.answers_read`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from affectlab.annotation.protocol import (
    AgreementWithFirst,
    AgreementWithOne,
    AgreementWithOthers,
    Rule,
    duration_seconds,
)

Choice = tuple[frozenset[str], bool]
"""What an answer chose: its labels and whether it was the protocol's "other" choice (no label and not other:
"no emotion")."""
NO_EMOTION: Choice = (frozenset(), False)
ItemChoices = tuple[Choice, Sequence[tuple[str, Choice]]]
"""One answered item of a page: the annotator's choice, and each earlier one of other annotators (name, choice)."""
AnswersOf = Callable[[str], Sequence[ItemChoices]]
"""A page's answered items (not skipped) by page id, each beside the earlier answers of others."""


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


def fired_rules(
    rules: Sequence[Rule], pages: Sequence[Page], marks: Mapping[str, int], answers_of: AnswersOf | None = None
) -> list[Rule]:
    """The rules that fire on ``pages`` (an annotator's submitted pages, oldest first); ``marks``: for each rule
    that fired before, how many pages the annotator had submitted then; ``answers_of``: what each page's answers
    chose (the agreement rule's reading; without it that rule never fires)."""
    return [rule for rule in rules if _holds(rule, pages[marks.get(rule.name, 0) :], answers_of)]


def _holds(rule: Rule, pages: Sequence[Page], answers_of: AnswersOf | None = None) -> bool:
    when = rule.when
    agreement = when.agreement_with_one or when.agreement_with_first or when.agreement_with_others
    answered_only = (when.each_page_faster_than, when.control_accuracy_below, agreement)
    if any(condition is not None for condition in answered_only):
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
    if agreement is not None and answers_of is not None:
        items = [item for page in window for item in answers_of(page.id)]
        if when.agreement_with_first is not None:
            return copies_first(items, when.agreement_with_first)
        if when.agreement_with_one is not None:
            return copies_one(items, when.agreement_with_one)
        if when.agreement_with_others is not None:
            return guesses(items, when.agreement_with_others)
    return False


def _pair_counts(items: Sequence[ItemChoices]) -> tuple[Counter[str], Counter[str]]:
    """Per earlier annotator: the items shared with them and those with the same choice (both "no emotion": left
    out, since agreeing on nothing shows nothing)."""
    shared: Counter[str] = Counter()
    same: Counter[str] = Counter()
    for own, earlier in items:
        for other, choice in earlier:
            if own == NO_EMOTION and choice == NO_EMOTION:
                continue
            shared[other] += 1
            same[other] += own == choice
    return shared, same


def copies_one(items: Sequence[ItemChoices], condition: AgreementWithOne) -> bool:
    """Whether, over ``items``, the annotator gave the same choice as some one earlier annotator on at least
    ``condition.at_least`` of the ``condition.min_shared`` or more items the two share. Counted by hand: a pairwise
    count over a window of a few dozen items needs no library."""
    shared, same = _pair_counts(items)
    return any(n >= condition.min_shared and same[other] / n >= condition.at_least for other, n in shared.items())


def copies_first(items: Sequence[ItemChoices], condition: AgreementWithFirst) -> bool:
    """Whether, over ``items`` with an earlier answer, the annotator gave the same choice as each item's first
    answer by someone else on at least ``condition.at_least`` of them (``condition.min_shared`` or more)."""
    firsts = [(own, earlier[0][1]) for own, earlier in items if earlier]
    shared = [own == first for own, first in firsts if not (own == NO_EMOTION and first == NO_EMOTION)]
    return len(shared) >= condition.min_shared and sum(shared) / len(shared) >= condition.at_least


def guesses(items: Sequence[ItemChoices], condition: AgreementWithOthers) -> bool:
    """Whether, over ``items``, the annotator's choices match the earlier annotators' on fewer than
    ``condition.below`` of the pairs (``condition.min_shared`` pairs or more)."""
    shared, same = _pair_counts(items)
    pairs = sum(shared.values())
    return pairs >= condition.min_shared and sum(same.values()) / pairs < condition.below
