"""A dataset described as data: name, label space, primary metric, languages, source, license, citation."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from affectlab.labels import LabelSpace
from affectlab.metrics.registry import INTENSITY_METRIC_NAMES, PRIMARY_METRIC_NAMES


@dataclass(frozen=True)
class DatasetSpec:
    """What a dataset is and how to load it.

    ``primary_metric`` is the score its paper ranks by: one of the primary metrics of
    :data:`affectlab.metrics.registry.METRICS` (their records say how each averages and where it comes from); for
    intensity data ``pearson_intensity`` (track B: each row's ``meta["intensity"]`` rates its emotions 0-3).
    ``loader(data_dir)`` returns a ``datasets.DatasetDict`` with the standard columns.
    """

    name: str
    title: str
    label_space: LabelSpace
    primary_metric: str
    languages: tuple[str, ...]
    splits: tuple[str, ...]
    loader: Callable[[str | os.PathLike[str] | None], Any]
    source: str
    license: str
    citation: str
    notes: str = ""

    def __post_init__(self) -> None:
        if self.primary_metric not in (*PRIMARY_METRIC_NAMES, *INTENSITY_METRIC_NAMES):
            raise ValueError(f"unknown primary metric {self.primary_metric!r}")

    @property
    def rates_intensity(self) -> bool:
        """Whether the dataset's gold is intensities (track B), scored by Pearson's r."""
        return self.primary_metric in INTENSITY_METRIC_NAMES

    def load(self, data_dir: str | os.PathLike[str] | None = None) -> Any:
        """Load all splits as a ``datasets.DatasetDict``."""
        return self.loader(data_dir)

    def describe(self) -> dict[str, Any]:
        """A JSON-ready summary (used by ``affectlab datasets show``)."""
        return {
            "name": self.name,
            "title": self.title,
            "label_space": self.label_space.name,
            "labels": list(self.label_space.labels),
            "multi_label": self.label_space.multi_label,
            "primary_metric": self.primary_metric,
            "languages": list(self.languages),
            "splits": list(self.splits),
            "source": self.source,
            "license": self.license,
            "citation": self.citation,
            "notes": self.notes,
        }
