"""A user's own labelled file (CSV, TSV or JSON Lines), or a directory of ``train``/``dev``/``test`` files, read
into the standard columns. Splits come from a ``--split-col``, from separate files in a directory, or, for a
single file without one, the whole file is the ``test`` split."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from affectlab.datasets.schema import Example, example, to_dataset_dict
from affectlab.errors import DataNotFoundError, InputError
from affectlab.io.tables import RECORD_SUFFIXES, read_records
from affectlab.labels import LABEL_SPACES, LabelSpace

EXTENSIONS = RECORD_SUFFIXES
SPLIT_ALIASES = {"train": "train", "dev": "dev", "validation": "dev", "valid": "dev", "val": "dev", "test": "test"}
DEFAULT_LABEL_COLUMNS = ("labels", "label", "emotions", "emotion")


@dataclass(frozen=True)
class FileOptions:
    """How to read a user file: which columns hold the text, the labels, the split, earlier dialogue turns
    (``context_col``, joined by ``context_sep``) and the language; ``label_sep`` splits multi-label cells."""

    text_col: str = "text"
    label_col: str | None = None
    label_sep: str | None = None
    split_col: str | None = None
    context_col: str | None = None
    context_sep: str = " __eot__ "
    lang_col: str | None = None
    id_col: str | None = None


def is_user_file(name: str) -> bool:
    """Whether a dataset argument names a file or directory rather than a registered dataset."""
    path = Path(name)
    return path.suffix.lower() in EXTENSIONS or path.is_dir() or path.is_file() or "/" in name


def split_files(path: Path) -> dict[str, Path]:
    """The split files of a directory (``train.csv``, ``dev.tsv``, ``validation.jsonl``, ``test.csv``...)."""
    found: dict[str, Path] = {}
    for file in sorted(path.iterdir()):
        split = SPLIT_ALIASES.get(file.stem.lower())
        if split and file.suffix.lower() in EXTENSIONS:
            if split in found:
                raise InputError(f"{str(path)!r} holds two {split} files: {found[split].name} and {file.name}")
            found[split] = file
    if not found:
        raise InputError(f"{str(path)!r} holds no train/dev/test file ({', '.join(EXTENSIONS)})")
    return found


def read_user_rows(path: Path, options: FileOptions) -> dict[str, list[dict[str, Any]]]:
    """Raw records per split, with the columns checked."""
    if not path.exists():
        raise DataNotFoundError(f"file {str(path)!r} does not exist")
    if path.is_dir():
        return {split: _checked_records(file, options) for split, file in split_files(path).items()}
    records = _checked_records(path, options)
    if options.split_col is None:
        return {"test": records}
    by_split: dict[str, list[dict[str, Any]]] = {}
    for number, record in enumerate(records, start=1):
        cell = record.get(options.split_col)  # a JSON Lines record may lack the field the first one has
        value = "" if cell is None else str(cell).strip().lower()
        if value not in SPLIT_ALIASES:
            raise InputError(f"{path.name} row {number}: split {value!r} is not one of train, dev, test")
        by_split.setdefault(SPLIT_ALIASES[value], []).append(record)
    return by_split


def _checked_records(path: Path, options: FileOptions) -> list[dict[str, Any]]:
    records = read_records(path)
    if not records:
        raise InputError(f"{str(path)!r} has no rows")
    columns = list(records[0])
    wanted = [
        options.text_col,
        options.label_col,
        options.split_col,
        options.context_col,
        options.lang_col,
        options.id_col,
    ]
    for column in wanted:
        if column is not None and column not in columns:
            raise InputError(f"{path.name} has no column {column!r} (columns: {', '.join(columns)})")
    for number, record in enumerate(records, start=1):
        text = record.get(options.text_col)
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{path.name} row {number}: the text in column {options.text_col!r} is empty")
    return records


def label_column(records: Sequence[dict[str, Any]], options: FileOptions) -> str | None:
    """The label column: the one named, else the first of labels/label/emotions/emotion present, else None."""
    if options.label_col is not None:
        return options.label_col
    return next((c for c in DEFAULT_LABEL_COLUMNS if c in records[0]), None)


def _split_labels(cell: Any, label_sep: str | None) -> list[str]:
    if cell is None:
        return []
    if isinstance(cell, list):
        return [str(x).strip() for x in cell if str(x).strip()]
    text = str(cell).strip()
    if not text:
        return []
    parts = text.split(label_sep) if label_sep else [text]
    return [p.strip() for p in parts if p.strip()]


def infer_label_space(raw: Sequence[Sequence[str]], hint: LabelSpace | None, name: str, multi: bool) -> LabelSpace:
    """The label space of a file: ``hint`` if given (labels must belong to it), else the first registered space
    that holds every label (names in English, Ukrainian or Spanish), else a new space of the labels seen."""
    seen = sorted({label for labels in raw for label in labels})
    candidates = [hint] if hint is not None else [space for _, space in LABEL_SPACES.items()]
    for space in candidates:
        try:
            [space.canonical(label) for label in seen]
        except InputError:
            if hint is not None:
                raise
            continue
        return space
    lowered = [label.lower() for label in seen]
    none_label = next((n for n in ("none", "neutral", "others") if n in lowered), None)
    return LabelSpace(name=name, labels=tuple(lowered), multi_label=multi, none_label=none_label)


def load_user_dataset(
    path: str | Path, options: FileOptions | None = None, label_space: LabelSpace | None = None
) -> tuple[Any, LabelSpace | None]:
    """Read a user file or directory into a ``DatasetDict`` and its label space (None when it has no labels)."""
    options = options or FileOptions()
    path = Path(path)
    splits = read_user_rows(path, options)
    first = next(iter(splits.values()))
    column = label_column(first, options)
    raw = {
        s: [_split_labels(r.get(column), options.label_sep) if column else [] for r in rs] for s, rs in splits.items()
    }
    all_raw = [labels for rows in raw.values() for labels in rows]
    space = None
    if column is not None and any(all_raw):
        multi = options.label_sep is not None or any(len(labels) > 1 for labels in all_raw)
        space = infer_label_space(all_raw, label_space, path.stem, multi)
    examples = {s: _examples(path, rs, raw[s], space, options, s) for s, rs in splits.items()}
    return to_dataset_dict(examples, description=f"user file {path.name}"), space


def _examples(
    path: Path,
    records: list[dict[str, Any]],
    raw: list[list[str]],
    space: LabelSpace | None,
    options: FileOptions,
    split: str,
) -> list[Example]:
    rows = []
    for number, (record, labels) in enumerate(zip(records, raw, strict=True), start=1):
        if space is not None:
            labels = [space.canonical(label) for label in labels]
            if not labels:
                if space.none_label is None:
                    raise InputError(f"{path.name} {split} row {number}: no label")
                labels = [space.none_label]
        context_cell = record.get(options.context_col) if options.context_col else None
        context = [t for t in str(context_cell).split(options.context_sep) if t] if context_cell else []
        extra = {k: v for k, v in record.items() if k not in (options.text_col, options.context_col)}
        rows.append(
            example(
                id=str(record[options.id_col]) if options.id_col else f"{split}-{number}",
                text=str(record[options.text_col]),
                labels=labels,
                lang=str(record[options.lang_col]) if options.lang_col else "",
                context=context,
                meta=json.loads(json.dumps(extra, default=str)),
            )
        )
    return rows
