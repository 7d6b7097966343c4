"""CARER (Saravia, Liu, Huang, Wu and Chen, EMNLP 2018; the six-emotion split known as dair-ai ``emotion``) as a
corpus to collect affective states from: English tweets written as first-person feelings ("i feel humiliated", "im
feeling quite sad and sorry"), lowercased with their punctuation removed by the authors. Only the texts are read
(the six-emotion label is not a state). Terms: "for educational and research purposes only"; a model trained on it
inherits them.

Only the train and validation splits are read, so nothing collected from CARER can come from its test split.
Locally (``--data-dir``/``AFFECTLAB_DATA_DIR``) the files are ``carer/{train,validation}.txt``, one ``text;label``
a line (the validation file starts with a ``sentence;emotion`` header, and its local copy ends in a row cut short,
read as text); otherwise the dataset's Parquet files are
downloaded from the Hugging Face Hub.
"""

from __future__ import annotations

import os

from affectlab.datasets.sources import data_file, resolve_data_dir

SPLITS = ("train", "validation")
HUB_URL = "https://huggingface.co/datasets/dair-ai/emotion/resolve/main/split/{split}-00000-of-00001.parquet"
HEADER = "sentence;emotion"
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
    path = data_file(f"carer/{split}.txt", HUB_URL.format(split=split), data_dir)
    rows = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            line = line.rstrip("\n")
            if not line or (number == 1 and line == HEADER):
                continue
            # the label is not needed; a line without one (the local validation copy ends in a row cut short) is
            # all text
            text = line.rpartition(";")[0] if ";" in line else line
            if text.strip():
                rows.append((number, text))
    return rows


def _hub_texts(split: str) -> list[tuple[int, str]]:
    """``(row number, text)`` of the Hub's Parquet file of ``split`` (downloaded once into the cache)."""
    import pyarrow.parquet as pq

    path = data_file(f"carer/{split}.parquet", HUB_URL.format(split=split), None)
    texts = pq.read_table(path, columns=["text"]).column("text").to_pylist()
    return [(number, text) for number, text in enumerate(texts, start=1) if text and text.strip()]
