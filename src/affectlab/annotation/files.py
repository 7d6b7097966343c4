"""Aggregated labels as a file: :func:`write_aggregation` and :func:`read_aggregation`.

One row per item, in the aggregation's item order: ``item``, ``text`` (when the ratings had texts), ``labels``
(the present labels in label order; joined with "," in CSV and TSV, a list in JSON Lines), ``confidence``,
``passes``, then ``value_<label>`` and ``confidence_<label>`` for each label (empty where the item had no such
question). Confidences are rounded to 6 decimals. The format follows the extension: ``.csv``, ``.tsv`` or
``.jsonl``.

The file holds everything :func:`~affectlab.annotation.comparison.compare` needs, so an aggregation can be
compared with released labels later; it does not record the method or the confidence cut, only each item's
``passes``.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from affectlab.annotation.aggregation import Aggregation
from affectlab.annotation.readers import cell_text, numeric_column, read_table, require_columns, text_column
from affectlab.errors import InputError
from affectlab.io.atomic import write_atomically
from affectlab.io.outputs import check_output_file
from affectlab.io.tables import DELIMITERS, table_format

SUFFIXES = (".csv", ".tsv", ".jsonl")
UNKNOWN_METHOD = "unknown"  # Aggregation.method of an aggregation read from a file
_TRUE, _FALSE = {"true", "1", "yes"}, {"false", "0", "no"}


def output_suffix(path: str | Path) -> str:
    """The file type of an aggregation output, checked before any work is done on it."""
    suffix = table_format(Path(path), SUFFIXES, "output")
    check_output_file(path, exists_ok=True)  # an earlier aggregation there is replaced, atomically
    return suffix


def write_aggregation(aggregation: Aggregation, path: str | Path) -> Path:
    """Write one row per item to ``path`` (CSV, TSV or JSON Lines by extension), atomically: the file appears
    whole or not at all, and an earlier file at ``path`` is replaced only once the new one is complete."""
    path = Path(path)
    write_atomically({path: records_text(aggregation_records(aggregation), output_suffix(path)).encode("utf-8")})
    return path


def records_text(records: list[dict[str, Any]], suffix: str) -> str:
    """Records as the text of a ``suffix`` file: JSON Lines, or CSV/TSV with the first record's keys as header (a
    list cell joined by commas, None empty)."""
    if suffix == ".jsonl":
        return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    return _delimited(records, DELIMITERS[suffix])


def aggregation_records(aggregation: Aggregation) -> list[dict[str, Any]]:
    """The rows :func:`write_aggregation` writes, as JSON-ready dicts (``labels`` a list, missing values None)."""
    labels = list(aggregation.labels)
    values = aggregation.wide().to_numpy(dtype=float)
    confidences = aggregation.questions.pivot(index="item", columns="label", values="confidence")
    confidences = confidences.reindex(index=aggregation.items["item"], columns=labels).to_numpy(dtype=float)
    records = []
    for row, item in enumerate(aggregation.items.itertuples(index=False)):
        record: dict[str, Any] = {"item": item.item}
        if aggregation.texts:
            record["text"] = aggregation.texts.get(item.item, "")
        record.update(labels=list(item.labels), confidence=_rounded(item.confidence), passes=bool(item.passes))
        for j, label in enumerate(labels):
            record[f"value_{label}"] = _number(values[row, j])
            record[f"confidence_{label}"] = _rounded(confidences[row, j])
        records.append(record)
    return records


def read_aggregation(path: str | Path) -> Aggregation:
    """Read a file written by :func:`write_aggregation` back into an :class:`Aggregation` (``method`` is
    ``"unknown"`` and ``min_confidence`` None: the file keeps each item's ``passes``, not the cut)."""
    table, name = read_table(Path(path))
    require_columns(table, ["item", "confidence", "passes"], name)
    labels = tuple(str(column).removeprefix("value_") for column in table.columns if str(column).startswith("value_"))
    if not labels:
        raise InputError(f"{name} has no value_<label> columns: is it an aggregation written by affectlab?")
    require_columns(table, [f"confidence_{label}" for label in labels], name)
    items = text_column(table["item"])
    if (items == "").any() or items.duplicated().any():
        row = int(np.flatnonzero((items == "") | items.duplicated())[0])
        raise InputError(f"{name} data row {row + 1}: item {items.iloc[row]!r} is empty or repeated")
    questions = pd.concat(
        [
            pd.DataFrame(
                {
                    "item": items,
                    "label": label,
                    "value": numeric_column(table[f"value_{label}"], f"value_{label}", name),
                    "confidence": numeric_column(table[f"confidence_{label}"], f"confidence_{label}", name),
                }
            )
            for label in labels
        ]
    )
    questions = questions.dropna(subset=["value"]).sort_index(kind="stable").reset_index(drop=True)
    present = questions[questions["value"] > 0].groupby("item", sort=False)["label"].agg(tuple)
    summary = pd.DataFrame(
        {
            "item": items,
            "labels": [present.get(item, ()) for item in items],
            "confidence": numeric_column(table["confidence"], "confidence", name),
            "passes": [_flag(cell, row, name) for row, cell in enumerate(table["passes"])],
        }
    )
    texts = dict(zip(items, text_column(table["text"]), strict=True)) if "text" in table.columns else {}
    return Aggregation(questions=questions, items=summary, labels=labels, method=UNKNOWN_METHOD, texts=texts)


def _delimited(records: list[dict[str, Any]], delimiter: str) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter)
    writer.writerow(records[0] if records else ["item"])
    for record in records:
        writer.writerow([_cell(value) for value in record.values()])
    return buffer.getvalue()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, list):
        return ",".join(value)
    return str(value)


def _number(value: float) -> int | float | None:
    """Whole values as ints (``1``, not ``1.0``), missing ones as None."""
    if math.isnan(value):
        return None
    return int(value) if float(value).is_integer() else float(value)


def _rounded(value: float) -> float | None:
    return None if math.isnan(value) else round(float(value), 6)


def _flag(cell: object, row: int, name: str) -> bool:
    if isinstance(cell, bool):
        return cell
    text = cell_text(cell).lower()
    if text in _TRUE | _FALSE:
        return text in _TRUE
    raise InputError(f"{name} data row {row + 1}: {cell!r} in column 'passes' is not true or false")
