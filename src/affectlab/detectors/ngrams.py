"""TF-IDF features shared by the n-gram detectors: word n-grams and character n-grams of the text, and, for
dialogue tasks, word n-grams of the earlier turns in a block of their own (scaled by ``context_weight``).

Vocabularies and IDF weights are learned by scikit-learn's ``TfidfVectorizer``; applying them to new texts is done
here (:class:`FittedBlock`), with the vectoriser's own analysers (lower-casing, the word pattern and word n-grams;
character n-grams inside space-padded words, ``char_wb``), sublinear term frequency, IDF and L2 norm. Why by hand:
importing scikit-learn's text module costs about 1.2 s on a 2-core machine, more than half of the 2 s a user waits
for ``affectlab detect "..."``; a detector loaded to score texts now imports none of scikit-learn.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import scipy.sparse as sp

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


def _vectorizer(kind: str, params: dict[str, Any]) -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer

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


class FittedBlock:
    """One fitted TF-IDF block applied to new texts: the n-grams of each text (``char``: character n-grams of each
    space-padded word, a word shorter than n counted once; otherwise word n-grams of the word pattern's tokens),
    counted over the vocabulary, ``1 + log(count)``, times IDF, each row scaled to unit length."""

    def __init__(self, kind: str, ngram_range: tuple[int, int], vocabulary: dict[str, int], idf: np.ndarray):
        self.kind, self.ngram_range = kind, ngram_range
        self.vocabulary, self.idf = vocabulary, np.asarray(idf, dtype=np.float64)
        self._tokens = re.compile(WORD_PATTERN)

    def ngrams(self, text: str) -> list[str]:
        """The n-grams of one text, as the vectoriser's analyser gives them (repeats included)."""
        low, high = self.ngram_range
        text = text.lower()
        grams: list[str] = []
        if self.kind == "char":
            for word in text.split():
                padded = f" {word} "
                for n in range(low, high + 1):
                    grams += [padded[i : i + n] for i in range(max(len(padded) - n + 1, 1))]
                    if len(padded) <= n:
                        break
            return grams
        tokens = self._tokens.findall(text)
        for n in range(low, min(high, len(tokens)) + 1):
            grams += tokens if n == 1 else [" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
        return grams

    def transform(self, texts: list[str]) -> sp.csr_matrix:
        """``(len(texts), len(vocabulary))`` float32 TF-IDF rows."""
        vocabulary, indptr, indices, counts = self.vocabulary, [0], [], []
        for text in texts:
            row: dict[int, int] = {}
            for gram in self.ngrams(text):
                column = vocabulary.get(gram)
                if column is not None:
                    row[column] = row.get(column, 0) + 1
            indices += row.keys()
            counts += row.values()
            indptr.append(len(indices))
        values = (1.0 + np.log(np.asarray(counts, dtype=np.float64))) * self.idf[np.asarray(indices, dtype=np.int64)]
        matrix = sp.csr_matrix((values, indices, indptr), shape=(len(texts), len(vocabulary)))
        norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
        matrix = sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ matrix
        return matrix.astype(np.float32).tocsr()


class NgramFeatures:
    """Fits (scikit-learn) and applies (:class:`FittedBlock`) the TF-IDF blocks; the context block exists only if
    the training texts had context."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params
        self.blocks_: dict[str, FittedBlock] = {}

    @staticmethod
    def _columns(inputs: Inputs) -> dict[str, list[str]]:
        texts = [normalise(t) for t in inputs.texts]
        context = [normalise(" ".join(turns)) for turns in inputs.contexts]
        return {"word": texts, "char": texts, "context": context}

    def _block(self, kind: str, vocabulary: dict[str, int], idf: np.ndarray) -> FittedBlock:
        ngrams = self.params["char_ngrams"] if kind == "char" else self.params["word_ngrams"]
        return FittedBlock(kind, (int(ngrams[0]), int(ngrams[1])), vocabulary, idf)

    def fit_transform(self, inputs: Inputs) -> sp.csr_matrix:
        """Learn vocabularies and IDF weights from ``inputs`` and return their features."""
        columns = self._columns(inputs)
        kinds = ["word", "char"] + (["context"] if any(columns["context"]) else [])
        blocks = []
        self.blocks_ = {}
        for kind in kinds:
            vectorizer = _vectorizer(kind, self.params)
            blocks.append(self._scaled(kind, vectorizer.fit_transform(columns[kind])))
            vocabulary = {term: int(column) for term, column in vectorizer.vocabulary_.items()}
            self.blocks_[kind] = self._block(kind, vocabulary, vectorizer.idf_)
        return sp.hstack(blocks, format="csr")

    def transform(self, inputs: Inputs) -> sp.csr_matrix:
        """Features of ``inputs`` with the learned vocabularies."""
        columns = self._columns(inputs)
        blocks = [self._scaled(kind, block.transform(columns[kind])) for kind, block in self.blocks_.items()]
        return sp.hstack(blocks, format="csr")

    def _scaled(self, kind: str, block: sp.spmatrix) -> sp.spmatrix:
        return block * self.params["context_weight"] if kind == "context" else block

    @property
    def n_features(self) -> int:
        """Total number of features over all blocks."""
        return sum(len(block.vocabulary) for block in self.blocks_.values())

    def get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Vocabularies (as packed strings, in column order) and IDF weights."""
        arrays: dict[str, np.ndarray] = {}
        for kind, block in self.blocks_.items():
            terms = sorted(block.vocabulary, key=block.vocabulary.__getitem__)
            arrays.update(strings_to_arrays(f"{kind}.vocabulary", terms))
            arrays[f"{kind}.idf"] = block.idf.astype(np.float64)
        return {"blocks": list(self.blocks_)}, arrays

    def set_state(self, state: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        """Restore what :meth:`get_state` saved: the vocabularies and IDF weights of each block."""
        self.blocks_ = {}
        for kind in state["blocks"]:
            terms = arrays_to_strings(f"{kind}.vocabulary", arrays)
            self.blocks_[kind] = self._block(kind, {term: i for i, term in enumerate(terms)}, arrays[f"{kind}.idf"])
