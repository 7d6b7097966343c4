"""The closed members of the open-vocabulary predictor: classifiers over the states they were trained on, which know
those states' contexts better than the map over state embeddings but cannot score any other state.

* :class:`NgramMember`: a logistic regression over TF-IDF word 1-2-grams of each mask's window (``___`` included,
  so "feel ___ to" is a feature), trained on the recipe's masks. On the dev split of the recipe's English train
  posts it raised acc@1 from 0.05 to 0.09 in the blend.
* :class:`VectorMember`: a logistic regression over the window's e5 vector, trained on the recipe's masks and the
  verbalised labelled datasets (GoEmotions' texts with the App. C word of each label): the closed predictor's kind
  (:mod:`~affectlab.openstates.predictors.embedded`), which knows the App. C words the fixed-label evaluation
  ranks.

Saved as plain arrays (the n-grams, their IDF weights, the regressions' weights in float16), no pickle. A loaded
n-gram member applies its n-grams with the detectors' :class:`~affectlab.detectors.ngrams.FittedBlock`, not
scikit-learn's vectoriser: importing scikit-learn took 1.2 s of the 3.3 s that ``affectlab detect --open`` took to
start.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from affectlab.detectors.ngrams import FittedBlock

MAX_FEATURES = 3000
"""The most frequent n-grams kept: on dev, 3,000 scored as all 6,500 did, at half the file."""
C = 16.0
"""Inverse regularisation of the n-gram regression."""
VECTOR_C = 4.0
"""Inverse regularisation of the vector regression (the closed predictor's)."""
NGRAMS = (1, 2)
TOKEN_PATTERN = r"(?u)\b\w\w+\b"
"""The n-gram member's word tokens: scikit-learn's default pattern, which the shipped member was fitted with."""


def balanced_weights(states: Sequence[str]) -> np.ndarray:
    """1/sqrt(count of the state), scaled to mean 1: a state seen in hundreds of examples does not drown the rest."""
    counts = Counter(states)
    weights = np.array([1.0 / np.sqrt(counts[s]) for s in states])
    return weights * len(weights) / weights.sum()


def _vectorizer(vocabulary: Mapping[str, int] | None = None) -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer

    options: dict[str, Any] = {"ngram_range": NGRAMS, "sublinear_tf": True, "token_pattern": TOKEN_PATTERN}
    if vocabulary is None:
        return TfidfVectorizer(min_df=2, max_features=MAX_FEATURES, **options)
    return TfidfVectorizer(vocabulary=vocabulary, **options)


@dataclass
class NgramMember:
    """``seen`` states (one row of ``weights`` each), the ``ngrams`` (one column each) and their ``idf``."""

    seen: list[str]
    ngrams: list[str]
    idf: np.ndarray
    weights: np.ndarray
    bias: np.ndarray

    @classmethod
    def fit(cls, contexts: Sequence[str], states: Sequence[str]) -> NgramMember:
        """Fit the n-grams and the regression (balanced sample weights)."""
        from sklearn.linear_model import LogisticRegression

        vectorizer = _vectorizer().fit(contexts)
        model = LogisticRegression(C=C, max_iter=3000)
        model.fit(vectorizer.transform(contexts), list(states), sample_weight=balanced_weights(states))
        ngrams = sorted(vectorizer.vocabulary_, key=vectorizer.vocabulary_.__getitem__)
        return cls(
            [str(s) for s in model.classes_], ngrams, vectorizer.idf_.astype(np.float32),
            model.coef_.astype(np.float32), model.intercept_.astype(np.float32),
        )  # fmt: skip

    @cached_property
    def features(self) -> FittedBlock:
        """The TF-IDF n-gram features, rebuilt from the n-grams and IDF weights once per member."""
        from affectlab.detectors.ngrams import FittedBlock

        vocabulary = {ngram: i for i, ngram in enumerate(self.ngrams)}
        return FittedBlock("word", NGRAMS, vocabulary, self.idf, token_pattern=TOKEN_PATTERN)

    def logits(self, contexts: Sequence[str]) -> np.ndarray:
        """``(n_contexts, n_seen)`` logits of the regression."""
        return np.asarray(self.features.transform(list(contexts)) @ self.weights.T) + self.bias

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        """The arrays to save (the weights in float16), under ``prefix``."""
        return {
            f"{prefix}/idf": self.idf, f"{prefix}/weights": self.weights.astype(np.float16), f"{prefix}/bias": self.bias
        }  # fmt: skip

    @classmethod
    def from_arrays(cls, seen: Sequence[str], ngrams: Sequence[str], arrays: Any, prefix: str) -> NgramMember:
        """The member saved by :meth:`arrays` (``ValueError`` when the shapes disagree with the names)."""
        member = cls(
            list(seen), list(ngrams), arrays[f"{prefix}/idf"], arrays[f"{prefix}/weights"].astype(np.float32),
            arrays[f"{prefix}/bias"],
        )  # fmt: skip
        if member.weights.shape != (len(member.seen), len(member.ngrams)) or len(member.idf) != len(member.ngrams):
            raise ValueError(f"{prefix}: the n-gram member's arrays do not match its states and n-grams")
        return member


@dataclass
class VectorMember:
    """``seen`` states (one row of ``weights`` each) over e5 vectors of the windows."""

    seen: list[str]
    weights: np.ndarray
    bias: np.ndarray

    @classmethod
    def fit(cls, vectors: np.ndarray, states: Sequence[str]) -> VectorMember:
        """Fit the regression (balanced sample weights)."""
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(C=VECTOR_C, max_iter=2000)
        model.fit(vectors, list(states), sample_weight=balanced_weights(states))
        return cls(
            [str(s) for s in model.classes_], model.coef_.astype(np.float32), model.intercept_.astype(np.float32)
        )

    def logits(self, vectors: np.ndarray) -> np.ndarray:
        """``(n_vectors, n_seen)`` logits of the regression."""
        return vectors @ self.weights.T + self.bias

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        """The arrays to save (the weights in float16), under ``prefix``."""
        return {f"{prefix}/weights": self.weights.astype(np.float16), f"{prefix}/bias": self.bias}

    @classmethod
    def from_arrays(cls, seen: Sequence[str], arrays: Any, prefix: str) -> VectorMember:
        """The member saved by :meth:`arrays` (``ValueError`` when the shapes disagree with the names)."""
        member = cls(list(seen), arrays[f"{prefix}/weights"].astype(np.float32), arrays[f"{prefix}/bias"])
        if member.weights.shape[0] != len(member.seen) or len(member.bias) != len(member.seen):
            raise ValueError(f"{prefix}: the vector member's arrays do not match its states")
        return member
