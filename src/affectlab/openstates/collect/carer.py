"""CARER (Saravia, Liu, Huang, Wu and Chen, EMNLP 2018; the six-emotion split known as dair-ai ``emotion``) as a
corpus to collect affective states from: English tweets written as first-person feelings ("i feel humiliated", "im
feeling quite sad and sorry"), lowercased with their punctuation removed by the authors. The collector reads only
the texts (the six-emotion label is not a state). Terms: "for educational and research purposes only"; a model
trained on it inherits them.

Only the train and validation splits are read, so nothing collected from CARER can come from its test split.
Locally (``--data-dir``/``AFFECTLAB_DATA_DIR``) the files are ``carer/{train,validation}.txt``, one ``text;label``
a line (the validation file starts with a ``sentence;emotion`` header, and its local copy ends in a row cut short,
read as text); otherwise the dataset's Parquet files are downloaded from the Hugging Face Hub. The open-state
predictor also reads each post's label (:func:`carer_labels`), as the affect family of the feeling word it names.
"""

from __future__ import annotations

import os

from affectlab.datasets.sources import data_file, resolve_data_dir

SPLITS = ("train", "validation")
HUB_URL = "https://huggingface.co/datasets/dair-ai/emotion/resolve/main/split/{split}-00000-of-00001.parquet"
HEADER = "sentence;emotion"
LABELS = ("sadness", "joy", "love", "anger", "fear", "surprise")
"""CARER's six labels, in the order of the Hub's integer labels."""
CITATION = (
    "Saravia, E., Liu, H.-C. T., Huang, Y.-H., Wu, J., Chen, Y.-S. (2018). CARER: Contextualized Affect "
    "Representations for Emotion Recognition. EMNLP 2018."
)


def carer_posts(data_dir: str | os.PathLike[str] | None) -> tuple[list[str], list[str]]:
    """Ids (``carer:<split>:<line>``) and texts of CARER's train and validation tweets."""
    ids, texts = [], []
    local = resolve_data_dir(data_dir) is not None
    for split in SPLITS:
        found = _local_texts(split, data_dir) if local else _hub_texts(split)
        ids += [f"carer:{split}:{number}" for number, _ in found]
        texts += [text for _, text in found]
    return ids, texts


def _local_texts(split: str, data_dir: str | os.PathLike[str] | None) -> list[tuple[int, str]]:
    """``(line number, text)`` of a local ``text;label`` file."""
    return [(number, text) for number, text, _ in _local_rows(split, data_dir)]


def _local_rows(split: str, data_dir: str | os.PathLike[str] | None) -> list[tuple[int, str, str]]:
    """``(line number, text, label)`` of a local ``text;label`` file (label ``""`` where the line has none)."""
    path = data_file(f"carer/{split}.txt", HUB_URL.format(split=split), data_dir)
    rows = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            line = line.rstrip("\n")
            if not line or (number == 1 and line == HEADER):
                continue
            # a line without a label (the local validation copy ends in a row cut short) is all text
            text, _, label = line.rpartition(";") if ";" in line else (line, "", "")
            if text.strip():
                rows.append((number, text, label.strip() if label.strip() in LABELS else ""))
    return rows


def _hub_texts(split: str) -> list[tuple[int, str]]:
    """``(row number, text)`` of the Hub's Parquet file of ``split`` (downloaded once into the cache)."""
    return [(number, text) for number, text, _ in _hub_rows(split)]


def _hub_rows(split: str) -> list[tuple[int, str, str]]:
    """``(row number, text, label)`` of the Hub's Parquet file of ``split`` (its labels are :data:`LABELS`'
    positions)."""
    import pyarrow.parquet as pq

    path = data_file(f"carer/{split}.parquet", HUB_URL.format(split=split), None)
    table = pq.read_table(path, columns=["text", "label"]).to_pydict()
    return [
        (number, text, LABELS[label])
        for number, (text, label) in enumerate(zip(table["text"], table["label"], strict=True), start=1)
        if text and text.strip()
    ]


def carer_labels(data_dir: str | os.PathLike[str] | None) -> dict[str, str]:
    """Each labelled CARER post's six-emotion label by its id (``carer:<split>:<line>``, as :func:`carer_posts`):
    the family of the feeling its author named, which :mod:`affectlab.openstates.predictors.affect_agreement`
    learns the affect of feeling words from."""
    local = resolve_data_dir(data_dir) is not None
    labels = {}
    for split in SPLITS:
        for number, _, label in _local_rows(split, data_dir) if local else _hub_rows(split):
            if label:
                labels[f"carer:{split}:{number}"] = label
    return labels
