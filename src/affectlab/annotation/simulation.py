"""Simulated annotators: crowds whose truth is known, to check aggregation and quality rules before real people
label anything (issue 44).

Each :class:`SimulatedAnnotator` answers a multi-label question (which of ``labels`` a text holds) from the item's
true labels, by its behaviour:

* ``diligent``: reads the text; misses a present label with probability ``1 - sensitivity`` and adds an absent one
  with probability ``1 - specificity``;
* ``fast-clicker``: answers without reading: each label at random with probability ``click_rate``;
* ``skipper``: skips most pages (``skip_rate``), answers the rest diligently;
* ``control-failer``: diligent on ordinary items, at random on control items (an annotator who games the checks
  fails them as often as a clicker);
* ``copier``: gives the answer of the annotator it copies when that one answered the item, else clicks at random.

:func:`simulate_ratings` draws a crowd's ratings over items, as a long table that :mod:`.readers` reads like any
ratings file.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from affectlab.errors import InputError

BEHAVIOURS = ("diligent", "fast-clicker", "skipper", "control-failer", "copier")


@dataclass(frozen=True)
class SimulatedAnnotator:
    """One simulated annotator: its id, behaviour and rates (``copies``: the id a copier copies)."""

    name: str
    behaviour: str = "diligent"
    sensitivity: float = 0.8
    specificity: float = 0.95
    click_rate: float = 0.5
    skip_rate: float = 0.8
    copies: str | None = None

    def __post_init__(self) -> None:
        if self.behaviour not in BEHAVIOURS:
            raise InputError(f"unknown annotator behaviour {self.behaviour!r} (known: {', '.join(BEHAVIOURS)})")
        if self.behaviour == "copier" and not self.copies:
            raise InputError(f"the copier {self.name!r} needs the id of the annotator it copies")

    def answer(
        self, truth: frozenset[str], labels: Sequence[str], rng: random.Random, control: bool = False,
        seen: Mapping[str, frozenset[str]] | None = None,
    ) -> frozenset[str] | None:  # fmt: skip
        """The labels this annotator gives an item whose true labels are ``truth`` (None: skipped); ``seen``: the
        answers already given to the item, by annotator id (what a copier copies)."""
        behaviour = self.behaviour
        if behaviour == "skipper" and rng.random() < self.skip_rate:
            return None
        if behaviour == "copier" and seen and self.copies is not None and self.copies in seen:
            return seen[self.copies]
        if behaviour in ("fast-clicker", "copier") or (behaviour == "control-failer" and control):
            return frozenset(label for label in labels if rng.random() < self.click_rate)
        return frozenset(
            label for label in labels
            if (rng.random() < self.sensitivity if label in truth else rng.random() >= self.specificity)
        )  # fmt: skip


def simulate_ratings(
    truth: Mapping[str, frozenset[str]], labels: Sequence[str], annotators: Sequence[SimulatedAnnotator],
    per_item: int, controls: frozenset[str] = frozenset(), seed: int = 0,
) -> pd.DataFrame:  # fmt: skip
    """Long ratings (``item``, ``annotator``, ``label``, ``value`` 0/1) of ``per_item`` annotators drawn for each
    item of ``truth`` (its true labels), copied annotators drawn before their copiers; ``controls``: the items
    that are control tasks. A skipped item is not rated by that annotator."""
    if not 0 < per_item <= len(annotators):
        raise InputError(f"per_item must be between 1 and the {len(annotators)} annotators, not {per_item}")
    rng = random.Random(seed)
    rows = []
    for item, true_labels in truth.items():
        chosen = rng.sample(list(annotators), per_item)
        chosen.sort(key=lambda a: a.behaviour == "copier")
        seen: dict[str, frozenset[str]] = {}
        for annotator in chosen:
            answer = annotator.answer(true_labels, labels, rng, control=item in controls, seen=seen)
            if answer is None:
                continue
            seen[annotator.name] = answer
            rows += [(item, annotator.name, label, float(label in answer)) for label in labels]
    return pd.DataFrame(rows, columns=["item", "annotator", "label", "value"])
