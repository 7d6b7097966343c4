"""The batch: what a detector reads (:class:`Inputs`), the batch prepared once for scoring (:class:`Batch`: each
text's language read once, the routes of a detector with language members resolved once, and one pass of every
encoder the detector reads over all its texts, whatever their language) and what scoring gives (:class:`Scored`).
:meth:`~affectlab.detectors.base.Detector.score` reads the routes and vectors from the batch it is handed (as
sentence-transformers' ``Router`` resolves its route in preprocessing and reads it in ``forward``), so nothing is
carried in ambient state and nothing is routed or embedded twice."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from affectlab.detectors.identify import read_languages
from affectlab.encoders.sentence import embed
from affectlab.errors import InputError, TextTypeError

if TYPE_CHECKING:
    from affectlab.detectors.base import Detector


@dataclass(frozen=True)
class Inputs:
    """What a detector reads: the texts, each text's earlier dialogue turns and its language code ("" unknown)."""

    texts: list[str]
    contexts: list[list[str]]
    langs: list[str]

    def __len__(self) -> int:
        return len(self.texts)

    def subset(self, rows: Sequence[int] | np.ndarray) -> Inputs:
        """The rows ``rows`` of these inputs, in that order."""
        return Inputs([self.texts[i] for i in rows], [self.contexts[i] for i in rows], [self.langs[i] for i in rows])


@dataclass(frozen=True)
class Batch(Inputs):
    """A batch prepared once for scoring (:func:`affectlab.detectors.batch.prepare_batch`): the texts, their
    contexts and language tags, the ``routes`` of a detector with members (member key -> rows) and the
    ``embeddings`` of the one encoder pass (encoder name -> ``(n_texts, dim)``), passed explicitly to
    :meth:`Detector.score`, which reads the routes and the vectors instead of working them out again."""

    routes: Mapping[str, np.ndarray] = field(default_factory=dict)
    embeddings: Mapping[str, np.ndarray] = field(default_factory=dict)

    def subset(self, rows: Sequence[int] | np.ndarray) -> Batch:
        """The rows ``rows``, with their embeddings (a member's share of the batch: it has no routes of its own)."""
        part = Inputs.subset(self, rows)
        vectors = {name: matrix[rows] for name, matrix in self.embeddings.items()}
        return Batch(part.texts, part.contexts, part.langs, embeddings=vectors)


@dataclass(frozen=True)
class Scored:
    """What :meth:`Detector.score` gives a batch, from one pass of the model: ``probs`` ``(n, n_labels)``, the
    decision ``scores`` (0.5 = each label's threshold), the 0/1 ``labels`` and, when asked for, the unrounded 0-3
    ``intensities``."""

    probs: np.ndarray
    scores: np.ndarray
    labels: np.ndarray
    intensities: np.ndarray | None = None


def as_inputs(X: Any) -> Inputs:
    """Accept a string, a list of strings, a list of example dicts or a ``datasets.Dataset``."""
    if isinstance(X, Inputs):
        return X
    if isinstance(X, str):
        X = [X]
    if X is None or isinstance(X, bytes | bytearray) or not isinstance(X, Iterable):
        raise TextTypeError(f"X must be a str, a list of str or of example dicts, or a Dataset, not {type(X).__name__}")
    if hasattr(X, "column_names"):  # a datasets.Dataset: read whole columns at once
        X = cast(Any, X)
        n = len(X)
        contexts = X["context"] if "context" in X.column_names else [[] for _ in range(n)]
        langs = X["lang"] if "lang" in X.column_names else [""] * n
        return Inputs(list(X["text"]), [list(c) for c in contexts], list(langs))
    texts, contexts, langs = [], [], []
    for item in X:
        if isinstance(item, str):
            texts.append(item)
            contexts.append([])
            langs.append("")
        elif isinstance(item, Mapping):
            texts.append(str(item["text"]))
            contexts.append(list(item.get("context") or []))
            langs.append(str(item.get("lang") or ""))
        else:
            raise InputError(f"cannot read {type(item).__name__} as a text")
    return Inputs(texts, contexts, langs)


def prepare_batch(detector: Detector, X: Any) -> Batch:
    """``X`` (anything :func:`as_inputs` reads) ready for ``detector.score``: each text's language read once
    (:func:`~affectlab.detectors.identify.read_languages`: its tag, else identified), the detector's routes and the
    embeddings of each encoder it reads. A :class:`Batch` is already prepared and is returned as it is."""
    inputs = as_inputs(X)
    if isinstance(inputs, Batch):
        return inputs
    tags = read_languages(inputs.texts, inputs.langs) if detector.reads_languages else inputs.langs
    vectors = {name: embed_once(inputs.texts, name) for name in sorted(detector.capabilities.encoders)}
    return Batch(inputs.texts, inputs.contexts, tags, routes=detector.route(tags), embeddings=vectors)


def embed_once(texts: list[str], encoder: str) -> np.ndarray:
    """``(n_texts, dim)`` embeddings by ``encoder``, each distinct text embedded once."""
    unique = list(dict.fromkeys(texts))
    vectors = embed(unique, encoder)
    if len(unique) == len(texts):
        return vectors
    position = {text: i for i, text in enumerate(unique)}
    return vectors[[position[text] for text in texts]]


def text_vectors(inputs: Inputs, encoder: str) -> np.ndarray:
    """The embeddings of ``inputs``' texts by ``encoder``: the prepared batch's, else from the encoder now."""
    if isinstance(inputs, Batch) and encoder in inputs.embeddings:
        return inputs.embeddings[encoder]
    return embed(inputs.texts, encoder)
