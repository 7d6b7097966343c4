"""Crowd annotation: read per-annotator ratings, measure agreement, aggregate labels, compare with released ones.

>>> from affectlab.annotation import aggregate, agreement_report, binarize, compare, read_wide
>>> ratings = read_wide("ukr_individuals.csv", "text_id", "emotion", text_col="text")  # doctest: +SKIP
>>> agreement_report(binarize(ratings))["overall"]["krippendorff_alpha"]  # doctest: +SKIP
0.4588
>>> labels = aggregate(binarize(ratings), "dawid-skene", min_confidence=0.9)  # doctest: +SKIP
>>> labels.share_passing  # doctest: +SKIP
0.5922
>>> compare(labels, ["train/ukr.csv", "dev/ukr.csv", "test/ukr.csv"])["per_label"]["Joy"]  # doctest: +SKIP
>>> write_aggregation(labels, "ukr_aggregated.csv")  # doctest: +SKIP

Aggregation needs crowd-kit and alpha needs krippendorff (``pip install affectlab[annotate]``); both are
imported only when used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # mypy and editors see the real names; at run time __getattr__ imports them when first asked
    from affectlab.annotation.aggregation import METHODS, Aggregation, aggregate
    from affectlab.annotation.agreement import (
        STATISTICS,
        UndefinedStatisticError,
        agreement_report,
        fleiss_kappa,
        interrater_correlation,
        krippendorff_alpha,
        mean_pairwise_cohen_kappa,
        rating_matrix,
    )
    from affectlab.annotation.comparison import ALIASES, compare, normalize_text
    from affectlab.annotation.files import read_aggregation, write_aggregation
    from affectlab.annotation.jobs import aggregate_ratings, write_report
    from affectlab.annotation.readers import (
        LAYOUTS,
        LEVELS,
        Annotations,
        Level,
        RatingsSource,
        binarize,
        guess_layout,
        read_controls,
        read_long,
        read_ratings,
        read_wide,
    )

_MODULES = {
    "aggregation": ("METHODS", "Aggregation", "aggregate"),
    "agreement": ("STATISTICS", "UndefinedStatisticError", "agreement_report", "fleiss_kappa",
                  "interrater_correlation", "krippendorff_alpha", "mean_pairwise_cohen_kappa", "rating_matrix"),
    "comparison": ("ALIASES", "compare", "normalize_text"),
    "files": ("read_aggregation", "write_aggregation"),
    "jobs": ("aggregate_ratings", "write_report"),
    "readers": ("LAYOUTS", "LEVELS", "Annotations", "Level", "RatingsSource", "binarize", "guess_layout",
                "read_controls", "read_long", "read_ratings", "read_wide"),
}  # fmt: skip
_HOME = {name: f"affectlab.annotation.{module}" for module, names in _MODULES.items() for name in names}
"""The module of each public name: a command that reads a protocol or a project (``annotate init``, ``check``,
``status``) does not pay for scipy.stats, pandas and scikit-learn, which agreement and aggregation import (2.6 s of
every ``annotate`` command's start before issue 54)."""

__all__ = [
    "ALIASES",
    "LAYOUTS",
    "LEVELS",
    "METHODS",
    "STATISTICS",
    "Aggregation",
    "Annotations",
    "Level",
    "RatingsSource",
    "UndefinedStatisticError",
    "aggregate",
    "aggregate_ratings",
    "agreement_report",
    "binarize",
    "compare",
    "fleiss_kappa",
    "guess_layout",
    "interrater_correlation",
    "krippendorff_alpha",
    "mean_pairwise_cohen_kappa",
    "normalize_text",
    "rating_matrix",
    "read_aggregation",
    "read_controls",
    "read_long",
    "read_ratings",
    "read_wide",
    "write_aggregation",
    "write_report",
]


def __getattr__(name: str) -> object:
    """The public name ``name``, imported from its module at its first use (PEP 562), then held here."""
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names, before their first use too."""
    return sorted(__all__)
