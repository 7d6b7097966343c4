"""The standard example columns every loader hands back: ``id, text, context, labels, lang, meta``."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, TypedDict


class Example(TypedDict):
    """One row: ``context`` lists the earlier dialogue turns (empty if none); ``labels`` are label names of the
    dataset's label space; ``meta`` is a JSON object in a string, for whatever else a source carries."""

    id: str
    text: str
    context: list[str]
    labels: list[str]
    lang: str
    meta: str


def features() -> Any:
    """The Hugging Face ``Features`` of the standard columns."""
    from datasets import Features, Value

    try:
        from datasets import List as Sequence  # datasets >= 4 spells list features List
    except ImportError:  # pragma: no cover - older datasets
        from datasets import Sequence

    return Features(
        {
            "id": Value("string"),
            "text": Value("string"),
            "context": Sequence(Value("string")),
            "labels": Sequence(Value("string")),
            "lang": Value("string"),
            "meta": Value("string"),
        }
    )


def example(
    id: str,
    text: str,
    labels: Iterable[str],
    lang: str,
    context: Iterable[str] = (),
    meta: Mapping[str, Any] | None = None,
) -> Example:
    """Build one standard row."""
    return Example(
        id=str(id),
        text=text,
        context=list(context),
        labels=list(labels),
        lang=lang,
        meta=json.dumps(dict(meta or {}), ensure_ascii=False),
    )


def to_dataset_dict(splits: Mapping[str, list[Example]], description: str = "") -> Any:
    """Turn ``{split: [rows]}`` into a ``datasets.DatasetDict`` with the standard features."""
    from datasets import Dataset, DatasetDict, DatasetInfo

    feats = features()
    columns = list(feats)
    return DatasetDict(
        {
            split: Dataset.from_dict(
                {column: [row[column] for row in rows] for column in columns},  # type: ignore[literal-required]
                features=feats,
                info=DatasetInfo(description=description, features=feats),
                split=split,
            )
            for split, rows in splits.items()
        }
    )
