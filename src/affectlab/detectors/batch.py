"""A batch prepared once for scoring: each text's language identified once, the routes of a detector with
language members resolved once, and one pass of every encoder the detector reads, over all the texts whatever
their language; :meth:`~affectlab.detectors.base.Detector.score` reads them from the :class:`Batch` it is handed
(as sentence-transformers' ``Router`` resolves its route in preprocessing and reads it in ``forward``), so nothing
is carried in ambient state and nothing is routed or embedded twice."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from affectlab.detectors.base import Batch, Detector, Inputs
from affectlab.encoders.sentence import embed
from affectlab.langid import detect_languages


def prepare_batch(
    detector: Detector,
    texts: Sequence[str],
    contexts: Sequence[list[str]] | None = None,
    langs: Sequence[str] | None = None,
) -> Batch:
    """``texts`` (with their ``contexts``) ready for ``detector.score``: each text's language tag (its ``langs``
    tag or code; identified where that is ``""`` or ``langs`` is None), the detector's routes and the embeddings of
    each encoder it reads."""
    turns = [list(context) for context in contexts] if contexts is not None else [[] for _ in texts]
    given = [lang or "" for lang in langs] if langs is not None else [""] * len(texts)
    tags = detect_languages(Inputs(list(texts), turns, given))
    unknown = Inputs(list(texts), turns, [""] * len(texts))
    vectors = {name: embed_once(unknown.texts, name) for name in sorted(detector.capabilities.encoders)}
    return Batch(unknown.texts, turns, tags, routes=detector.route(tags), embeddings=vectors)


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
