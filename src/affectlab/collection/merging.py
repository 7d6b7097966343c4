"""How a stage's answer rows become labels, and how the stages' labels merge into an item's: one code path for the
live project (the owner's preview, opening a gated stage), the export's ``labels.csv`` and ``affectlab annotate
relabel``, which recomputes ``labels.csv`` from the export's own files, so the two are equal by construction.

**A stage's labels.** Its answer rows (the export's ``answers-<stage>.csv``: one per answer and rated label) are
read as ratings (a skip's empty value is no rating); with ``complete_only`` only control tasks and items that had
all their answers count. The protocol's aggregation fits them (presence, except the ``brighter`` rule, which reads
intensities), control answers as known truths when it says so, and control tasks are left out of the result.

**Merging the stages** (EmoBench-UA section 3.3.1's scenarios). An item is finished when it has its labels in every
stage it was sent to: the first, and each gated stage whose gate its labels in the stage before pass. Its labels
are the union of its labels over those stages, the other choice left out: (i) labels in both projects, both kept;
(ii) labels in the first only, the first's; (iii) "other" in the first and labels in the second, the second's;
(iv) none or other in both: none. A stage the item was not sent to was never asked about it, unless the stage
before was answered as the none choice of a protocol that tells none from other (then "no emotion" covers every
label): its labels are **unasked**, and the item goes to ``unasked.csv``, not to ``labels.csv``, whose ``none``
always means that every label was asked and none found.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from affectlab.annotation.aggregation import Aggregation, aggregate
from affectlab.annotation.protocol import Protocol, Stage
from affectlab.annotation.readers import Annotations, binarize, read_long
from affectlab.errors import InputError

NONE_LABEL = "none"
ANSWER_COLUMNS = ["item", "text", "annotator", "stage", "label", "value", "seconds", "at", "page", "none", "other",
                  "skip", "flag", "control", "complete", "banned"]  # fmt: skip
"""The columns of an answers file (``answers-<stage>.csv``), one row per (answer, rated label)."""
LABEL_COLUMNS = ["id", "text", "labels", "confidence", "passes", "split"]
UNASKED_COLUMNS = ["id", "text", "labels", "unasked", "confidence", "passes", "split"]


@dataclass(frozen=True)
class MergedLabels:
    """``labels``: the finished items with every label asked (``labels.csv``); ``unasked``: those with labels
    never asked (``unasked.csv``)."""

    labels: pd.DataFrame
    unasked: pd.DataFrame


def stage_ratings(protocol: Protocol, stage: Stage, rows: pd.DataFrame, complete_only: bool) -> Annotations | None:
    """The ratings in ``rows`` (an answers file's rows of ``stage``), or None when there are none."""
    rows = rows.dropna(subset=["value"])
    if complete_only:
        rows = rows[rows["control"].astype(int).astype(bool) | rows["complete"].astype(int).astype(bool)]
    if rows.empty:
        return None
    levels = protocol.intensity.n_levels if protocol.intensity else 1
    frame = rows[["item", "annotator", "label", "value", "text"]]
    return read_long(frame, value_col="value", text_col="text", labels=protocol.rated_labels(stage),
                     scale=(0, levels), name=f"stage {stage.name}")  # fmt: skip


def stage_labels(
    protocol: Protocol, stage: Stage, rows: pd.DataFrame, gold: Mapping[tuple[str, str], float],
    complete_only: bool = False,
) -> Aggregation | None:  # fmt: skip
    """The protocol's aggregation of ``stage`` from its answer ``rows`` and the control tasks' known answers
    ``gold`` ((item, label) -> value), over the ordinary items; None without ratings."""
    annotations = stage_ratings(protocol, stage, rows, complete_only)
    if annotations is None:
        return None
    settings = protocol.aggregation
    if settings.method != "brighter":
        annotations = binarize(annotations)
    controls = None
    if settings.controls_as_truth:
        rated = set(zip(annotations.frame["item"], annotations.frame["label"], strict=True))
        controls = {key: float(value > 0) for key, value in gold.items() if key in rated}
    aggregation = aggregate(annotations, settings.method, settings.min_confidence, controls=controls or None,
                            min_votes=protocol.overlap.min_votes)  # fmt: skip
    control_items = set(rows.loc[rows["control"].astype(int).astype(bool), "item"])
    return only_items(aggregation, [item for item in aggregation.items["item"] if item not in control_items])


def only_items(aggregation: Aggregation, items: list[str]) -> Aggregation:
    """``aggregation`` restricted to ``items``."""
    keep = set(items)
    return Aggregation(
        questions=aggregation.questions[aggregation.questions["item"].isin(keep)].reset_index(drop=True),
        items=aggregation.items[aggregation.items["item"].isin(keep)].reset_index(drop=True),
        labels=aggregation.labels, method=aggregation.method, min_confidence=aggregation.min_confidence,
        texts={k: v for k, v in aggregation.texts.items() if k in keep}, n_controls=aggregation.n_controls,
    )  # fmt: skip


def merged_labels(
    protocol: Protocol, answers: Mapping[str, pd.DataFrame], gold: Mapping[tuple[str, str], float]
) -> MergedLabels:
    """The finished items' labels (the module docstring) from each stage's answer rows (stage name -> rows) and the
    control tasks' known answers; items in the order of their first answer in the first stage."""
    per_stage: dict[str, dict[str, Any]] = {}
    for stage in protocol.stages:
        rows = answers.get(stage.name)
        aggregation = None if rows is None or rows.empty else stage_labels(protocol, stage, rows, gold, True)
        if aggregation is not None:
            per_stage[stage.name] = {str(row.item): row for row in aggregation.items.itertuples()}
    first = answers.get(protocol.stages[0].name)
    order = [] if first is None else list(dict.fromkeys(first.loc[~first["control"].astype(bool), "item"]))
    texts = {} if first is None else dict(zip(first["item"], first["text"], strict=True))
    finished, partial = [], []
    for item in order:
        found = _item_stages(protocol, per_stage, item)
        if found is None:
            continue
        rows, unasked = found
        labels = [label for row in rows for label in row.labels if label in protocol.label_names]
        record = {"id": item, "text": texts[item], "labels": ",".join(labels),
                  "confidence": round(min(float(row.confidence) for row in rows), 4),
                  "passes": int(all(bool(row.passes) for row in rows)), "split": split_of(item)}  # fmt: skip
        if unasked:
            partial.append({**record, "unasked": ",".join(unasked)})
        else:
            finished.append({**record, "labels": record["labels"] or NONE_LABEL})
    return MergedLabels(pd.DataFrame(finished, columns=LABEL_COLUMNS), pd.DataFrame(partial, columns=UNASKED_COLUMNS))


def _item_stages(
    protocol: Protocol, per_stage: Mapping[str, Mapping[str, Any]], item: str
) -> tuple[list[Any], list[str]] | None:
    """The item's aggregated row in each stage it was sent to and the labels of the stages it was never asked
    about; None while a row is missing (its labels are not final yet)."""
    found, unasked = [], []
    for stage in protocol.stages:
        if stage.gate is not None:
            before = per_stage.get(stage.gate.after, {}).get(item)
            if before is None:
                return None
            if not protocol.passes_gate(stage, set(before.labels)):
                told_none = protocol.other_choice is not None and not set(before.labels)
                unasked += [] if told_none else stage.labels
                continue
        row = per_stage.get(stage.name, {}).get(item)
        if row is None:
            return None
        found.append(row)
    return found, unasked


def split_of(item: str) -> str:
    """``train``, ``dev`` or ``test`` (80/10/10) by a hash of the item's id: the same item always lands in the same
    split, whatever else is exported with it."""
    import hashlib

    bucket = int(hashlib.sha256(item.encode("utf-8")).hexdigest()[:8], 16) % 100
    return "train" if bucket < 80 else "dev" if bucket < 90 else "test"


def read_answers(text: str, name: str) -> pd.DataFrame:
    """An answers file's text (:data:`ANSWER_COLUMNS`; a header alone: no answers) as rows: ids and texts as
    strings, ``value`` a number (NaN for a skip), ``control`` and ``complete`` 0/1."""
    frame = _table(text, name)
    missing = [column for column in ("item", "text", "annotator", "label", "value", "control", "complete")
               if column not in frame.columns]  # fmt: skip
    if missing:
        raise InputError(f"{name} has no column {missing[0]!r}: is it an affectlab export's answers file?")
    try:
        values = pd.to_numeric(frame["value"].replace("", None)).astype(float)
        flags = {column: frame[column].astype(int) for column in ("control", "complete")}
    except ValueError as exc:
        raise InputError(f"{name}: {exc}") from None
    return frame.assign(value=values, **flags)


def read_gold(text: str, name: str) -> dict[tuple[str, str], float]:
    """A ``controls.csv`` text (``item,label,value``; a header alone: no control tasks) as (item, label) -> value."""
    frame = _table(text, name)
    try:
        return {(str(i), str(lb)): float(v) for i, lb, v in zip(frame["item"], frame["label"], frame["value"],
                                                                 strict=True)}  # fmt: skip
    except (KeyError, ValueError) as exc:
        raise InputError(f"{name} is not item,label,value rows ({exc})") from None


def _table(text: str, name: str) -> pd.DataFrame:
    if not text.strip():
        raise InputError(f"{name} is empty (not even a header)")
    try:
        return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except pd.errors.ParserError as exc:
        raise InputError(f"{name}: {str(exc).strip().splitlines()[-1]}") from None
