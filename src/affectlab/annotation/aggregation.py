"""One label set per item from crowd ratings, with crowd-kit's aggregation models.

Every (item, label) question is aggregated as its own task: the ratings' distinct values are its classes
(0/1 for presence; 0-3 for intensities, which the models treat as unordered classes, so
:func:`~affectlab.annotation.readers.binarize` first to aggregate presence). A label is present in the result
when its aggregated value is above 0.

EmoBench-UA (section 3.3.4) aggregated five annotators with Dawid-Skene and kept only the instances whose
confidence was at least 0.9; ``min_confidence`` applies that rule per item: an item passes when every one of its
label questions has a confidence of at least ``min_confidence``.

Control tasks (EmoBench-UA 3.3.4: items whose answer the owner knows) can be given as ``controls``: Dawid-Skene
then holds those questions at their known value in every EM step (crowd-kit's ``true_labels``), so each annotator's
error matrix is anchored by the answers checked against them; a control question's own result is its known value
with confidence 1.

crowd-kit is an optional dependency (``affectlab[annotate]``), imported only when a model is fitted.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from affectlab.annotation.readers import Annotations
from affectlab.errors import InputError

MODELS = {  # method -> crowd-kit class
    "majority": "MajorityVote",
    "dawid-skene": "DawidSkene",
    "glad": "GLAD",
    "mace": "MACE",
    "mmsr": "MMSR",
    "wawa": "Wawa",
}
RULES = ("votes", "brighter")
"""Counting rules, no model: ``votes`` (a label is present when at least ``min_votes`` annotators gave it a value
above 0: GoEmotions' "at least two raters agreeing") and ``brighter`` (BRIGHTER section 2.4: present when at least
two annotators gave it 1-3 and the mean of every annotator's value is above 0.5; the value is then the ceiling of
the mean of the values above 0, the intensity when the ratings are intensities)."""
METHODS = (*MODELS, *RULES)
BRIGHTER_MIN_VOTES = 2
BRIGHTER_THRESHOLD = 0.5


@dataclass(frozen=True, eq=False)
class Aggregation:
    """The aggregated labels.

    ``questions``: one row per (item, label) question with the aggregated ``value`` and its ``confidence`` (the
    model's posterior probability of that value; for majority vote the share of annotators who gave it).
    ``items``: one row per item with ``labels`` (tuple of present labels, in label order), ``confidence`` (the
    lowest over its questions) and ``passes`` (confidence >= ``min_confidence``; every item passes without one).
    """

    questions: pd.DataFrame
    items: pd.DataFrame
    labels: tuple[str, ...]
    method: str
    min_confidence: float | None = None
    texts: Mapping[str, str] = field(default_factory=dict)
    n_controls: int = 0
    """Control questions held at their known answer (``controls``)."""

    @property
    def share_passing(self) -> float:
        """The share of items that pass ``min_confidence``."""
        return float(self.items["passes"].mean())

    def wide(self) -> pd.DataFrame:
        """Aggregated values as an items x labels table (NaN where an item lacks a question)."""
        table = self.questions.pivot(index="item", columns="label", values="value")
        return table.reindex(index=self.items["item"], columns=list(self.labels))


def aggregate(
    annotations: Annotations,
    method: str = "majority",
    min_confidence: float | None = None,
    per_label: bool = True,
    seed: int = 0,
    model_options: Mapping[str, Any] | None = None,
    controls: Mapping[tuple[str, str], float] | None = None,
    min_votes: int = 2,
) -> Aggregation:
    """Aggregate every (item, label) question with ``method``: ``majority``, ``dawid-skene`` (Dawid and Skene
    1979, at most 100 EM iterations), ``glad`` (Whitehill et al. 2009), ``mace`` (Hovy et al. 2013), ``mmsr``
    (Ma and Olshevsky 2020) or ``wawa`` (majority vote weighted by each annotator's agreement with the plain
    majority), all from crowd-kit.

    ``per_label`` fits one model per label, so each annotator gets a skill and each class a prior per label;
    with False one model sees all questions (task id = item + label) and annotators share one skill across
    labels. ``seed`` seeds MACE and M-MSR (the others are deterministic); ``model_options`` go to the crowd-kit
    model's constructor (e.g. ``{"n_restarts": 1}`` for MACE, which is slow: about a minute for 29k questions).
    Ties go to the smaller value. M-MSR and Wawa have no posterior: their confidence is the skill-weighted vote
    share, a negative M-MSR skill (an annotator who is worse than chance) counting as 0.

    ``controls`` maps ``(item, label)`` to the known value of a control question (``dawid-skene`` only; every one
    must be a rated question). ``votes`` and ``brighter`` count (:data:`RULES`); their confidence is the share of
    annotators whose presence (value above 0 or not) agrees with the result.
    """
    if method not in METHODS:
        raise InputError(f"unknown aggregation method {method!r} (methods: {', '.join(METHODS)})")
    if min_confidence is not None and not 0.0 < min_confidence <= 1.0:
        raise InputError(f"min_confidence must be in (0, 1], not {min_confidence}")
    known = _checked_controls(annotations, method, controls or {})
    if method in RULES:
        if min_votes < 1:
            raise InputError(f"min_votes must be at least 1, not {min_votes}")
        questions = _in_order(_counted(annotations.frame, method, min_votes), annotations)
        return Aggregation(
            questions=questions, items=_item_summary(questions, min_confidence), labels=annotations.labels,
            method=method, min_confidence=min_confidence, texts=annotations.texts,
        )  # fmt: skip
    frame = annotations.frame
    groups = [frame[frame["label"] == label] for label in annotations.labels] if per_label else [frame]
    options = dict(model_options or {})
    questions = pd.concat([_aggregate_group(group, method, seed, options, known) for group in groups if len(group)])
    questions = _in_order(questions, annotations)
    return Aggregation(
        questions=questions,
        items=_item_summary(questions, min_confidence),
        labels=annotations.labels,
        method=method,
        min_confidence=min_confidence,
        texts=annotations.texts,
        n_controls=len(known),
    )


def _counted(frame: pd.DataFrame, method: str, min_votes: int) -> pd.DataFrame:
    """Value and confidence of each (item, label) question by a counting rule (:data:`RULES`)."""
    grouped = frame.assign(chosen=frame["value"] > 0).groupby(["item", "label"], sort=False)
    stats = grouped.agg(
        n=("value", "size"), votes=("chosen", "sum"), mean=("value", "mean"),
        chosen_mean=("value", lambda values: values[values > 0].mean() if (values > 0).any() else 0.0),
    ).reset_index()  # fmt: skip
    if method == "votes":
        present = stats["votes"] >= min_votes
        value = present.astype(float)
    else:
        present = (stats["votes"] >= BRIGHTER_MIN_VOTES) & (stats["mean"] > BRIGHTER_THRESHOLD)
        value = np.where(present, np.ceil(stats["chosen_mean"]), 0.0)
    agreeing = np.where(present, stats["votes"], stats["n"] - stats["votes"])
    return stats[["item", "label"]].assign(value=value.astype(float), confidence=agreeing / stats["n"])


def _checked_controls(
    annotations: Annotations, method: str, controls: Mapping[tuple[str, str], float]
) -> dict[tuple[str, str], float]:
    """``controls`` with float values, after checking that the method takes them and that each is a rated
    question whose known value is a number."""
    if not controls:
        return {}
    if method != "dawid-skene":
        raise InputError(f"control answers are taken as known truths by dawid-skene only, not {method}")
    rated = set(zip(annotations.frame["item"], annotations.frame["label"], strict=True))
    known: dict[tuple[str, str], float] = {}
    for (item, label), value in controls.items():
        if (item, label) not in rated:
            raise InputError(f"control item {item!r} has no ratings for label {label!r}")
        try:
            known[(item, label)] = float(value)
        except (TypeError, ValueError):
            raise InputError(f"control item {item!r}, label {label!r}: {value!r} is not a number") from None
    return known


def _aggregate_group(
    frame: pd.DataFrame, method: str, seed: int, options: dict[str, Any], controls: Mapping[tuple[str, str], float]
) -> pd.DataFrame:
    """Aggregated value and confidence for each (item, label) question in ``frame``; a control question's is its
    known value with confidence 1."""
    keys = frame[["item", "label"]].drop_duplicates().reset_index(drop=True)
    task = pd.MultiIndex.from_frame(keys).get_indexer(pd.MultiIndex.from_frame(frame[["item", "label"]]))
    data = pd.DataFrame({"task": task, "worker": frame["annotator"].to_numpy(), "label": frame["value"].to_numpy()})
    known = pd.Series(
        {t: controls[key] for t, key in enumerate(zip(keys["item"], keys["label"], strict=True)) if key in controls},
        dtype=float,
    )
    values = frame["value"].unique()
    if len(values) == 1 and not len(known):  # a single class needs no model, and GLAD and M-MSR fail on one
        return keys.assign(value=float(values[0]), confidence=1.0)
    try:
        scores = _fit_scores(data, method, seed, options, known).clip(lower=0.0)
    except InputError:
        raise
    except (ValueError, ArithmeticError) as exc:  # crowd-kit failing on these ratings
        labels = ", ".join(map(repr, keys["label"].unique()))
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise InputError(f"{method} could not be fitted on label {labels}: {reason}") from None
    probabilities = scores.div(scores.sum(axis=1), axis=0)
    probabilities = probabilities.reindex(columns=sorted(probabilities.columns))  # ties: the smaller value wins
    keys = keys.iloc[probabilities.index.to_numpy()]
    result = keys.assign(
        value=probabilities.idxmax(axis=1).to_numpy(dtype=float),
        confidence=probabilities.max(axis=1).to_numpy(dtype=float),
    )
    held = result.index.isin(known.index)
    result.loc[held, "value"] = known.reindex(result.index[held]).to_numpy()
    result.loc[held, "confidence"] = 1.0
    return result


def _fit_scores(
    data: pd.DataFrame, method: str, seed: int, options: dict[str, Any], known: pd.Series | None = None
) -> pd.DataFrame:
    """crowd-kit's task x class probabilities, or scores for the models without them (rows indexed by task);
    ``known``: the known values of control tasks (Dawid-Skene only)."""
    models = _import_crowdkit()
    defaults = {"dawid-skene": {"n_iter": 100}, "mace": {"random_state": seed}, "mmsr": {"random_state": seed}}
    try:
        model = getattr(models, MODELS[method])(**{**defaults.get(method, {}), **options})
    except TypeError as exc:  # an option the model does not take
        raise InputError(f"{method}: {exc}") from None
    with warnings.catch_warnings():
        # crowd-kit 1.4 calls pandas APIs that pandas 3 deprecates, and its numerics warn on small or lopsided
        # data (log of 0, a tiny eigenproblem); nothing the caller can act on
        warnings.simplefilter("ignore", category=DeprecationWarning)
        warnings.simplefilter("ignore", category=FutureWarning)
        warnings.simplefilter("ignore", category=RuntimeWarning)
        if method == "mmsr":
            model.fit_predict(data)
            return model.scores_
        if method == "wawa":
            # Wawa's own predict() fails with scikit-learn >= 1.6 (check_is_fitted on a non-estimator), so its
            # last step, the skill-weighted majority vote, runs here with the skills its fit() estimated.
            return models.MajorityVote().fit(data, skills=model.fit(data).skills_).probas_
        if method == "dawid-skene" and known is not None and len(known):
            return model.fit(data, true_labels=known).probas_
        return model.fit(data).probas_


def _in_order(questions: pd.DataFrame, annotations: Annotations) -> pd.DataFrame:
    """Questions sorted by item (first appearance) and label (declared order)."""
    item_rank = {item: i for i, item in enumerate(annotations.items)}
    label_rank = {label: i for i, label in enumerate(annotations.labels)}
    order = questions["item"].map(item_rank) * len(label_rank) + questions["label"].map(label_rank)
    return questions.iloc[order.argsort(kind="stable")].reset_index(drop=True)


def _item_summary(questions: pd.DataFrame, min_confidence: float | None) -> pd.DataFrame:
    """One row per item: present labels, lowest confidence, and whether it passes ``min_confidence``."""
    confidence = questions.groupby("item", sort=False)["confidence"].min()
    present = questions[questions["value"] > 0].groupby("item", sort=False)["label"].agg(tuple)
    return pd.DataFrame(
        {
            "item": confidence.index,
            "labels": [present.get(item, ()) for item in confidence.index],
            "confidence": confidence.to_numpy(),
            "passes": True if min_confidence is None else confidence.to_numpy() >= min_confidence,
        }
    )


def _import_crowdkit() -> Any:
    try:
        from crowdkit import aggregation
    except ImportError:
        raise InputError("aggregation needs crowd-kit: install affectlab[annotate]") from None
    return aggregation
