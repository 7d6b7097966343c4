"""``ensemble``: a weighted average of the probabilities of any registered detectors over the same label space.
The embedding and n-gram views make different errors, so their average beats either (EmoBench-UA: +0.02
macro-F1); that pair is the default. The weights are tuned on dev by :func:`tune_ensemble_weights` (called by
:func:`affectlab.evaluation.training.train_detector`), and the decision is then tuned on the averaged probabilities.

Members are given as ``members=[{"model": KIND, "params": {...}}, ...]`` (e.g. ``-p 'members=[{"model":
"keywords"}, {"model": "tfidf-lr", "params": {"max_features": 50000}}]'``) or in the short form
``members=[KIND, ...]`` with ``member_params=[{...}, ...]`` in which the shipped heads were saved.

``optional=[i, ...]`` names trailing members that may be left out when loaded where their extra is not installed
(the default GoEmotions head's fine-tuned encoder needs torch): the ensemble then runs on the other members with
the weights and decision tuned for them alone, saved as ``without_optional_``, and says so in its capabilities'
``left_out``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from affectlab.detectors.base import Detector
from affectlab.detectors.batch import Inputs
from affectlab.detectors.capabilities import Capabilities, KindFacts
from affectlab.detectors.capabilities import combine as combine_capabilities
from affectlab.detectors.registry import create_detector
from affectlab.detectors.serialization import nest_arrays, unnest_arrays
from affectlab.errors import InputError, ModelFileError
from affectlab.extras import MissingExtraError
from affectlab.labels import LabelSpace
from affectlab.metrics.classification import primary_score
from affectlab.metrics.thresholds import Decision, fit_decision

WEIGHT_STEPS = 10
"""Weights are searched on a grid of 1/10 (the grid the shipped two-member heads were tuned on)."""
MAX_GRID_POINTS = 100
"""Each grid point tunes a decision on dev; with more members the grid gets coarser to stay under this many."""


def member_specs(members: Sequence[Any], member_params: Sequence[Mapping[str, Any]] = ()) -> list[tuple[str, dict]]:
    """Each member's ``(kind, params)``: an entry is a kind name or ``{"model": kind, "params": {...}}``;
    ``member_params[i]``, when given, is merged over entry ``i``'s params (the short form of saved heads)."""
    if member_params and len(member_params) != len(members):
        raise InputError(f"ensemble has {len(members)} members but {len(member_params)} member_params")
    specs = []
    for i, entry in enumerate(members):
        if isinstance(entry, str):
            kind, params = entry, {}
        elif isinstance(entry, Mapping) and isinstance(entry.get("model"), str):
            unknown = set(entry) - {"model", "params"}
            if unknown:
                raise InputError(f"ensemble member {i} has unknown keys {', '.join(sorted(unknown))}")
            kind, params = entry["model"], dict(entry.get("params") or {})
        else:
            raise InputError(f'ensemble member {i} must be a model kind or {{"model": kind, "params": {{...}}}}')
        specs.append((kind, {**params, **(member_params[i] if member_params else {})}))
    if not specs:
        raise InputError("an ensemble needs at least one member")
    return specs


class EnsembleDetector(Detector):
    """Average of member detectors' probabilities with weights ``weights`` (equal until tuned)."""

    name = "ensemble"
    description = "weighted average of registered detectors' probabilities (default embedding-lr + tfidf-lr)"
    defaults = {"members": ["embedding-lr", "tfidf-lr"], "member_params": [], "weights": None, "optional": []}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        specs = member_specs(self.params["members"], self.params["member_params"] or ())
        self.members_ = [create_detector(kind, **member_params) for kind, member_params in specs]
        weights = self.params["weights"] or [1.0 / len(self.members_)] * len(self.members_)
        if len(weights) != len(self.members_):
            raise InputError(f"ensemble has {len(self.members_)} members but {len(weights)} weights")
        self.weights_ = np.asarray(weights, dtype=np.float64)
        self.fast_decision_: Decision | None = None
        """Optional decision for one member alone (the default heads' fast, n-gram-only profile)."""
        optional = list(self.params["optional"] or [])
        if optional and sorted(optional) != list(range(len(self.members_) - len(optional), len(self.members_))):
            raise InputError("ensemble optional members must be the last ones")
        self.without_optional_: dict[str, Any] | None = None
        """``{"weights", "decision"}`` tuned for the members that are not optional."""
        self._left_out: list[str] = []
        """Why optional members were left out when this ensemble was loaded (empty when none were): its
        capabilities' ``left_out``."""

    def _kind_facts(self) -> KindFacts:
        """It may rate intensity (through a member that does); training refits copies for out-of-fold thresholds
        only when every member its parameters name is cheap to refit (an optional one left out when it was loaded
        too: a copy is built from the parameters)."""
        specs = member_specs(self.params["members"], self.params["member_params"] or ())
        cheap = all(create_detector(kind, **params).capabilities.cheap_to_refit for kind, params in specs)
        return {"may_rate_intensity": True, "cheap_to_refit": cheap}

    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        for member in self.members_:
            member.fit(inputs, Y, self.label_space)

    def member_probas(self, X: Any) -> list[np.ndarray]:
        """Each member's probabilities."""
        return [member.predict_proba(X) for member in self.members_]

    def _capabilities(self) -> Capabilities:
        """The members that run (weight above 0) give the encoders, the cut and context; intensity comes from the
        first member that rates it (any member); members left out when it was loaded are named."""
        running = [self.members_[i].capabilities for i in np.flatnonzero(self.weights_ > 0)]
        rating = [member.capabilities for member in self.members_]
        return combine_capabilities(running, "any", left_out=self._left_out, rating=rating)

    def _intensities(self, inputs: Inputs) -> np.ndarray:
        """The intensities of the first member that rates them (the encoder member)."""
        for member in self.members_:
            if member.capabilities.rates_intensity:
                return member._intensities(inputs)
        return super()._intensities(inputs)

    def _predict_proba(self, inputs: Inputs) -> np.ndarray:
        used = np.flatnonzero(self.weights_ > 0)  # a member tuned to weight 0 (kept for the fast profile) is not run
        return combine([self.members_[i].predict_proba(inputs) for i in used], self.weights_[used])

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        if self._left_out:
            raise ModelFileError(f"this ensemble was loaded without some members ({'; '.join(self._left_out)})")
        if self.params["optional"] and self.without_optional_ is None:
            raise InputError("an ensemble with optional members needs without_optional_ (weights and decision)")
        states, arrays = [], {}
        for i, member in enumerate(self.members_):
            state, member_arrays = member._get_state()
            states.append(state)
            arrays.update(nest_arrays(f"member{i}", member_arrays))
        fast = self.fast_decision_.to_dict() if self.fast_decision_ is not None else None
        state = {"members": states, "weights": self.weights_.tolist(), "fast_decision": fast}
        if self.without_optional_ is not None:
            state["without_optional"] = self.without_optional_
        return state, arrays

    def _set_state(self, state: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        self.weights_ = np.asarray(state["weights"], dtype=np.float64)
        fast = state.get("fast_decision")
        self.fast_decision_ = Decision.from_dict(fast) if fast else None
        self.without_optional_ = state.get("without_optional")
        kept = []
        for i, (member, member_state) in enumerate(zip(self.members_, state["members"], strict=True)):
            member.label_space_ = self.label_space
            try:
                member._set_state(member_state, unnest_arrays(f"member{i}", arrays))
            except MissingExtraError as exc:
                if i not in self.params["optional"] or self.without_optional_ is None:
                    raise
                self._left_out.append(f"{member.name} member left out: {exc}")
                continue
            # members decide only when taken out alone; the ensemble's own decision is the one that was tuned
            member.set_decision(Decision.default(self.label_space, member.rule()))
            member.capabilities_ = member._computed_capabilities()
            kept.append(member)
        if self._left_out:
            self._keep_required(kept)

    def set_weights(self, weights: np.ndarray) -> None:
        """Use member ``weights`` (tuned on dev by training: learned state, not a parameter; :meth:`unfitted_copy`
        carries them to copies such as the out-of-fold models); a member weighted 0 no longer runs."""
        self.weights_ = np.asarray(weights, dtype=np.float64)
        if self.capabilities_ is not None:
            self.capabilities_ = self._computed_capabilities().with_languages(self.capabilities_.trained_languages)

    def unfitted_copy(self) -> EnsembleDetector:
        """An untrained copy with the same parameters and member weights."""
        copied = EnsembleDetector(**self.params)
        copied.weights_ = self.weights_.copy()
        return copied

    def set_fast_decision(self, decision: Decision) -> None:
        """Use ``decision`` for the fast member alone (:meth:`fast_profile`), tuned on dev by the default's build."""
        self.fast_decision_ = decision.check(len(self.label_space))

    def with_optional_member(self, member: Detector) -> EnsembleDetector:
        """This ensemble plus the trained ``member`` as an optional last member, with this one's weights and
        decision kept for when that member cannot be loaded (tune the new ones with :meth:`set_weights` and
        :meth:`set_decision`)."""
        assert self.decision_ is not None  # a trained ensemble
        kinds = list(self.params["members"])
        params = list(self.params["member_params"] or [{} for _ in kinds])
        combined = EnsembleDetector(
            members=[*kinds, member.name], member_params=[*params, member.params], optional=[len(kinds)]
        )
        combined.label_space_, combined.decision_ = self.label_space_, self.decision_
        combined.members_ = [*self.members_, member]
        combined.fast_decision_ = self.fast_decision_
        combined.without_optional_ = {"weights": self.weights_.tolist(), "decision": self.decision_.to_dict()}
        combined.capabilities_ = combined._computed_capabilities().with_languages(self.capabilities.trained_languages)
        return combined

    def without_optional_members(self) -> EnsembleDetector:
        """A copy that runs on the required members alone, with the weights and decision tuned for them."""
        required_only = EnsembleDetector(**self.params)
        required_only.label_space_ = self.label_space_
        required_only.fast_decision_ = self.fast_decision_
        required_only.without_optional_ = self.without_optional_
        required = self._n_required()
        left_out = self.members_[required:]
        required_only._left_out = [f"{member.name} member left out on request" for member in left_out]
        required_only._keep_required(self.members_[:required])
        languages = self.capabilities.trained_languages
        required_only.capabilities_ = required_only._computed_capabilities().with_languages(languages)
        return required_only

    def fast_profile(self, member_index: int) -> Detector:
        """A copy of member ``member_index`` alone, deciding with the decision tuned for it alone
        (``fast_decision_``) and saying the ensemble's training languages (the default heads' fast profile)."""
        if self.fast_decision_ is None:
            raise InputError("this ensemble has no decision tuned for one member alone (fast_decision_)")
        fast = copy.copy(self.members_[member_index])  # the ensemble's own member keeps its decision
        fast.set_decision(self.fast_decision_)
        fast.capabilities_ = fast.capabilities.with_languages(self.capabilities.trained_languages)
        return fast

    def _n_required(self) -> int:
        return len(self.members_) - len(self.params["optional"] or [])

    def _keep_required(self, members: list[Detector]) -> None:
        if self.without_optional_ is None:
            raise InputError("this ensemble has no weights and decision for its required members alone")
        self.members_ = members
        self.weights_ = np.asarray(self.without_optional_["weights"], dtype=np.float64)
        self.decision_ = Decision.from_dict(self.without_optional_["decision"])


def combine(probas: list[np.ndarray], weights: np.ndarray) -> np.ndarray:
    """The weighted average of member probabilities, element by element (a BLAS product here made a text's
    average depend in its last bits on the size of its batch)."""
    shares = weights / weights.sum()
    total = np.zeros(np.shape(probas[0]))
    for share, proba in zip(shares, probas, strict=True):
        total += share * proba
    return total


def weight_grid(n_members: int) -> Iterator[np.ndarray]:
    """Weight vectors on the simplex, first weight ascending: steps of 1/10, coarser when that would give more
    than ``MAX_GRID_POINTS`` points (4 members: 1/6, 5 members: 1/4). For two members this is exactly the grid
    ``[w, 1 - w]``, ``w = 0.0, 0.1, ..., 1.0``, that the shipped heads were tuned on."""
    steps = WEIGHT_STEPS
    while steps > 1 and math.comb(steps + n_members - 1, n_members - 1) > MAX_GRID_POINTS:
        steps -= 1
    for counts in _compositions(steps, n_members):
        head = [count / steps for count in counts[:-1]]
        yield np.array([*head, 1.0 - sum(head)])


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """All ways to write ``total`` as ``parts`` non-negative integers, in lexicographic order."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def tune_ensemble_weights(
    probas: list[np.ndarray], y_true: np.ndarray, space: LabelSpace, metric: str, rule: str
) -> np.ndarray:
    """The member weights on :func:`weight_grid` that maximise ``metric`` on dev after the decision itself is
    tuned there for each candidate (ties keep the earlier candidate); a cell of :data:`~affectlab.labels.UNKNOWN`
    counts as a true negative, which no F1 reads."""
    best, best_score = np.full(len(probas), 1.0 / len(probas)), -1.0
    annotated = np.asarray(y_true) >= 0
    for weights in weight_grid(len(probas)):
        combined = combine(probas, weights)
        decision = fit_decision(rule, combined, y_true, space, metric)
        predicted = decision.apply(combined, space) * annotated  # an UNKNOWN cell: a true negative, which F1 ignores
        score = primary_score(metric, y_true * annotated, predicted, space)
        if score > best_score + 1e-9:
            best, best_score = weights, score
    return best
