"""TF-IDF features shared by the n-gram detectors: word n-grams and character n-grams of the text, and, for
dialogue tasks, word n-grams of the earlier turns in a block of their own (scaled by ``context_weight``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer

from affectlab.detectors.base import Inputs
from affectlab.detectors.serialization import arrays_to_strings, strings_to_arrays
from affectlab.text import WORD_PATTERN, normalise

FEATURE_DEFAULTS: dict[str, Any] = {
    "word_ngrams": (1, 2),
    "char_ngrams": (1, 5),
    "min_df": 1,
    "max_features": 300_000,
    "context_weight": 1.0,
}


def _vectorizer(kind: str, params: dict[str, Any]) -> TfidfVectorizer:
    if kind == "char":
        return TfidfVectorizer(
            analyzer="char_wb",
            ngram_range=tuple(params["char_ngrams"]),
            min_df=params["min_df"],
            sublinear_tf=True,
            max_features=params["max_features"],
            dtype=np.float32,
        )
    ngrams = tuple(params["word_ngrams"])
    return TfidfVectorizer(
        analyzer="word",
        token_pattern=WORD_PATTERN,
        ngram_range=ngrams,
        min_df=params["min_df"],
        sublinear_tf=True,
        max_features=params["max_features"],
        dtype=np.float32,
    )


class NgramFeatures:
    """Fits and applies the TF-IDF blocks; the context block exists only if the training texts had context."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params
        self.vectorizers_: dict[str, TfidfVectorizer] = {}

    @staticmethod
    def _columns(inputs: Inputs) -> dict[str, list[str]]:
        texts = [normalise(t) for t in inputs.texts]
        context = [normalise(" ".join(turns)) for turns in inputs.contexts]
        return {"word": texts, "char": texts, "context": context}

    def fit_transform(self, inputs: Inputs) -> sp.csr_matrix:
        """Learn vocabularies and IDF weights from ``inputs`` and return their features."""
        columns = self._columns(inputs)
        kinds = ["word", "char"] + (["context"] if any(columns["context"]) else [])
        self.vectorizers_ = {kind: _vectorizer(kind, self.params) for kind in kinds}
        blocks = [self._scaled(kind, self.vectorizers_[kind].fit_transform(columns[kind])) for kind in kinds]
        return sp.hstack(blocks, format="csr")

    def transform(self, inputs: Inputs) -> sp.csr_matrix:
        """Features of ``inputs`` with the learned vocabularies."""
        columns = self._columns(inputs)
        blocks = [self._scaled(kind, vec.transform(columns[kind])) for kind, vec in self.vectorizers_.items()]
        return sp.hstack(blocks, format="csr")

    def _scaled(self, kind: str, block: sp.spmatrix) -> sp.spmatrix:
        return block * self.params["context_weight"] if kind == "context" else block

    @property
    def n_features(self) -> int:
        """Total number of features over all blocks."""
        return sum(len(vec.vocabulary_) for vec in self.vectorizers_.values())

    def get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Vocabularies (as packed strings, in column order) and IDF weights."""
        arrays: dict[str, np.ndarray] = {}
        for kind, vec in self.vectorizers_.items():
            terms = sorted(vec.vocabulary_, key=vec.vocabulary_.__getitem__)
            arrays.update(strings_to_arrays(f"{kind}.vocabulary", terms))
            arrays[f"{kind}.idf"] = vec.idf_.astype(np.float64)
        return {"blocks": list(self.vectorizers_)}, arrays

    def set_state(self, state: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        """Restore what :meth:`get_state` saved: a vectoriser with a fixed vocabulary and the saved IDF."""
        self.vectorizers_ = {}
        for kind in state["blocks"]:
            vec = _vectorizer(kind, self.params)
            terms = arrays_to_strings(f"{kind}.vocabulary", arrays)
            vec.vocabulary_ = {term: i for i, term in enumerate(terms)}
            vec.idf_ = arrays[f"{kind}.idf"]
            self.vectorizers_[kind] = vec
