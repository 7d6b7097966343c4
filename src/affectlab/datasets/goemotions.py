"""GoEmotions (Demszky et al., ACL 2020): 58k Reddit comments, 27 emotions + neutral, official splits, with the
Ekman and sentiment groupings of section 5.1 as mapped views.

Files: ``goemotions/{train,dev,test}.tsv``, tab-separated, no header, columns text / comma-separated label ids /
comment id; texts with ``"`` are CSV-quoted with doubled inner quotes, so they are read with a CSV reader.
"""

from __future__ import annotations

import os
from functools import partial
from typing import Any

from affectlab.datasets.schema import Example, example, to_dataset_dict
from affectlab.datasets.sources import data_file
from affectlab.io.tables import read_fields
from affectlab.labels import (
    EKMAN,
    GOEMOTIONS,
    GOEMOTIONS_TO_EKMAN,
    GOEMOTIONS_TO_SENTIMENT,
    SENTIMENT,
    LabelSpace,
    map_labels,
)

SPLITS = ("train", "dev", "test")
URL = "https://raw.githubusercontent.com/google-research/google-research/b91598b43297db06cca27a29fe2d0442dffea029/goemotions/data/{split}.tsv"
CITATION = (
    "Demszky, D., Movshovitz-Attias, D., Ko, J., Cowen, A., Nemade, G., Ravi, S. (2020). GoEmotions: A Dataset "
    "of Fine-Grained Emotions. ACL 2020."
)


def read_split(split: str, data_dir: str | os.PathLike[str] | None) -> list[Example]:
    """Rows of one GoEmotions split with label names in GoEmotions order."""
    path = data_file(f"goemotions/{split}.tsv", URL.format(split=split), data_dir)
    rows = []
    for _, fields in read_fields(path, "\t", 3):
        text, label_ids, comment_id = fields
        labels = [GOEMOTIONS.labels[int(i)] for i in label_ids.split(",")]
        rows.append(example(comment_id, text, labels, "en"))
    return rows


def _mapped(rows: list[Example], mapping: dict[str, str], target: LabelSpace) -> list[Example]:
    return [{**row, "labels": map_labels(row["labels"], mapping, target)} for row in rows]


def load(data_dir: str | os.PathLike[str] | None = None, view: str = "full") -> Any:
    """Load GoEmotions; ``view`` is ``full`` (28 labels), ``ekman`` (Ekman-6 + none) or ``sentiment``."""
    splits = {split: read_split(split, data_dir) for split in SPLITS}
    if view == "ekman":
        splits = {s: _mapped(rows, GOEMOTIONS_TO_EKMAN, EKMAN) for s, rows in splits.items()}
    elif view == "sentiment":
        splits = {s: _mapped(rows, GOEMOTIONS_TO_SENTIMENT, SENTIMENT) for s, rows in splits.items()}
    elif view != "full":
        raise ValueError(f"unknown GoEmotions view {view!r}")
    return to_dataset_dict(splits, description=f"GoEmotions ({view})")


load_ekman = partial(load, view="ekman")
load_sentiment = partial(load, view="sentiment")
