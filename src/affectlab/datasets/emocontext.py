"""SemEval-2019 Task 3 EmoContext (Chatterjee et al., 2019): the emotion of the last turn of a 3-turn dialogue.

Files: ``emocontext/{train,dev,test}.txt``: tab-separated, no header, CRLF line ends, raw ``"`` inside texts (so
no quoting), columns id / turn1 / turn2 / turn3 / label. ``dev`` is the official "Test1" (dev) set and ``test``
the final "Test2" set; turns 1-2 become ``context`` and turn 3 ``text``.
"""

from __future__ import annotations

import csv
import os
from typing import Any

from affectlab.datasets.schema import Example, example, to_dataset_dict
from affectlab.datasets.sources import data_file
from affectlab.errors import InputError
from affectlab.io.tables import read_fields
from affectlab.labels import EMOCONTEXT

SPLITS = ("train", "dev", "test")
URL = "https://raw.githubusercontent.com/zhaopku/ds3-emoContext/6a09522d351162eae53be9edddbfdd0c46ecd764/data/emo/{split}.txt"
CITATION = (
    "Chatterjee, A., Narahari, K. N., Joshi, M., Agrawal, P. (2019). SemEval-2019 Task 3: EmoContext Contextual "
    "Emotion Detection in Text. SemEval 2019."
)


def read_split(split: str, data_dir: str | os.PathLike[str] | None) -> list[Example]:
    """Rows of one EmoContext split."""
    path = data_file(f"emocontext/{split}.txt", URL.format(split=split), data_dir)
    rows = []
    # some releases carry the header "id turn1 turn2 turn3 label"
    for number, fields in read_fields(path, "\t", 5, quoting=csv.QUOTE_NONE, header="id"):
        dialogue_id, turn1, turn2, turn3, label = fields
        if label not in EMOCONTEXT.labels:
            raise InputError(f"{path.name} line {number}: unknown label {label!r}")
        rows.append(example(f"{split}-{dialogue_id}", turn3, [label], "en", context=[turn1, turn2]))
    return rows


def load(data_dir: str | os.PathLike[str] | None = None) -> Any:
    """Load EmoContext train, dev (Test1) and test (Test2)."""
    return to_dataset_dict({split: read_split(split, data_dir) for split in SPLITS}, description="EmoContext")
