"""Datasets by name, each loading to a ``datasets.DatasetDict`` with the standard columns
(``id, text, context, labels, lang, meta``); anywhere a name is taken, a user file or directory is taken too."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from affectlab.datasets import emocontext, goemotions, semeval2025
from affectlab.datasets.spec import DatasetSpec
from affectlab.datasets.userfile import SPLIT_ALIASES, FileOptions, is_user_file, load_user_dataset
from affectlab.errors import InputError
from affectlab.labels import EKMAN, EMOCONTEXT, GOEMOTIONS, SENTIMENT, LabelSpace, primary_metric_for
from affectlab.registry import Registry

__all__ = ["DATASETS", "DatasetSpec", "FileOptions", "first_rows", "get_dataset", "load_dataset", "resolve_dataset"]

DATASETS: Registry[DatasetSpec] = Registry("dataset")


def _register(spec: DatasetSpec) -> None:
    DATASETS.add(spec.name, spec)


def _goemotions_view(
    name: str,
    title: str,
    label_space: LabelSpace,
    loader: Callable[[str | os.PathLike[str] | None], Any],
    notes: str = "",
) -> DatasetSpec:
    """GoEmotions read into ``label_space``: every view has the same comments, splits, source and metric."""
    return DatasetSpec(
        name=name,
        title=title,
        label_space=label_space,
        primary_metric="macro_f1",
        languages=("en",),
        splits=goemotions.SPLITS,
        loader=loader,
        source="google-research goemotions/data (official simplified splits)",
        license="Apache-2.0 (google-research repository)",
        citation=goemotions.CITATION,
        notes=notes,
    )


_register(_goemotions_view("goemotions", "GoEmotions, 27 emotions + neutral (Reddit)", GOEMOTIONS, goemotions.load))
_register(
    _goemotions_view(
        "goemotions-ekman",
        "GoEmotions mapped to Ekman-6 + none (section 5.1)",
        EKMAN,
        goemotions.load_ekman,
        notes="neutral is mapped to none",
    )
)
_register(
    _goemotions_view(
        "goemotions-sentiment", "GoEmotions mapped to sentiment (section 5.1)", SENTIMENT, goemotions.load_sentiment
    )
)
_register(
    DatasetSpec(
        name="emocontext",
        title="SemEval-2019 Task 3 EmoContext (3-turn dialogues)",
        label_space=EMOCONTEXT,
        primary_metric="micro_f1_emotions",
        languages=("en",),
        splits=emocontext.SPLITS,
        loader=emocontext.load,
        source="SemEval-2019 Task 3 release (train, dev = Test1, test = Test2)",
        license="released by the SemEval-2019 Task 3 organisers for research; check their terms",
        citation=emocontext.CITATION,
        notes="dev is the official Test1 set and test the final Test2 set",
    )
)
_SEMEVAL2025_NOTES = {
    "eng": "no disgust label; test gold from track B (intensity > 0); #NAME? rows dropped",
    "esp": "no row without an emotion, so no none label",
    "afr": "no surprise label",
}


def _semeval2025(
    track: str, lang: str, space: LabelSpace, metric: str, splits: tuple[str, ...], load: Callable, notes: str
) -> DatasetSpec:
    """SemEval-2025 Task 11 (BRIGHTER) ``track`` A (labels) or B (intensity 0-3) in ``lang``."""
    name, scale = (f"semeval2025-{lang}", "") if track == "A" else (f"semeval2025-{lang}-intensity", " (intensity 0-3)")
    return DatasetSpec(
        name=name,
        title=f"SemEval-2025 Task 11 track {track}{scale}, {semeval2025.LANGUAGE_NAMES[lang]}",
        label_space=space,
        primary_metric=metric,
        languages=(semeval2025.LANGS[lang],),
        splits=splits,
        loader=partial(load, lang),
        source=f"SemEval-2025 Task 11 / BRIGHTER track {track}",
        license="CC BY 4.0",
        citation=semeval2025.CITATION_BRIGHTER,
        notes=notes,
    )


# track A's official score; emobench-ua keeps its paper's 7-label macro-F1
for _lang in semeval2025.LANGS:
    _space = semeval2025.label_space(_lang)
    _notes = _SEMEVAL2025_NOTES.get(_lang, "")
    _register(_semeval2025("A", _lang, _space, "macro_f1_emotions", semeval2025.SPLITS, semeval2025.load, _notes))
for _lang, _splits in semeval2025.INTENSITY_SPLITS.items():
    _space = semeval2025.intensity_label_space(_lang)
    _notes = "meta.intensity rates each emotion 0-3" + ("; no train split" if "train" not in _splits else "")
    _register(_semeval2025("B", _lang, _space, "pearson_intensity", _splits, semeval2025.load_intensity, _notes))
_register(
    replace(
        DATASETS.get("semeval2025-ukr"),
        name="emobench-ua",
        title="EmoBench-UA: Ukrainian Ekman-6 + none",
        primary_metric="macro_f1",
        source="SemEval-2025 Task 11 track A, ukr (= EmoBench-UA)",
        citation=semeval2025.CITATION_EMOBENCH,
        notes="the same texts as semeval2025-ukr; none where no emotion is set",
    )
)


def get_dataset(name: str) -> DatasetSpec:
    """The registered dataset called ``name``, with "did you mean" suggestions for typos."""
    return DATASETS.get(name)


def resolve_dataset(
    name_or_path: str,
    data_dir: str | os.PathLike[str] | None = None,
    options: FileOptions | None = None,
    label_space: LabelSpace | None = None,
) -> tuple[DatasetSpec, Any]:
    """The spec and loaded ``DatasetDict`` of a registered name or a user file/directory.

    For a user file, ``label_space`` (a model's) is the space its labels must belong to; without it the space is
    inferred. Its primary metric is micro-F1 over emotions for the EmoContext space, else macro-F1.
    """
    if name_or_path in DATASETS or not is_user_file(name_or_path):
        spec = get_dataset(name_or_path)
        return spec, spec.load(data_dir)
    data, space = load_user_dataset(name_or_path, options, label_space)
    if space is None:
        raise InputError(f"{name_or_path!r} has no label column (use --label-col)")
    path = Path(name_or_path)
    spec = DatasetSpec(
        name=str(path),
        title=f"user file {path.name}",
        label_space=space,
        primary_metric=primary_metric_for(space),
        languages=tuple(sorted({lang for split in data.values() for lang in split["lang"] if lang})),
        splits=tuple(data),
        loader=lambda _dir: data,
        source=str(path),
        license="",
        citation="",
    )
    return spec, data


def load_dataset(name_or_path: str, data_dir: str | os.PathLike[str] | None = None, **kwargs: Any) -> Any:
    """Load a registered dataset or a user file as a ``datasets.DatasetDict``."""
    return resolve_dataset(name_or_path, data_dir, **kwargs)[1]


def first_rows(data: Any, split: str, limit: int) -> Any:
    """``data`` with its ``split`` cut to the first ``limit`` rows (other splits untouched)."""
    name = SPLIT_ALIASES.get(split, split)
    if name in data and len(data[name]) > limit:
        data = type(data)({**data, name: data[name].select(range(limit))})
    return data
