"""``affectlab annotate export``: a project's answers, labels and agreement as files the rest of affectlab reads.

The folder holds (all written at once, or none):

* ``answers-<stage>.csv``: every answer, one row per (answer, rated label: the stage's labels, then the other
  choice where the protocol has one), with the item's text, the annotator's pseudonym, the value (the intensity;
  0: not chosen; empty: skipped), seconds on the page, time, page, none, other, skip, flag, whether the item is a
  control task, whether it had all its answers in the stage, and whether the annotator was banned:
  ``annotate agreement/aggregate/report`` read it as it is (``--value-col value --text-col text``);
* ``controls.csv``: the control tasks' known answers (``item,label,value``: ``annotate aggregate --controls``);
* ``labels.csv``: one row per finished item whose every label was asked: ``id``, ``text``, ``labels``
  (comma-separated; ``none`` for none), ``confidence`` (the lowest over its stages), ``passes`` (the protocol's
  confidence cut in every stage) and ``split`` (train/dev/test, 80/10/10 by a hash of the id), the file
  ``affectlab train --dataset`` reads (``--label-sep , --split-col split``);
* ``unasked.csv``: the finished items with labels never asked (a gated stage they were not sent to), the same
  columns and ``unasked`` (those labels): their ``labels`` say what was found, never ``none``
  (:mod:`~affectlab.collection.merging`);
* ``annotators.csv``: each pseudonym's pages, skips, median seconds, control accuracy, status and the rules'
  actions;
* ``agreement.json``: per stage, the agreement report with 95 % intervals (1,000 resamples) and BRIGHTER's SHCMP;
* ``protocol.yaml`` and ``manifest.json``: counts, and the commands that recompute the labels from these files
  alone (``annotate aggregate`` per stage; ``annotate relabel``, whose output equals ``labels.csv`` byte for byte).

``labels.csv`` is computed from the answers and controls files as written, by the code ``annotate relabel`` runs
(:func:`labels_from_files`), so the two cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from affectlab.annotation.files import records_text
from affectlab.annotation.protocol import Protocol
from affectlab.collection.merging import MergedLabels, merged_labels, read_answers, read_gold
from affectlab.collection.project import Project
from affectlab.collection.reports import agreement, annotator_records, answer_rows
from affectlab.collection.views import ProjectView
from affectlab.errors import InputError
from affectlab.io.atomic import write_atomically
from affectlab.io.progress import Progress, quiet

EXPORT_RESAMPLES = 1000


def export_project(project: Project, out: str | Path, progress: Progress = quiet) -> dict[str, Any]:
    """Write the export folder ``out`` (made when missing; refused when it holds files) and return its manifest."""
    folder = Path(out)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InputError(f"{str(folder)!r} is not an empty folder (an export never overwrites files)")
    files: dict[str, bytes] = {"protocol.yaml": project.protocol_text.encode("utf-8")}
    for stage in project.protocol.stages:
        progress(f"answers of stage {stage.name}")
        files[f"answers-{stage.name}.csv"] = csv_bytes(answer_rows(project, stage.name))
    gold = [{"item": item, "label": label, "value": value} for (item, label), value in project.gold.items()]
    files["controls.csv"] = csv_bytes(pd.DataFrame(gold, columns=["item", "label", "value"]))
    progress("aggregating the labels")
    merged = labels_from_files(project.protocol, files)  # from the files written, as `annotate relabel` reads them
    files["labels.csv"], files["unasked.csv"] = csv_bytes(merged.labels), csv_bytes(merged.unasked)
    files["annotators.csv"] = csv_bytes(pd.DataFrame([_annotator_row(row) for row in annotator_records(project)]))
    progress("agreement with intervals")
    report = {s.name: agreement(project, s.name, EXPORT_RESAMPLES, EXPORT_RESAMPLES) for s in project.protocol.stages}
    files["agreement.json"] = _json(report)
    manifest = _manifest(project, merged, bool(gold))
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


def labels_from_files(protocol: Protocol, files: Mapping[str, bytes]) -> MergedLabels:
    """``labels.csv`` and ``unasked.csv`` of an export from its ``answers-<stage>.csv`` and ``controls.csv``
    (file name -> content): what the export writes and ``annotate relabel`` recomputes."""
    answers = {
        stage.name: read_answers(files[name].decode("utf-8"), name)
        for stage in protocol.stages if (name := f"answers-{stage.name}.csv") in files
    }  # fmt: skip
    return merged_labels(protocol, answers, read_gold(files["controls.csv"].decode("utf-8"), "controls.csv"))


def _manifest(project: Project, merged: MergedLabels, has_controls: bool) -> dict[str, Any]:
    method = project.protocol.aggregation
    binarize = "" if method.method == "brighter" else " --binarize"
    controls = " --controls controls.csv" if method.controls_as_truth and has_controls else ""
    cut = f" --min-confidence {method.min_confidence}" if method.min_confidence else ""
    labels = merged.labels
    counts = project.view(_counts)
    return {
        "protocol": project.protocol.name,
        **{key: value for key, value in counts.items() if key != "rated"},
        "finished_items": len(labels), "passing_items": int(labels["passes"].sum()) if len(labels) else 0,
        "items_with_unasked_labels": len(merged.unasked),
        "offline": {
            **{s.name: f"affectlab annotate aggregate answers-{s.name}.csv --value-col value --text-col text"
                       f"{binarize} --method {method.method}{cut}{controls} --out labels-{s.name}.csv"
               for s in project.protocol.stages if s.name in counts["rated"]},
            "labels": "affectlab annotate relabel . --out labels-again.csv",
        },
    }  # fmt: skip


def _counts(view: ProjectView) -> dict[str, Any]:
    """Items per stage, answers (skips left out), annotators, and the stages with ratings to aggregate."""
    answers = view.state.answers
    return {
        "stages": {s.name: len(view.state.stage_items.get(s.name, [])) for s in view.protocol.stages},
        "answers": sum(not a.skip for a in answers), "annotators": len(view.state.annotators),
        "rated": {a.stage for a in answers if not a.skip},
    }  # fmt: skip


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """``frame`` as CSV, a missing value (a skipped answer's) as an empty field, as the offline commands read it;
    a frame without rows as its header alone."""
    if frame.empty:
        return (",".join(frame.columns) + "\n").encode("utf-8")
    return records_text(frame.astype(object).where(frame.notna(), None).to_dict("records"), ".csv").encode("utf-8")


def _json(data: Any) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=1, default=str) + "\n").encode("utf-8")
