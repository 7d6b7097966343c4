"""``ensemble``: a weighted average of the probabilities of several detectors over the same label space. The
embedding and n-gram views make different errors, so their average beats either (EmoBench-UA: +0.02 macro-F1).
The weights are tuned on dev by :func:`tune_ensemble_weights`."""

from __future__ import annotations

from typing import Any

import numpy as np

from affectlab.errors import InputError
from affectlab.labels import LabelSpace
from affectlab.metrics.classification import primary_score
from affectlab.metrics.thresholds import Decision, fit_decision
from affectlab.models.base import Detector, Inputs
from affectlab.models.embedding import EmbeddingLogisticRegression
from affectlab.models.keywords import KeywordDetector
from affectlab.models.tfidf import TfidfLogisticRegression, TfidfRandomForest

MEMBER_KINDS: dict[str, type[Detector]] = {
    cls.name: cls for cls in (EmbeddingLogisticRegression, TfidfLogisticRegression, TfidfRandomForest, KeywordDetector)
}
WEIGHT_GRID = np.round(np.arange(0.0, 1.01, 0.1), 2)


class EnsembleDetector(Detector):
    """Average of member detectors' probabilities with weights ``weights`` (equal until tuned)."""

    name = "ensemble"
    description = "weighted average of embedding-lr and tfidf-lr probabilities, weight tuned on dev"
    defaults = {"members": ["embedding-lr", "tfidf-lr"], "member_params": [{}, {}], "weights": None}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        unknown = [m for m in self.params["members"] if m not in MEMBER_KINDS]
        if unknown:
            raise InputError(f"ensemble members must be among {', '.join(MEMBER_KINDS)}; got {', '.join(unknown)}")
        member_params = list(self.params["member_params"]) or [{}] * len(self.params["members"])
        self.members_ = [MEMBER_KINDS[m](**p) for m, p in zip(self.params["members"], member_params, strict=True)]
        weights = self.params["weights"] or [1.0 / len(self.members_)] * len(self.members_)
        self.weights_ = np.asarray(weights, dtype=np.float64)
        self.fast_decision_: Decision | None = None
        """Optional decision for the last member alone (the default heads' fast, n-gram-only profile)."""

    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        for member in self.members_:
            member.fit(inputs, Y, self.label_space)

    def member_probas(self, X: Any) -> list[np.ndarray]:
        """Each member's probabilities."""
        return [member.predict_proba(X) for member in self.members_]

    def _predict_proba(self, inputs: Inputs) -> np.ndarray:
        return combine(self.member_probas(inputs), self.weights_)

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        states, arrays = [], {}
        for i, member in enumerate(self.members_):
            state, member_arrays = member._get_state()
            states.append(state)
            arrays.update({f"member{i}/{key}": value for key, value in member_arrays.items()})
        fast = self.fast_decision_.to_dict() if self.fast_decision_ is not None else None
        return {"members": states, "weights": self.weights_.tolist(), "fast_decision": fast}, arrays

    def _set_state(self, state: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        self.weights_ = np.asarray(state["weights"], dtype=np.float64)
        fast = state.get("fast_decision")
        self.fast_decision_ = Decision.from_dict(fast) if fast else None
        for i, (member, member_state) in enumerate(zip(self.members_, state["members"], strict=True)):
            prefix = f"member{i}/"
            member.label_space_ = self.label_space
            member._set_state(member_state, {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)})


def combine(probas: list[np.ndarray], weights: np.ndarray) -> np.ndarray:
    """The weighted average of member probabilities."""
    return np.tensordot(weights / weights.sum(), np.stack(probas), axes=1)


def tune_ensemble_weights(
    probas: list[np.ndarray], y_true: np.ndarray, space: LabelSpace, metric: str, rule: str
) -> np.ndarray:
    """For two members, the weight of the first on a 0.1 grid that maximises ``metric`` on dev after the decision
    itself is tuned there; more members keep equal weights."""
    if len(probas) != 2:
        return np.full(len(probas), 1.0 / len(probas))
    best, best_score = np.array([0.5, 0.5]), -1.0
    for w in WEIGHT_GRID:
        weights = np.array([w, 1.0 - w])
        combined = combine(probas, weights)
        decision = fit_decision(rule, combined, y_true, space, metric)
        score = primary_score(metric, y_true, decision.apply(combined, space), space)
        if score > best_score + 1e-9:
            best, best_score = weights, score
    return best
