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
