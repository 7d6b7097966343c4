"""How far an aggregation agrees with released labels (e.g. EmoBench-UA's ``track_a/{train,dev,test}/ukr.csv``).

Rows are joined on the item id, or on the text when the ids differ: the SemEval-2025 per-annotator file numbers
its texts 0..4832 while the released splits use ids like ``ukr_train_track_a_00001``, so only the texts link them
(about 87 % match exactly; comparing with whitespace collapsed and stripped gains a few more). A text that occurs
twice on either side is ambiguous and left out. Label names are matched case-insensitively through ``ALIASES``
("Sad" -> "sadness"), or through an explicit ``label_map``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from sklearn.metrics import cohen_kappa_score, f1_score

from affectlab.annotation.aggregation import Aggregation
from affectlab.annotation.readers import Source, cell_text, numeric_column, read_table, require_columns, text_column
from affectlab.errors import InputError

ALIASES = {
    "sad": "sadness",
    "happy": "joy",
    "happiness": "joy",
    "angry": "anger",
    "afraid": "fear",
    "scared": "fear",
    "disgusted": "disgust",
    "surprised": "surprise",
}

Join = Literal["auto", "id", "text"]
"""How gold rows are matched to aggregated items: by id, by text, or by id when the ids match (auto)."""


def normalize_text(text: str) -> str:
    """The text with runs of whitespace collapsed to one space and the ends stripped (the join key)."""
    return " ".join(str(text).split())


def compare(
    aggregation: Aggregation,
    gold: Source | Sequence[Source],
    id_col: str = "id",
    text_col: str = "text",
    label_map: Mapping[str, str] | None = None,
    on: Join = "auto",
    only_passing: bool = False,
) -> dict[str, Any]:
    """Per-label agreement of an aggregation with released labels, as a JSON-ready dict.

    ``gold`` is a table (or a list of tables, concatenated) with ``id_col``, ``text_col`` and one 0/1 (or
    intensity) column per label; a label counts as present when its value is above 0, on both sides. ``on="auto"``
    joins on ids when most gold ids are aggregated items, else on normalised text. ``only_passing`` keeps only
    the items that pass the aggregation's ``min_confidence``.

    Returns ``joined_on``, ``n_items`` (aggregated items to compare), ``n_gold``, ``n_ambiguous`` (keys left out
    because they repeat on a side), ``n_matched``, ``left_out`` (the items not matched, counted per reason: the
    keys of :data:`LEFT_OUT`; ``n_matched`` and these add up to ``n_items``), ``exact_match`` (share of matched
    items whose whole label set agrees) and ``per_label``: {label: {``gold_label``, ``n``, ``accuracy``,
    ``cohen_kappa`` (None when undefined), ``f1`` (of presence, gold as truth)}}.
    """
    table = _gold_table(gold)
    joined_on = _join_key(on, aggregation, table, id_col)
    key_col = id_col if joined_on == "id" else text_col
    columns = _gold_columns(aggregation.labels, [c for c in table.columns if c not in (id_col, text_col)], label_map)
    require_columns(table, [key_col, *columns.values()], "gold")
    theirs = _gold_presence(table, columns)
    ours = aggregation.wide().gt(0)
    if only_passing:
        ours = ours[aggregation.items["passes"].to_numpy()]
    all_gold_keys = table[key_col].map(cell_text if joined_on == "id" else normalize_text)
    all_our_keys = ours.index.to_series().map(lambda item: _our_key(aggregation, item, joined_on))
    gold_keys, our_keys, n_ambiguous = _unambiguous(all_gold_keys, all_our_keys)
    theirs = theirs.set_axis(gold_keys.to_numpy())[gold_keys.notna().to_numpy()]
    ours = ours.set_axis(our_keys.to_numpy())[our_keys.notna().to_numpy()]
    matched = ours.index.intersection(theirs.index)
    if len(matched) == 0:
        raise InputError(f"no gold row matches an aggregated item by {joined_on}")
    mine = ours.loc[matched, list(columns)].to_numpy(dtype=int)
    truth = theirs.loc[matched, list(columns)].to_numpy(dtype=int)
    return {
        "joined_on": joined_on,
        "n_items": len(all_our_keys),
        "n_gold": len(table),
        "n_ambiguous": n_ambiguous,
        "n_matched": len(matched),
        "left_out": _left_out(all_our_keys, all_gold_keys, set(matched)),
        "exact_match": float((mine == truth).all(axis=1).mean()),
        "per_label": {
            label: _label_scores(mine[:, j], truth[:, j], column) for j, (label, column) in enumerate(columns.items())
        },
    }


LEFT_OUT = {
    "not_in_gold": "{key} is in no gold row",
    "repeated_in_aggregation": "{key} is shared by several aggregated items",
    "repeated_in_gold": "{key} is in several gold rows",
    "no_key": "{key} is empty",
}
"""Why an aggregated item is not compared, as :func:`describe_left_out` words it ("2 whose text is ...")."""


def describe_left_out(comparison: Mapping[str, Any]) -> str:
    """The items a comparison left out and why, in words: "left out: 525 whose text is in no gold row, 2 whose
    text is shared by several aggregated items" (or "none left out")."""
    reasons = [f"{count:,} whose {LEFT_OUT[reason].format(key=comparison['joined_on'])}"
               for reason, count in comparison["left_out"].items() if count]  # fmt: skip
    return f"left out: {', '.join(reasons)}" if reasons else "none left out"


def _left_out(our_keys: pd.Series, gold_keys: pd.Series, matched: set[str]) -> dict[str, int]:
    """Per reason of :data:`LEFT_OUT`, how many of the items with keys ``our_keys`` have no match."""
    repeated_here = our_keys.duplicated(keep=False).to_numpy()
    gold_counts = gold_keys.value_counts()
    counts = dict.fromkeys(LEFT_OUT, 0)
    for key, repeated in zip(our_keys, repeated_here, strict=True):
        if key in matched:
            continue
        if not key:
            counts["no_key"] += 1
        elif repeated:
            counts["repeated_in_aggregation"] += 1
        else:
            counts["repeated_in_gold" if gold_counts.get(key, 0) > 1 else "not_in_gold"] += 1
    return counts


def _our_key(aggregation: Aggregation, item: str, joined_on: str) -> str:
    if joined_on == "id":
        return item
    return normalize_text(aggregation.texts.get(item, ""))


def _gold_table(gold: Source | Sequence[Source]) -> pd.DataFrame:
    sources = gold if isinstance(gold, Sequence) and not isinstance(gold, str) else [gold]
    return pd.concat([read_table(source)[0] for source in sources], ignore_index=True)


def _gold_presence(table: pd.DataFrame, columns: Mapping[str, str]) -> pd.DataFrame:
    """Gold presence (value > 0) per label; an empty gold cell is an error, not an absent label."""
    presence = {}
    for label, column in columns.items():
        values = numeric_column(table[column], column, "gold")
        if np.isnan(values).any():
            row = int(np.flatnonzero(np.isnan(values))[0])
            raise InputError(f"gold data row {row + 1}: column {column!r} is empty")
        presence[label] = values > 0
    return pd.DataFrame(presence)


def _gold_columns(labels: Sequence[str], available: list[str], label_map: Mapping[str, str] | None) -> dict[str, str]:
    """Each aggregated label's gold column: from ``label_map``, else the same name or alias, ignoring case."""
    by_name = {_canonical(str(column)): str(column) for column in available}
    columns = {}
    for label in labels:
        column = (label_map or {}).get(label) or by_name.get(_canonical(label))
        if column is None:
            raise InputError(
                f"no gold column for label {label!r} (gold columns: {', '.join(available)}); pass label_map"
            )
        columns[label] = column
    return columns


def _canonical(name: str) -> str:
    key = name.strip().lower()
    return ALIASES.get(key, key)


def _join_key(on: str, aggregation: Aggregation, table: pd.DataFrame, id_col: str) -> str:
    if on not in ("auto", "id", "text"):
        raise InputError(f"on must be auto, id or text, not {on!r}")
    if on == "auto":
        known = id_col in table.columns and text_column(table[id_col]).isin(aggregation.items["item"])
        on = "id" if np.mean(known) > 0.5 else "text"
    if on == "text" and not aggregation.texts:
        raise InputError("the aggregation has no texts to join on: read the ratings with text_col")
    return on


def _unambiguous(gold_keys: pd.Series, our_keys: pd.Series) -> tuple[pd.Series, pd.Series, int]:
    """The keys with every key that occurs twice on either side (or is empty) set to NaN, and how many distinct
    keys that drops."""
    repeated = set(gold_keys[gold_keys.duplicated()]) | set(our_keys[our_keys.duplicated()]) | {""}
    n_ambiguous = len(repeated - {""})
    return gold_keys.where(~gold_keys.isin(repeated)), our_keys.where(~our_keys.isin(repeated)), n_ambiguous


def _label_scores(mine: np.ndarray, theirs: np.ndarray, gold_label: str) -> dict[str, Any]:
    scores: dict[str, Any] = {
        "gold_label": gold_label,
        "n": len(mine),
        "accuracy": float((mine == theirs).mean()),
        "f1": float(f1_score(theirs, mine, zero_division=0)),
        "cohen_kappa": None,
    }
    if len(np.unique(np.concatenate([mine, theirs]))) > 1:
        kappa = cohen_kappa_score(theirs, mine, labels=[0, 1])
        scores["cohen_kappa"] = float(kappa) if np.isfinite(kappa) else None
    return scores
