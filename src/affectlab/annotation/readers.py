"""Crowd ratings read into one shape, :class:`Annotations`, whatever the file layout.

Two layouts are read (CSV, TSV or JSON Lines by extension, or a pandas DataFrame):

* **long** (:func:`read_long`): one row per (item, annotator, label), with or without a value column;
* **wide** (:func:`read_wide`): one row per (item, label), one column per annotator, as in the SemEval-2025
  Task 11 per-annotator file ``individual_labels/ukr/ukr_individuals.csv``.

Multi-label data become one question per (item, label): each annotator gives each question a number (0/1 for
presence, 0-3 for intensity). A rating that was not given has no row; only the units x annotators matrices
(:meth:`Annotations.matrix`) hold NaN, and there it means "not rated".

Input that cannot be read as given raises :class:`~affectlab.errors.InputError` with one line that names the
file, the column or the row. A file with a single annotator is read without complaint (aggregating it is legal,
if pointless); the agreement functions refuse it, since agreement needs two annotators.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TypeAlias

import numpy as np
import pandas as pd

from affectlab.errors import InputError
from affectlab.io.tables import DELIMITERS, RECORD_SUFFIXES, read_records, read_text, table_format
from affectlab.labels import INTENSITY_SCALE

Level = Literal["nominal", "ordinal", "interval"]
LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval")
COLUMNS = ["item", "annotator", "label", "value"]
Source: TypeAlias = str | Path | pd.DataFrame
Scale = tuple[float, float]
RATING_SCALE: Scale = INTENSITY_SCALE
"""The ratings accepted by default: BRIGHTER's and EmoBench-UA's intensities (0 none, 1 low, 2 moderate, 3 high),
which include 0/1 presence; a file on another scale declares it (``scale=(1, 5)``, ``--scale 1-5``)."""


@dataclass(frozen=True, eq=False)
class Annotations:
    """Crowd ratings, one row per given rating.

    ``frame`` has the columns ``item``, ``annotator``, ``label`` (str) and ``value`` (finite float); ``labels``
    are the declared label questions in order; ``level`` says how values compare (``nominal``: categories,
    ``ordinal``: ranked, ``interval``: differences count); ``texts`` maps item ids to their text where the
    source had one.
    """

    frame: pd.DataFrame
    labels: tuple[str, ...]
    level: Level = "nominal"
    texts: Mapping[str, str] = field(default_factory=dict)

    @property
    def items(self) -> list[str]:
        """Item ids in order of first appearance."""
        return list(self.frame["item"].unique())

    @property
    def annotators(self) -> list[str]:
        """Annotator ids in order of first appearance."""
        return list(self.frame["annotator"].unique())

    def matrix(self, label: str | None = None) -> pd.DataFrame:
        """Ratings as a units x annotators table (every annotator a column), NaN where one did not rate a unit.

        With ``label`` the units are the items that have that question; without, every (item, label) question
        is a unit (a two-level row index).
        """
        frame = self.frame
        keys = ["item", "label"]
        if label is not None:
            if label not in self.labels:
                raise InputError(f"no label {label!r} (labels: {', '.join(self.labels)})")
            frame = frame[frame["label"] == label]
            keys = ["item"]
        table = frame.pivot(index=keys, columns="annotator", values="value")
        order = frame[keys].drop_duplicates()
        rows = pd.Index(order["item"]) if label is not None else pd.MultiIndex.from_frame(order)
        return table.reindex(index=rows, columns=self.annotators)


def read_long(
    source: Source,
    item_col: str | None = None,
    annotator_col: str | None = None,
    label_col: str | None = None,
    value_col: str | None = None,
    text_col: str | None = None,
    labels: Sequence[str] | None = None,
    level: Level | None = None,
    scale: Scale | None = RATING_SCALE,
    name: str | None = None,
) -> Annotations:
    """Read the long layout: one row per (item, annotator, label[, value]).

    Without ``value_col`` a row means "this annotator chose this label" (value 1); every other label in
    ``labels`` then counts as 0 for an annotator who rated the item, and a row with an empty label records an
    annotator who chose no label at all. With ``value_col`` each row carries its number, an empty value means
    "not rated", questions without a row stay unrated, and an item whose every value is empty is left out (an
    export's text that was only ever skipped). ``labels`` declares the label set (default: the
    labels found, sorted); a label outside it is an error. ``level`` defaults to ``nominal`` for 0/1 values
    and ``ordinal`` otherwise; below the ``interval`` level a rating must be a whole number. A rating outside
    ``scale`` (default :data:`RATING_SCALE`, 0-3; None: any) is an error naming its row. A column not named is
    found by its common names (:data:`COMMON_COLUMNS`). ``name`` is how messages call the source (default: its file
    name).
    """
    table, read_as = read_table(source)
    name = name or read_as
    item_col = find_column(table, "item", item_col, name)
    annotator_col = find_column(table, "annotator", annotator_col, name)
    label_col = find_column(table, "label", label_col, name)
    require_columns(table, [value_col, text_col], name)
    items = _ids(table[item_col], item_col, name)
    annotators = _ids(table[annotator_col], annotator_col, name)
    label_cells = text_column(table[label_col]).reset_index(drop=True)
    if value_col is None:
        frame, declared = _expand_presence(items, annotators, label_cells, labels, name)
    else:
        values = numeric_column(table[value_col], value_col, name, scale, whole=level != "interval")
        frame = pd.DataFrame({"item": items, "annotator": annotators, "label": label_cells, "value": values})
        _reject_blank(frame["label"], label_col, name)
        declared = _declared_labels(frame["label"], labels, name)
        frame = frame.dropna(subset=["value"])
    texts = _texts(items, table[text_col], name) if text_col else {}
    rated = set(items.unique()) if value_col is None else set(frame["item"])
    return _annotations(frame, declared, level, {k: v for k, v in texts.items() if k in rated}, name, rated)


def read_wide(
    source: Source,
    item_col: str | None = None,
    label_col: str | None = None,
    annotator_cols: Sequence[str] | None = None,
    text_col: str | None = None,
    labels: Sequence[str] | None = None,
    level: Level | None = None,
    scale: Scale | None = RATING_SCALE,
    name: str | None = None,
) -> Annotations:
    """Read the wide layout: one row per (item, label), one column of values per annotator.

    ``annotator_cols`` defaults to every column whose name starts with "Annotator" (any case). An empty cell
    means that annotator did not rate the question, not 0. ``labels``, ``level`` and ``scale`` work as in
    :func:`read_long`; so does finding the item and label columns by their common names (EmoBench-UA's released
    file: ``text_id`` and ``emotion``).
    """
    table, read_as = read_table(source)
    name = name or read_as
    item_col = find_column(table, "item", item_col, name)
    label_col = find_column(table, "label", label_col, name)
    require_columns(table, [text_col, *(annotator_cols or [])], name)
    columns = list(annotator_cols) if annotator_cols else _annotator_columns(table, name)
    items = _ids(table[item_col], item_col, name)
    label_cells = text_column(table[label_col]).reset_index(drop=True)
    _reject_blank(label_cells, label_col, name)
    declared = _declared_labels(label_cells, labels, name)
    duplicated = pd.DataFrame({"item": items, "label": label_cells}).duplicated()
    if duplicated.any():
        row = int(np.flatnonzero(duplicated)[0])
        raise InputError(f"{name} data row {row + 1}: item {items[row]!r} has a second {label_cells[row]!r} row")
    frames = [
        pd.DataFrame({"item": items, "annotator": str(column), "label": label_cells}).assign(
            value=numeric_column(table[column], str(column), name, scale, whole=level != "interval")
        )
        for column in columns
    ]
    frame = pd.concat(frames, ignore_index=True).dropna(subset=["value"])
    texts = _texts(items, table[text_col], name) if text_col else {}
    return _annotations(frame, declared, level, texts, name, set(items.unique()))


LAYOUTS = ("auto", "long", "wide")


def guess_layout(
    columns: Sequence[str],
    annotator_col: str | None = None,
    annotator_cols: Sequence[str] | None = None,
    value_col: str | None = None,
) -> str:
    """The layout the options imply (``annotator_cols``: wide; ``annotator_col`` or ``value_col``: long), else
    ``wide`` when a column name starts with "Annotator" (any case) and is not the long layout's annotator column,
    else ``long``."""
    if annotator_cols is not None:
        return "wide"
    if annotator_col is not None or value_col is not None:
        return "long"
    named = [str(column).strip().lower() for column in columns]
    return "wide" if any(name.startswith("annotator") and name != "annotator" for name in named) else "long"


def read_ratings(
    source: Source,
    layout: str = "auto",
    item_col: str | None = None,
    annotator_col: str | None = None,
    label_col: str | None = None,
    value_col: str | None = None,
    text_col: str | None = None,
    annotator_cols: Sequence[str] | None = None,
    labels: Sequence[str] | None = None,
    level: Level | None = None,
    scale: Scale | None = RATING_SCALE,
    binarize_values: bool = False,
) -> Annotations:
    """A ratings file (or table) in either layout, read once: ``layout`` ``long``, ``wide`` or ``auto``
    (:func:`guess_layout` from its columns and the options given), then :func:`read_long` or :func:`read_wide`,
    and :func:`binarize` with ``binarize_values``. What ``affectlab annotate`` reads its input with."""
    if layout not in LAYOUTS:
        raise InputError(f"--layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
    table, name = read_table(source)
    if layout == "auto":
        layout = guess_layout(list(table.columns), annotator_col, annotator_cols, value_col)
    if layout == "wide":
        for option, value in (("--annotator-col", annotator_col), ("--value-col", value_col)):
            if value is not None:
                raise InputError(f"{option} is for the long layout; this file is read as wide (see --layout)")
        ratings = read_wide(table, item_col, label_col, annotator_cols, text_col, labels, level, scale, name)
    else:
        if annotator_cols is not None:
            raise InputError("--annotator-cols is for the wide layout; this file is read as long (see --layout)")
        ratings = read_long(table, item_col, annotator_col, label_col, value_col, text_col, labels, level, scale, name)
    return binarize(ratings) if binarize_values else ratings


@dataclass(frozen=True)
class RatingsSource:
    """A ratings file (or table) and how to read it: the reading options of ``affectlab annotate``, kept together
    so that a whole job (:mod:`affectlab.annotation.jobs`) takes them as one argument."""

    source: Source
    layout: str = "auto"
    item_col: str | None = None
    annotator_col: str | None = None
    label_col: str | None = None
    value_col: str | None = None
    text_col: str | None = None
    annotator_cols: Sequence[str] | None = None
    labels: Sequence[str] | None = None
    scale: Scale | None = RATING_SCALE
    binarize_values: bool = False

    @property
    def name(self) -> str:
        """The file's name for messages and reports."""
        return "the data frame" if isinstance(self.source, pd.DataFrame) else str(self.source)

    def read(self, level: Level | None = None) -> Annotations:
        """The ratings, read by :func:`read_ratings` (``level``: how values compare; default from the values)."""
        return read_ratings(
            self.source, self.layout, self.item_col, self.annotator_col, self.label_col, self.value_col,
            self.text_col, self.annotator_cols, self.labels, level, self.scale, self.binarize_values,
        )  # fmt: skip


def read_controls(source: Source, scale: Scale | None = RATING_SCALE) -> dict[tuple[str, str], float]:
    """The known answers of control questions: one row per (item, label) with its ``value`` (an item column and a
    label column found by their common names, :data:`COMMON_COLUMNS`, and a column ``value``), for
    :func:`~affectlab.annotation.aggregation.aggregate`'s ``controls``. A question given twice is an error."""
    table, name = read_table(source)
    item_col, label_col = find_column(table, "item", None, name), find_column(table, "label", None, name)
    require_columns(table, ["value"], name)
    items = _ids(table[item_col], item_col, name)
    labels = text_column(table[label_col]).reset_index(drop=True)
    _reject_blank(labels, label_col, name)
    values = numeric_column(table["value"], "value", name, scale, whole=False)
    if np.isnan(values).any():
        raise InputError(f"{name} data row {int(np.isnan(values).argmax()) + 1}: a control question has no value")
    keys = list(zip(items, labels, strict=True))
    if len(set(keys)) < len(keys):
        item, label = next(k for k, n in Counter(keys).items() if n > 1)
        raise InputError(f"{name}: control item {item!r}, label {label!r} is given twice")
    return {key: float(value) for key, value in zip(keys, values, strict=True)}


def binarize(annotations: Annotations) -> Annotations:
    """Presence ratings: a value above 0 becomes 1, else 0, and the level becomes nominal (EmoBench-UA's
    binary labels are the SemEval-2025 intensities above 0)."""
    frame = annotations.frame.assign(value=(annotations.frame["value"] > 0).astype(float))
    return replace(annotations, frame=frame, level="nominal")


def read_table(source: Source) -> tuple[pd.DataFrame, str]:
    """The table and a name for messages (the file name); files are read as strict UTF-8 CSV, TSV or JSON Lines
    by extension, and a table without rows is an error."""
    if isinstance(source, pd.DataFrame):
        table, name = source.reset_index(drop=True), "the data frame"
    else:
        path = Path(source)
        name = path.name
        suffix = table_format(path, RECORD_SUFFIXES)
        table = _read_delimited(path, suffix) if suffix in DELIMITERS else pd.DataFrame(read_records(path))
    if table.empty:
        raise InputError(f"{name} has no rows")
    return table, name


def _read_delimited(path: Path, suffix: str) -> pd.DataFrame:
    """A CSV/TSV file as a table of strings ('' for an empty cell), checked as strict UTF-8. pandas' C parser
    instead of :mod:`affectlab.io.tables`' csv module: a crowd file of 3 million ratings reads about 5x faster."""
    text = read_text(path)
    if not text.strip():
        raise InputError(f"{path.name} is empty")
    try:
        return pd.read_csv(io.StringIO(text), sep=DELIMITERS[suffix], dtype=str, keep_default_na=False)
    except pd.errors.ParserError as exc:
        raise InputError(f"{path.name}: {str(exc).strip().splitlines()[-1]}") from None


COMMON_COLUMNS: dict[str, tuple[str, ...]] = {
    "item": ("item", "item_id", "text_id", "id", "unit", "unit_id", "example_id", "comment_id"),
    "annotator": ("annotator", "annotator_id", "rater", "rater_id", "worker", "worker_id", "coder", "user_id"),
    "label": ("label", "emotion", "category", "class", "question"),
}
"""Names (compared in any case) by which a role's column is found when the user does not name it."""


def find_column(table: pd.DataFrame, role: str, given: str | None, name: str) -> str:
    """The column that holds ``role`` (``item``, ``annotator`` or ``label``): ``given`` if the user named it,
    else the first of the role's :data:`COMMON_COLUMNS` the table has. A missing column is an :class:`InputError`
    that suggests the likely one ("did you mean --item-col text_id?")."""
    available = ", ".join(map(str, table.columns))
    guess = _common_column(table, role)
    if given is not None:
        if given in table.columns:
            return given
        hint = f"; did you mean --{role}-col {guess}?" if guess is not None else ""
        raise InputError(f"{name} has no column {given!r} (columns: {available}){hint}")
    if guess is None:
        looked = ", ".join(COMMON_COLUMNS[role])
        raise InputError(
            f"{name} has no {role} column (none of {looked}; columns: {available}): name it with --{role}-col"
        )
    return guess


def _common_column(table: pd.DataFrame, role: str) -> str | None:
    by_lower = {str(column).strip().lower(): str(column) for column in reversed(table.columns)}
    return next((by_lower[common] for common in COMMON_COLUMNS[role] if common in by_lower), None)


def require_columns(table: pd.DataFrame, columns: Sequence[str | None], name: str) -> None:
    """Raise :class:`InputError` naming the ``columns`` (None entries skipped) that ``table`` lacks."""
    missing = [c for c in columns if c is not None and c not in table.columns]
    if missing:
        available = ", ".join(map(str, table.columns))
        raise InputError(f"{name} has no column {', '.join(map(repr, missing))} (columns: {available})")


def _annotator_columns(table: pd.DataFrame, name: str) -> list[str]:
    columns = [c for c in table.columns if str(c).lower().startswith("annotator")]
    if not columns:
        available = ", ".join(map(str, table.columns))
        raise InputError(f"{name} has no column starting with 'Annotator'; name them (columns: {available})")
    return columns


def cell_text(cell: object) -> str:
    """A cell as stripped text; missing cells (None, NaN) become '' and whole floats lose their '.0'."""
    if cell is None or (isinstance(cell, float) and np.isnan(cell)):
        return ""
    if isinstance(cell, float) and cell.is_integer():
        return str(int(cell))  # ids read by pandas as 1.0 stay "1"
    return str(cell).strip()


def text_column(column: pd.Series) -> pd.Series:
    """:func:`cell_text` applied to a whole column (object dtype). Columns of strings, which is what files are
    read as, take a vectorised path: a crowd file holds millions of cells."""
    if pd.api.types.is_string_dtype(column.dtype) and not pd.api.types.is_object_dtype(column.dtype):
        stripped = column.fillna("").str.strip()
        return pd.Series(stripped.to_numpy(dtype=object), index=column.index, dtype=object)
    return column.map(cell_text).astype(object)


def _ids(column: pd.Series, column_name: str, name: str) -> pd.Series:
    ids = text_column(column).reset_index(drop=True)
    _reject_blank(ids, column_name, name)
    return ids


def _reject_blank(cells: pd.Series, column_name: str, name: str) -> None:
    blank = np.flatnonzero(np.asarray(cells == ""))
    if len(blank):
        raise InputError(f"{name} data row {blank[0] + 1}: column {column_name!r} is empty")


def numeric_column(
    column: pd.Series, column_name: str, name: str, scale: Scale | None = None, whole: bool = False
) -> np.ndarray:
    """The column as floats, NaN for empty cells; any other non-number is an error, and so is a rating outside
    ``scale`` (low, high) or, with ``whole``, one with a fraction (categories cannot be 2.5)."""
    text = text_column(column)
    values = pd.to_numeric(text.where(text != ""), errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero((text != "").to_numpy() & ~np.isfinite(values))
    if len(bad):
        row = int(bad[0])
        raise InputError(f"{name} data row {row + 1}: {text.iloc[row]!r} in column {column_name!r} is not a number")
    with np.errstate(invalid="ignore"):
        if whole and len(fractional := np.flatnonzero(np.isfinite(values) & (values % 1 != 0))):
            row = int(fractional[0])
            raise InputError(
                f"{name} data row {row + 1}: rating {text.iloc[row]} in column {column_name!r} is not a whole number "
                "(ratings are categories here; use the interval level for ratings with fractions)"
            )
        if scale is not None and len(outside := np.flatnonzero((values < scale[0]) | (values > scale[1]))):
            row = int(outside[0])
            raise InputError(
                f"{name} data row {row + 1}: rating {text.iloc[row]} in column {column_name!r} is outside the scale "
                f"{scale[0]:g}-{scale[1]:g} (declare another scale if the file uses one)"
            )
    return values


def _declared_labels(found: pd.Series, labels: Sequence[str] | None, name: str) -> tuple[str, ...]:
    present = [label for label in found.unique() if label != ""]
    if labels is None:
        if not present:
            raise InputError(f"{name} has no labels")
        return tuple(sorted(present))
    declared = tuple(str(label).strip() for label in labels)
    if not declared:
        raise InputError("the declared label list is empty")
    unknown = [label for label in present if label not in declared]
    if unknown:
        shown = ", ".join(map(repr, unknown[:5]))
        raise InputError(f"{name}: label {shown} is not among the declared labels ({', '.join(declared)})")
    return declared


def _expand_presence(
    items: pd.Series, annotators: pd.Series, label_cells: pd.Series, labels: Sequence[str] | None, name: str
) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Long presence rows -> one 0/1 rating per declared label for every (item, annotator) seen."""
    declared = _declared_labels(label_cells, labels, name)
    rows = pd.DataFrame({"item": items, "annotator": annotators, "label": label_cells})
    chosen = rows[rows["label"] != ""].drop_duplicates().assign(value=1.0)
    pairs = rows[["item", "annotator"]].drop_duplicates()
    frame = pairs.loc[pairs.index.repeat(len(declared))].reset_index(drop=True)
    frame["label"] = np.tile(np.asarray(declared, dtype=object), len(pairs))
    frame = frame.merge(chosen, on=["item", "annotator", "label"], how="left")
    frame["value"] = frame["value"].fillna(0.0)
    return frame, declared


def _texts(items: pd.Series, column: pd.Series, name: str) -> dict[str, str]:
    pairs = pd.DataFrame({"item": items, "text": text_column(column).reset_index(drop=True)}).drop_duplicates()
    clashing = pairs["item"].duplicated()
    if clashing.any():
        raise InputError(f"{name}: item {pairs['item'][clashing].iloc[0]!r} has two different texts")
    return dict(zip(pairs["item"], pairs["text"], strict=True))


def _annotations(
    frame: pd.DataFrame,
    labels: tuple[str, ...],
    level: Level | None,
    texts: dict[str, str],
    name: str,
    items: set[str],
) -> Annotations:
    """Check the long frame (no duplicates, every item rated) and wrap it."""
    frame = frame[COLUMNS].reset_index(drop=True)
    duplicated = frame.duplicated(["item", "annotator", "label"])
    if duplicated.any():
        item, annotator, label = frame.loc[duplicated.idxmax(), ["item", "annotator", "label"]]
        raise InputError(f"{name}: annotator {annotator!r} rated {label!r} of item {item!r} twice")
    unrated = sorted(items - set(frame["item"]))
    if unrated:
        raise InputError(f"{name}: item {', '.join(map(repr, unrated[:5]))} has no rating at all")
    if level is None:
        level = "nominal" if frame["value"].isin([0.0, 1.0]).all() else "ordinal"
    elif level not in LEVELS:
        raise InputError(f"level {level!r} is not one of {', '.join(LEVELS)}")
    return Annotations(frame=frame, labels=labels, level=level, texts=texts)
