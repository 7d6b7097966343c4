"""SemEval-2025 Task 11 (BRIGHTER) track A: multi-label perceived emotions in 28 languages. The Ukrainian part is
EmoBench-UA (Dementieva, Babakov, Fraser).

Files: ``semeval2025_task11/track_a/{split}/{lang}.csv`` with header ``id,text,<emotions>`` and 0/1 cells
(RFC-4180 quoting, newlines inside texts). English has no ``disgust`` column and Afrikaans no ``surprise``
(:data:`EMOTIONS`). A row with every emotion at 0 gets the label ``none``; Spanish has no such row in any split, so
its label space has no ``none``. Quirks handled here:

* the English track A test gold is blank upstream; its labels are taken from track B (intensity > 0), which lines
  up row by row with track A and equals the earlier released 0/1 gold on every row;
* ``#NAME?`` (a spreadsheet formula error) is the whole text of a few English rows and one Swedish one; those rows
  are dropped.

Track B (``track_b/{split}/{lang}.csv``, same columns, cells 0-3) rates the intensity of each emotion in
:data:`INTENSITY_SPLITS`' languages; :func:`load_intensity` gives its rows with ``meta["intensity"]`` (emotion ->
0-3) and the labels of the emotions rated above 0. Romanian has no Track B train split, and Russian's Track B rows are
not Track A's (2,220 vs 2,679 in train), so Track A rows are joined to their intensities by text
(:func:`intensities_by_text`), not by position.
"""

from __future__ import annotations

import json
import os
from typing import Any

from affectlab.datasets.schema import Example, example, to_dataset_dict
from affectlab.datasets.sources import data_file
from affectlab.errors import InputError
from affectlab.io.tables import read_delimited
from affectlab.labels import EKMAN, INTENSITY_SCALE, LabelSpace
from affectlab.languages import BRIGHTER_LANGS, BRIGHTER_LANGUAGE_NAMES, BY_CODE, SPLITS

LANGS = BRIGHTER_LANGS
LANGUAGE_NAMES = BRIGHTER_LANGUAGE_NAMES
EMOTIONS = {code: language.emotions for code, language in BY_CODE.items()}
"""The emotion columns each language annotates (the MANIFEST's table)."""
WITHOUT_NEUTRAL = tuple(code for code, language in BY_CODE.items() if not language.has_neutral)
"""Languages with no row without an emotion in any split: their label space has no ``none``."""
_RATED = [(code, language.intensity_splits) for code, language in BY_CODE.items() if language.intensity_splits]
INTENSITY_SPLITS = dict(sorted(_RATED, key=lambda rated: rated[1] != SPLITS))
"""The languages Track B rates intensity in, and their splits (those with all three first: the order of the
registered track B datasets)."""
SPREADSHEET_ERRORS = {"#NAME?"}
URL = (
    "https://raw.githubusercontent.com/emotion-analysis-project/SemEval2025-Task11/"
    "513a7e8bef7ef6370ac416ced97efba338c47c97/task-dataset/semeval-2025-task11-dataset/{path}"
)
CITATION_BRIGHTER = (
    "Muhammad, S. H., et al. (2025). BRIGHTER: BRIdging the Gap in Human-Annotated Textual Emotion Recognition "
    "Datasets for 28 Languages. arXiv:2502.11926."
)
CITATION_EMOBENCH = (
    "Dementieva, D., Babakov, N., Fraser, A. (2025). EmoBench-UA: A Benchmark Dataset for Emotion Detection in "
    "Ukrainian. arXiv:2505.23297."
)


def label_space(lang: str) -> LabelSpace:
    """The language's emotion columns (:data:`EMOTIONS`) and ``none``: Ekman-6 + none for most; English has no
    disgust, Afrikaans no surprise, and every Spanish row carries an emotion (no ``none`` in any split), so their
    spaces leave those labels out rather than score an empty class."""
    return _ekman_space([*EMOTIONS[lang], *([] if lang in WITHOUT_NEUTRAL else ["none"])])


def _ekman_space(labels: list[str]) -> LabelSpace:
    """Ekman itself for all its labels, else the subset named by the labels it leaves out."""
    if tuple(labels) == EKMAN.labels:
        return EKMAN
    left_out = [label for label in EKMAN.labels if label not in labels]
    return EKMAN.subset("ekman-no-" + "-".join(left_out), labels)


def _read_table(track: str, split: str, lang: str, data_dir: str | os.PathLike[str] | None) -> list[list[str]]:
    relative = f"{track}/{split}/{lang}.csv"
    path = data_file(f"semeval2025_task11/{relative}", URL.format(path=relative), data_dir)
    rows = read_delimited(path, ",")
    if not rows or rows[0][:2] != ["id", "text"]:
        raise InputError(f"{str(path)!r}: expected a header starting with id,text")
    return rows


def read_split(lang: str, split: str, data_dir: str | os.PathLike[str] | None) -> list[Example]:
    """Rows of one language and split of track A."""
    table = _read_table("track_a", split, lang, data_dir)
    header, body = table[0], table[1:]
    emotions = header[2:]
    if body and all(cell == "" for row in body for cell in row[2:]):  # blank gold: use track B intensities
        table_b = _read_table("track_b", split, lang, data_dir)
        body = _gold_from_track_b(body, table_b[1:], lang, split)
    rows = []
    for fields in body:
        row_id, text, cells = fields[0], fields[1], fields[2:]
        if text.strip() in SPREADSHEET_ERRORS:
            continue
        labels = [emotion for emotion, cell in zip(emotions, cells, strict=True) if float(cell) > 0] or ["none"]
        rows.append(example(row_id, text, labels, LANGS[lang]))
    return rows


def _gold_from_track_b(body_a: list[list[str]], body_b: list[list[str]], lang: str, split: str) -> list[list[str]]:
    if len(body_a) != len(body_b):
        raise InputError(f"track A and B {lang} {split} differ in length ({len(body_a)} vs {len(body_b)})")
    merged = []
    for row_a, row_b in zip(body_a, body_b, strict=True):
        if row_a[0] != row_b[0].replace("track_b", "track_a") or row_a[1] != row_b[1]:
            raise InputError(f"track A and B {lang} {split} do not line up at id {row_a[0]!r}")
        merged.append(row_a[:2] + ["1" if float(v) > 0 else "0" for v in row_b[2:]])
    return merged


def intensity_label_space(lang: str) -> LabelSpace:
    """The labels of a Track B row: the language's emotions and ``none`` (every Track B language has rows rated 0
    throughout, Spanish too)."""
    return _ekman_space([*EMOTIONS[lang], "none"])


def read_intensity_split(lang: str, split: str, data_dir: str | os.PathLike[str] | None) -> list[Example]:
    """Rows of one language and split of Track B: labels the emotions rated above 0 (else ``none``) and
    ``meta["intensity"]`` each emotion column's 0-3 rating."""
    table = _read_table("track_b", split, lang, data_dir)
    emotions, rows = table[0][2:], []
    for fields in table[1:]:
        row_id, text, cells = fields[0], fields[1], fields[2:]
        if text.strip() in SPREADSHEET_ERRORS:
            continue
        ratings = {emotion: int(float(cell)) for emotion, cell in zip(emotions, cells, strict=True)}
        low, high = INTENSITY_SCALE
        if any(not low <= value <= high for value in ratings.values()):
            raise InputError(f"track B {lang} {split} row {row_id!r}: intensities must lie in {low}-{high}")
        labels = [emotion for emotion, value in ratings.items() if value > 0] or ["none"]
        rows.append(example(row_id, text, labels, LANGS[lang], meta={"intensity": ratings}))
    return rows


def intensities_by_text(lang: str, split: str, data_dir: str | os.PathLike[str] | None) -> dict[str, dict[str, int]]:
    """Track B's ratings of one split keyed by text (the first row of a repeated text), for joining Track A rows;
    empty where the language has no such Track B split."""
    if split not in INTENSITY_SPLITS.get(lang, ()):
        return {}
    by_text: dict[str, dict[str, int]] = {}
    for row in read_intensity_split(lang, split, data_dir):
        by_text.setdefault(row["text"], json.loads(row["meta"])["intensity"])
    return by_text


def load_intensity(lang: str, data_dir: str | os.PathLike[str] | None = None) -> Any:
    """Load Track B for ``lang`` (a key of :data:`INTENSITY_SPLITS`)."""
    if lang not in INTENSITY_SPLITS:
        raise ValueError(f"SemEval-2025 track B has no {lang!r} data")
    splits = {split: read_intensity_split(lang, split, data_dir) for split in INTENSITY_SPLITS[lang]}
    return to_dataset_dict(splits, description=f"SemEval-2025 Task 11 track B ({lang})")


def load(lang: str, data_dir: str | os.PathLike[str] | None = None) -> Any:
    """Load track A for ``lang`` (a key of :data:`LANGS`: ``ukr``, ``eng``, ``esp``, ``deu``, ...)."""
    if lang not in LANGS:
        raise ValueError(f"unknown SemEval-2025 language {lang!r}")
    splits = {split: read_split(lang, split, data_dir) for split in SPLITS}
    return to_dataset_dict(splits, description=f"SemEval-2025 Task 11 track A ({lang})")
