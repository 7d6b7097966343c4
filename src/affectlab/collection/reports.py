"""What the owner reads of a project: its answers as :class:`~affectlab.annotation.readers.Annotations` (the shape
``annotate agreement/aggregate/report`` read), the aggregation preview, agreement with intervals, BRIGHTER's
split-half class match, progress and each annotator's record.

A stage's answers become one rating per (item, annotator, stage label): the chosen intensity (1 when the protocol
has no intensity scale), 0 for a label not chosen; a skip gives no rating. Annotators appear by pseudonym. The
aggregation reads presence (every rating above 0 as 1), as EmoBench-UA's and GoEmotions' labels are, except the
``brighter`` rule, which reads intensities.
"""

from __future__ import annotations

import math
import random
import statistics
from typing import TYPE_CHECKING, Any

import pandas as pd

from affectlab.annotation.aggregation import Aggregation
from affectlab.annotation.readers import Annotations, binarize
from affectlab.collection.merging import ANSWER_COLUMNS, stage_labels, stage_ratings
from affectlab.collection.state import AnnotatorState
from affectlab.collection.views import ProjectView

if TYPE_CHECKING:
    from affectlab.collection.project import Project

AGREEMENT_RESAMPLES = 200
"""Bootstrap resamples of the owner page's live agreement (the export uses 1,000)."""
SHCMP_TRIALS = 1000


def answer_rows(project: Project, stage: str) -> pd.DataFrame:
    """One row per (answer, rated label) of ``stage`` (:data:`~affectlab.collection.merging.ANSWER_COLUMNS`): the
    item and its text, the annotator's pseudonym, the label (the other choice is rated like one), ``value`` (empty
    for a skip), seconds on the page, time, page, the none, other and skip choices, the flag, whether the item is a
    control task, whether it had all its answers in the stage, and whether the annotator was banned."""
    return project.view(lambda view: _answer_rows(view, stage))


def _answer_rows(view: ProjectView, stage: str) -> pd.DataFrame:
    other = view.protocol.other_choice.name if view.protocol.other_choice else None
    labels = view.protocol.rated_labels(view.stage(stage))
    pseudonyms = {name: a.pseudonym for name, a in view.state.annotators.items()}
    banned = {name for name, a in view.state.annotators.items() if a.banned_until is not None}
    rows = []
    for answer in view.state.answers:
        if answer.stage != stage:
            continue
        page = view.state.pages[answer.page]
        complete = int(view.complete(stage, answer.item))
        for label in labels:
            value = None if answer.skip else int(answer.other) if label == other else answer.labels.get(label, 0)
            rows.append({
                "item": answer.item, "text": view.items[answer.item].text, "annotator": pseudonyms[answer.annotator],
                "stage": stage, "label": label, "value": value, "seconds": round(page.seconds, 3), "at": answer.at,
                "page": answer.page, "none": int(answer.none), "other": int(answer.other), "skip": int(answer.skip),
                "flag": answer.flag or "", "control": int(answer.item in page.controls), "complete": complete,
                "banned": int(answer.annotator in banned),
            })  # fmt: skip
    return pd.DataFrame(rows, columns=ANSWER_COLUMNS)


def stage_annotations(project: Project, stage: str, complete_only: bool = False) -> Annotations | None:
    """The ratings of ``stage`` (control tasks included; ``complete_only``: only the ordinary items with all their
    answers), or None when there are none."""
    return stage_ratings(project.protocol, project.stages[stage], answer_rows(project, stage), complete_only)


def stage_aggregation(project: Project, stage: str, complete_only: bool = False) -> Aggregation | None:
    """The protocol's aggregation of ``stage`` (control answers as known truths when it says so), over the
    ordinary items (control tasks are left out of the result); None without answers."""
    return stage_labels(project.protocol, project.stages[stage], answer_rows(project, stage), project.gold,
                        complete_only)  # fmt: skip


def split_half_class_match(
    annotations: Annotations, trials: int = SHCMP_TRIALS, seed: int = 0
) -> dict[str, float | None]:
    """BRIGHTER's split-half class match percentage (section 2.3, App. B; Mohammad 2024), per label and
    ``overall``: each item's ratings of a label are split at random into two halves (an odd rating goes to either
    half with equal chance), each half's class is its mean rating rounded half up, and the item matches when the
    two classes are equal; the percentage of matching items, averaged over ``trials`` splits. Only items with two
    or more ratings of the label count; a label without any is None. The paper leaves a half's score open ("a score
    based on its annotations"); the rounded mean is ours."""
    rng = random.Random(seed)
    groups = {
        label: [
            values.astype(float).tolist()
            for _, values in frame.groupby("item", sort=False)["value"]
            if len(values) >= 2
        ]
        for label, frame in annotations.frame.groupby("label", sort=False)
    }
    result: dict[str, float | None] = {}
    pooled: list[float] = []
    for label in annotations.labels:
        ratings = groups.get(label, [])
        matches = [_match_share(ratings, rng) for _ in range(trials)] if ratings else []
        result[label] = 100 * sum(matches) / len(matches) if matches else None
        pooled += [result[label] or 0.0] * len(ratings) if matches else []
    result["overall"] = sum(pooled) / len(pooled) if pooled else None
    return result


def _match_share(items: list[list[float]], rng: random.Random) -> float:
    matched = 0
    for ratings in items:
        shuffled = rng.sample(ratings, len(ratings))
        cut = len(shuffled) // 2 + (len(shuffled) % 2 and rng.random() < 0.5)
        first, second = shuffled[:cut], shuffled[cut:]
        matched += _class(first) == _class(second)
    return matched / len(items)


def _class(ratings: list[float]) -> int:
    return math.floor(sum(ratings) / len(ratings) + 0.5)


def progress(project: Project) -> list[dict[str, Any]]:
    """Per stage: items, items complete, answers, skips, open pages."""
    return project.view(_progress)


def _progress(view: ProjectView) -> list[dict[str, Any]]:
    state, now = view.state, view.now
    rows = []
    for stage in view.protocol.stages:
        items = state.stage_items.get(stage.name)
        answers = [a for a in state.answers if a.stage == stage.name]
        rows.append({
            "stage": stage.name, "open": items is not None, "items": len(items or []),
            "complete": sum(view.complete(stage.name, item) for item in items or []),
            "answers": sum(not a.skip for a in answers), "skips": sum(a.skip for a in answers),
            "open_pages": sum(p.stage == stage.name and p.reserves(now) for p in state.pages.values()),
        })  # fmt: skip
    return rows


def annotator_records(project: Project) -> list[dict[str, Any]]:
    """Per annotator: pseudonym, status, pages, skipped pages, median seconds per page, control accuracy, exams,
    and the rules' actions."""
    return project.view(_annotator_records)


def _annotator_records(view: ProjectView) -> list[dict[str, Any]]:
    now = view.now
    rows = []
    for annotator in view.state.annotators.values():
        blocked = annotator.blocked(now)
        status = ("revoked" if annotator.revoked else "expired" if now >= annotator.expires_at
                  else "retrain" if annotator.retrain else (blocked or ("active",))[0])  # fmt: skip
        rows.append({
            "name": annotator.name, "pseudonym": annotator.pseudonym, "status": status,
            "pages": len(annotator.pages), "skipped_pages": sum(p.skipped for p in annotator.pages),
            "median_seconds": _median_seconds(annotator), "control_accuracy": annotator.control_accuracy(),
            "exams": [{k: e[k] for k in ("stage", "accuracy", "passed")} for e in annotator.exams],
            "actions": annotator.actions,
        })  # fmt: skip
    return rows


def _median_seconds(annotator: AnnotatorState) -> float | None:
    """The median seconds per answered page of ``annotator``."""
    seconds = [page.seconds for page in annotator.pages if not page.skipped]
    return statistics.median(seconds) if seconds else None


def agreement(project: Project, stage: str, n_bootstrap: int, trials: int) -> dict[str, Any]:
    """Agreement over the answers of ``stage`` (control tasks left out): Krippendorff's alpha, Fleiss' and
    Cohen's kappa, GoEmotions' interrater correlation, each with a 95 % bootstrap interval over ``n_bootstrap``
    resamples, on presence (nominal: a label chosen or not) and, when the protocol rates intensity, on the
    intensities too (ordinal); and the split-half class match over ``trials`` splits. ``reason`` says why there is
    none yet."""
    from affectlab.annotation.agreement import agreement_report
    from affectlab.errors import InputError

    annotations = stage_annotations(project, stage)
    if annotations is not None:
        ordinary = annotations.frame[~annotations.frame["item"].map(lambda item: project.items[item].control)]
        annotations = Annotations(ordinary, annotations.labels, annotations.level, annotations.texts)
    if annotations is None or annotations.frame.empty:
        return {"stage": stage, "agreement": None, "reason": "no answers yet"}
    try:
        report = {"presence (nominal)": agreement_report(binarize(annotations), "nominal", n_bootstrap)}
        if project.protocol.intensity is not None:
            report["intensity (ordinal)"] = agreement_report(annotations, "ordinal", n_bootstrap)
    except InputError as exc:
        return {"stage": stage, "agreement": None, "reason": str(exc)}
    return {"stage": stage, "agreement": report, "shcmp": split_half_class_match(annotations, trials)}


def live_agreement(project: Project, stage: str) -> dict[str, Any]:
    """:func:`agreement` as the owner's page shows it (fewer resamples, so it answers in a moment)."""
    return agreement(project, stage, AGREEMENT_RESAMPLES, AGREEMENT_RESAMPLES)


def aggregation_preview(project: Project, stage: str, shown: int = 20) -> dict[str, Any]:
    """The protocol's aggregation of ``stage`` so far: counts per label, the share passing the confidence cut and
    the first ``shown`` items with their labels and confidence."""
    aggregation = stage_aggregation(project, stage)
    if aggregation is None or aggregation.items.empty:
        return {"stage": stage, "items": 0, "labels": {}, "share_passing": None, "first": []}
    counts = {
        label: int(sum(label in labels for labels in aggregation.items["labels"])) for label in aggregation.labels
    }
    first = [
        {
            "text": project.items[str(row.item)].text,
            "labels": list(row.labels),
            "confidence": round(float(row.confidence), 4),
        }
        for row in aggregation.items.head(shown).itertuples()
    ]
    return {"stage": stage, "method": aggregation.method, "items": len(aggregation.items), "labels": counts,
            "share_passing": aggregation.share_passing, "first": first}  # fmt: skip
