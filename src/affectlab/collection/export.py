"""``affectlab annotate export``: a project's answers, labels and agreement as files the rest of affectlab reads.

The folder holds (all written at once, or none):

* ``answers-<stage>.csv``: every answer, one row per (answer, stage label), with the annotator's pseudonym, the
  value (the intensity; 0: not chosen; empty: skipped), seconds on the page, time, page, none, skip, flag, whether
  the item is a control task and whether the annotator was banned: ``annotate agreement/aggregate/report`` read
  it as it is (``--value-col value``);
* ``controls.csv``: the control tasks' known answers (``item,label,value``: ``annotate aggregate --controls``);
* ``labels.csv``: one row per finished item: ``id``, ``text``, ``labels`` (comma-separated; ``none`` for none),
  ``confidence`` (the lowest over its stages), ``passes`` (the protocol's confidence cut in every stage) and
  ``split`` (train/dev/test, 80/10/10 by a hash of the id), the file ``affectlab train --dataset`` reads
  (``--label-sep , --split-col split``);
* ``annotators.csv``: each pseudonym's pages, skips, median seconds, control accuracy, status and the rules'
  actions;
* ``agreement.json``: per stage, the agreement report with 95 % intervals (1,000 resamples) and BRIGHTER's SHCMP;
* ``protocol.yaml`` and ``manifest.json`` (counts, and the commands that recompute the labels offline).

**Merging the stages.** An item is finished when it has all its answers in every stage it was sent to. Its labels
are the union of its aggregated labels over those stages. Under the ``has-label`` gate this is also EmoBench-UA's
``emobench-ua`` merge (section 3.3.1): (i) labels in both projects: both kept; (ii) labels in the first only: the
first's; (iii) "other" in the first but labels in the second: the second's; (iv) none in both: none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from affectlab.annotation.files import records_text
from affectlab.collection.project import Project
from affectlab.collection.reports import agreement, annotator_records, answer_rows, stage_aggregation
from affectlab.errors import InputError
from affectlab.io.atomic import write_atomically
from affectlab.io.progress import Progress, quiet

NONE_LABEL = "none"
EXPORT_RESAMPLES = 1000


def finished_labels(project: Project) -> pd.DataFrame:
    """One row per finished item: ``id``, ``text``, ``labels``, ``confidence``, ``passes``, ``split`` (see the
    module)."""
    per_stage = {}
    for stage in project.protocol.stages:
        aggregation = stage_aggregation(project, stage.name, complete_only=True)
        if aggregation is not None:
            per_stage[stage.name] = {str(row.item): row for row in aggregation.items.itertuples()}
    rows = []
    for item in project.state.stage_items.get(project.protocol.stages[0].name, []):
        found = _stage_rows(project, per_stage, item)
        if found is None:
            continue
        labels = [label for row in found for label in row.labels]
        rows.append({
            "id": item, "text": project.items[item].text, "labels": ",".join(labels) or NONE_LABEL,
            "confidence": round(min(float(row.confidence) for row in found), 4),
            "passes": int(all(bool(row.passes) for row in found)), "split": split_of(item),
        })  # fmt: skip
    return pd.DataFrame(rows, columns=["id", "text", "labels", "confidence", "passes", "split"])


def split_of(item: str) -> str:
    """``train``, ``dev`` or ``test`` (80/10/10) by a hash of the item's id: the same item always lands in the same
    split, whatever else is exported with it."""
    import hashlib

    bucket = int(hashlib.sha256(item.encode("utf-8")).hexdigest()[:8], 16) % 100
    return "train" if bucket < 80 else "dev" if bucket < 90 else "test"


def _stage_rows(project: Project, per_stage: dict[str, dict[str, Any]], item: str) -> list[Any] | None:
    """The item's aggregated row in each stage it goes through, or None while one is missing: the first stage, and
    each gated stage whose gate its labels in the stage before pass (whether that stage is open yet or not)."""
    found = []
    for stage in project.protocol.stages:
        if stage.gate is not None:
            before = per_stage.get(stage.gate.after, {}).get(item)
            gate_labels = set(project.stages[stage.gate.after].labels)
            if before is None or not gate_labels & set(before.labels):
                continue
        row = per_stage.get(stage.name, {}).get(item)
        if row is None:
            return None
        found.append(row)
    return found


def export_project(project: Project, out: str | Path, progress: Progress = quiet) -> dict[str, Any]:
    """Write the export folder ``out`` (made when missing; refused when it holds files) and return its manifest."""
    folder = Path(out)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InputError(f"{str(folder)!r} is not an empty folder (an export never overwrites files)")
    files: dict[str, bytes] = {"protocol.yaml": project.protocol_text.encode("utf-8")}
    for stage in project.protocol.stages:
        progress(f"answers of stage {stage.name}")
        files[f"answers-{stage.name}.csv"] = _csv(answer_rows(project, stage.name))
    gold = [{"item": item, "label": label, "value": value} for (item, label), value in project.gold.items()]
    files["controls.csv"] = _csv(pd.DataFrame(gold, columns=["item", "label", "value"]))
    progress("aggregating the labels")
    labels = finished_labels(project)
    files["labels.csv"] = _csv(labels)
    files["annotators.csv"] = _csv(pd.DataFrame([_annotator_row(row) for row in annotator_records(project)]))
    progress("agreement with intervals")
    report = {s.name: agreement(project, s.name, EXPORT_RESAMPLES, EXPORT_RESAMPLES) for s in project.protocol.stages}
    files["agreement.json"] = _json(report)
    manifest = _manifest(project, labels)
    files["manifest.json"] = _json(manifest)
    folder.mkdir(parents=True, exist_ok=True)
    write_atomically({folder / name: data for name, data in files.items()})
    return manifest


def _annotator_row(record: dict[str, Any]) -> dict[str, Any]:
    return {
        "annotator": record["pseudonym"], "status": record["status"], "pages": record["pages"],
        "skipped_pages": record["skipped_pages"], "median_seconds": record["median_seconds"],
        "control_accuracy": record["control_accuracy"],
        "exams": ";".join(f"{e['stage']}:{e['accuracy']:.2f}" for e in record["exams"]),
        "actions": ";".join(f"{a['action']}:{a['rule']}" for a in record["actions"]),
    }  # fmt: skip


def _manifest(project: Project, labels: pd.DataFrame) -> dict[str, Any]:
    method = project.protocol.aggregation
    binarize = "" if method.method == "brighter" else " --binarize"
    controls = " --controls controls.csv" if method.controls_as_truth else ""
    cut = f" --min-confidence {method.min_confidence}" if method.min_confidence else ""
    return {
        "protocol": project.protocol.name,
        "stages": {s.name: len(project.state.stage_items.get(s.name, [])) for s in project.protocol.stages},
        "answers": sum(not a.skip for a in project.state.answers),
        "annotators": len(project.state.annotators),
        "finished_items": len(labels), "passing_items": int(labels["passes"].sum()) if len(labels) else 0,
        "offline": {s.name: f"affectlab annotate aggregate answers-{s.name}.csv --value-col value{binarize} "
                            f"--method {method.method}{cut}{controls}" for s in project.protocol.stages},
    }  # fmt: skip


def _csv(frame: pd.DataFrame) -> bytes:
    """``frame`` as CSV, a missing value (a skipped answer's) as an empty field, as the offline commands read it."""
    return records_text(frame.astype(object).where(frame.notna(), None).to_dict("records"), ".csv").encode("utf-8")


def _json(data: Any) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=1, default=str) + "\n").encode("utf-8")
