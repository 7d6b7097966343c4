"""The scoring shared by the open-vocabulary predictor and its training: candidate states embedded as "I feel X." /
"Me siento X.", the map's softmax over them, and the blend with the closed n-gram member."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from affectlab.errors import InputError
from affectlab.openstates.languages import OPEN_LANGS, STATE_TEMPLATES

STATE_CHUNK = 256
"""States embedded per call of the encoder when a caller follows the progress (2,000 new states take seconds the
first time; the embedding cache keeps them)."""
TAU = 0.05
"""Temperature of the map's softmax (cosines of unit vectors / TAU)."""
Examples = dict[str, tuple[list[str], list[str]]]
"""``{lang: (contexts, states)}``."""


@dataclass(frozen=True)
class Blend:
    """How the members' log-probabilities are combined: ``map + closed * (ngram - map) + vector * (vector_member -
    map)``, each closed term only for the states that member knows, and ``map + unseen_offset`` for the states
    neither knows; then ``affect`` times the agreement of each state with the context's affect
    (:mod:`~affectlab.openstates.predictors.affect_agreement`) for every state."""

    closed: float = 0.5
    vector: float = 0.0
    unseen_offset: float = 0.0
    affect: float = 0.0


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (float32)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-9)).astype(np.float32)


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise log-softmax (scipy's would do; this keeps the CLI path free of a scipy import)."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def blend_scores(
    contexts: np.ndarray, W: np.ndarray, candidates: np.ndarray, closed: Sequence[tuple[np.ndarray, np.ndarray]],
    blend: Blend, agreement: np.ndarray | None = None,
) -> np.ndarray:  # fmt: skip
    """Blended log-scores ``(n_contexts, n_candidates)`` from the context vectors and, per closed member (n-gram,
    vector), ``(columns, logits)``: ``columns[j]`` is candidate ``j``'s column in ``logits``, or -1; plus
    ``blend.affect * agreement`` when the agreement is given."""
    scores = log_softmax(contexts @ W @ candidates.T / TAU)
    known = np.zeros(candidates.shape[0], dtype=bool)
    shift = np.zeros_like(scores)
    for (columns, logits), weight in zip(closed, (blend.closed, blend.vector), strict=True):
        seen = columns >= 0
        known |= seen
        if weight > 0 and seen.any():
            shift[:, seen] += weight * (log_softmax(logits)[:, columns[seen]] - scores[:, seen])
    scores += shift
    scores[:, ~known] += blend.unseen_offset
    if agreement is not None and blend.affect:
        scores += blend.affect * agreement
    return scores


def columns(known: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
    """Each candidate's position in ``known``, or -1."""
    index = {s: i for i, s in enumerate(known)}
    return np.array([index.get(s, -1) for s in candidates], dtype=np.int64)


def embed_states(states: Sequence[str], lang: str, progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Unit vectors of states written as the language's state template
    (:data:`~affectlab.openstates.languages.STATE_TEMPLATES`); ``progress(done, total)`` after each
    :data:`STATE_CHUNK` states when given. The vectors go through the on-disk embedding cache
    (:mod:`affectlab.encoders.cache`: the encoder's identity and the written state, "I feel X.", make the key), so a
    state is embedded once per machine, whichever process or predictor asks: the states missing from it are encoded
    in batches, and the vectors are the same bits as the encoder's."""
    from affectlab.encoders.sentence import embed, embedding_cache

    if lang not in STATE_TEMPLATES:
        raise InputError(f"unknown language {lang!r} for open affective states (known: {', '.join(OPEN_LANGS)})")
    if not states:
        return np.zeros((0, 384), np.float32)
    written = [STATE_TEMPLATES[lang].format(s) for s in states]
    with embedding_cache():  # feeling words, not a user's texts: 2,000 new ones cost seconds once, then milliseconds
        if progress is None:
            return unit_rows(embed(written))
        chunks = []
        for start in range(0, len(written), STATE_CHUNK):
            chunks.append(embed(written[start : start + STATE_CHUNK]))
            progress(start + len(chunks[-1]), len(written))
    return unit_rows(np.vstack(chunks))
