"""Turning probabilities into labels: one shared step for every detector.

* ``thresholds`` (multi-label): a label is predicted when its probability reaches its own threshold, tuned on dev
  to maximise that label's F1; a text with no label over threshold gets the label with the highest
  probability/threshold ratio; an exclusive none label is dropped when an emotion is predicted.
* ``argmax`` (single-label, or a detector whose paper decides by arg-max such as keywords): the label with the
  highest ``log p + bias``. The bias is a prior shift tuned on dev, for tasks whose train and test label priors
  differ (EmoContext: train is about 50 % emotions, dev and test about 15 %).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from affectlab.labels import LabelSpace
from affectlab.metrics.registry import primary_score
from affectlab.metrics.scores import f1_from_counts

THRESHOLD_GRID = np.round(np.arange(0.02, 0.96, 0.01), 2)
"""Candidate thresholds: a fixed grid (not every dev probability) keeps small dev sets from over-fitting."""
BIAS_STEPS = np.round(np.arange(-3.0, 3.01, 0.1), 2)
EPS = 1e-9
MIN_GROUP_ROWS = 100


@dataclass
class Decision:
    """How probabilities become labels: ``rule`` is ``thresholds`` or ``argmax``; ``values`` holds the per-label
    thresholds or the per-label log-prior bias, in label-space order. ``groups`` optionally holds other values for
    groups of texts (languages: label priors differ a lot between them, e.g. fear is 58 % of SemEval-2025
    English and 7 % of EmoBench-UA)."""

    rule: str
    values: np.ndarray
    groups: dict[str, np.ndarray] = field(default_factory=dict)
    none_gate: float | None = None
    """Thresholds only: where the none label's probability reaches this, the text gets none alone, whatever its
    emotions' thresholds say. For data without neutral texts (SemEval-2025 Spanish), whose tuned emotion thresholds
    never leave a text without an emotion: the gate comes from data that has them."""

    def apply(self, probs: np.ndarray, space: LabelSpace, groups: Sequence[str] | None = None) -> np.ndarray:
        """The 0/1 prediction matrix for ``probs`` of shape ``(n, n_labels)``; ``groups`` names each row's group."""
        probs = np.asarray(probs, dtype=np.float64)
        if groups is not None and self.groups:
            return self._by_group(probs, groups, lambda decision, rows: decision.apply(probs[rows], space), np.int8)
        if self.rule == "argmax":
            scores = np.log(np.clip(probs, EPS, 1.0)) + self.values
            predicted = np.zeros(probs.shape, dtype=np.int8)
            predicted[np.arange(len(probs)), scores.argmax(axis=1)] = 1
            return predicted
        if self.rule == "thresholds":
            predicted = _apply_thresholds(probs, self.values, space)
            gated = self._gated(probs, space)
            if gated is not None:
                predicted[gated] = 0
                predicted[gated, space.labels.index(str(space.none_label))] = 1
            return predicted
        raise ValueError(f"unknown decision rule {self.rule!r}")

    def _by_group(
        self,
        probs: np.ndarray,
        groups: Sequence[str],
        each: Callable[[Decision, np.ndarray], np.ndarray],
        dtype: type,
    ) -> np.ndarray:
        """``each(decision of a group, its rows)`` for each group of rows, placed at those rows."""
        out: np.ndarray = np.zeros(probs.shape, dtype=dtype)
        keys = np.asarray(list(groups), dtype=object)
        for key in set(keys):
            rows = np.flatnonzero(keys == key)
            out[rows] = each(Decision(self.rule, self.groups.get(key, self.values), none_gate=self.none_gate), rows)
        return out

    def _gated(self, probs: np.ndarray, space: LabelSpace) -> np.ndarray | None:
        """The rows the none gate sends to none alone (None: no gate)."""
        if self.none_gate is None or space.none_label is None:
            return None
        return probs[:, space.labels.index(space.none_label)] >= self.none_gate

    def scores(self, probs: np.ndarray, space: LabelSpace, groups: Sequence[str] | None = None) -> np.ndarray:
        """Scores on the decision's own scale, which a person can read beside the labels it gives.

        Thresholds: each label's probability mapped piecewise-linearly so that its tuned threshold lands on 0.5
        (0 -> 0, threshold -> 0.5, 1 -> 1): a label is given when its score reaches 0.5, and when none does,
        the highest-scoring one is. In a space whose none label excludes the others, none's score is at most
        1 - the strongest emotion's, since it means that no emotion is there. Arg-max: the probabilities after
        the tuned prior shift, renormalised; the label given is the highest. Either way the labels given are the
        top of the score order."""
        probs = np.asarray(probs, dtype=np.float64)
        if groups is not None and self.groups:
            return self._by_group(probs, groups, lambda decision, rows: decision.scores(probs[rows], space), np.float64)
        if self.rule == "argmax":
            shifted = np.log(np.clip(probs, EPS, 1.0)) + self.values
            shifted = np.exp(shifted - shifted.max(axis=1, keepdims=True))
            return shifted / shifted.sum(axis=1, keepdims=True)
        if self.rule != "thresholds":
            raise ValueError(f"unknown decision rule {self.rule!r}")
        t = np.clip(self.values, EPS, 1.0 - EPS)
        below = 0.5 * probs / t
        above = 0.5 + 0.5 * (probs - t) / (1.0 - t)
        out = np.where(probs < t, below, above)
        if space.none_label is not None and space.none_exclusive and len(space) > 1:
            none = space.labels.index(space.none_label)
            strongest = np.delete(out, none, axis=1).max(axis=1)
            out[:, none] = np.minimum(out[:, none], 1.0 - strongest)
        gated = self._gated(probs, space)
        if gated is not None and gated.any():  # none on the gate's scale, the emotions below it
            none = space.labels.index(str(space.none_label))
            gate = min(max(self.none_gate or 0.5, EPS), 1.0 - EPS)
            out[gated, none] = 0.5 + 0.5 * (probs[gated, none] - gate) / (1.0 - gate)
            emotions = np.array([j for j in range(len(space)) if j != none])
            out[np.ix_(gated, emotions)] = np.minimum(out[np.ix_(gated, emotions)], 1.0 - out[gated, none][:, None])
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, saved with the model."""
        groups = {key: [float(v) for v in values] for key, values in self.groups.items()}
        out: dict[str, Any] = {"rule": self.rule, "values": [float(v) for v in self.values], "groups": groups}
        if self.none_gate is not None:
            out["none_gate"] = float(self.none_gate)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Decision:
        """Inverse of :meth:`to_dict`."""
        groups = {str(k): np.asarray(v, dtype=np.float64) for k, v in (data.get("groups") or {}).items()}
        gate = data.get("none_gate")
        values = np.asarray(data["values"], dtype=np.float64)
        return cls(str(data["rule"]), values, groups, None if gate is None else float(gate))

    def check(self, n_labels: int) -> Decision:
        """``self`` if it fits a label space of ``n_labels`` (a known rule, one finite value per label, for every
        group too); else a ``ValueError`` saying what does not fit (a saved model edited by hand)."""
        if self.rule not in ("thresholds", "argmax"):
            raise ValueError(f"decision rule {self.rule!r} is neither thresholds nor argmax")
        for group, values in {"": self.values, **self.groups}.items():
            where = f" for group {group!r}" if group else ""
            if values.shape != (n_labels,) or not np.isfinite(values).all():
                raise ValueError(f"decision{where} has {values.size} values for {n_labels} labels, or a non-number")
        if self.none_gate is not None and not (self.rule == "thresholds" and 0.0 < self.none_gate <= 1.0):
            raise ValueError(f"a none gate ({self.none_gate}) goes with thresholds and lies in (0, 1]")
        return self

    @classmethod
    def default(cls, space: LabelSpace, rule: str) -> Decision:
        """Untuned decision: thresholds of 0.5, or arg-max without bias."""
        value = 0.5 if rule == "thresholds" else 0.0
        return cls(rule=rule, values=np.full(len(space), value))


def _apply_thresholds(probs: np.ndarray, thresholds: np.ndarray, space: LabelSpace) -> np.ndarray:
    predicted = (probs >= thresholds).astype(np.int8)
    empty = predicted.sum(axis=1) == 0
    if empty.any():
        best = (probs[empty] / np.maximum(thresholds, EPS)).argmax(axis=1)
        predicted[np.flatnonzero(empty), best] = 1
    if space.none_label is not None and space.none_exclusive:
        none = space.labels.index(space.none_label)
        has_emotion = np.delete(predicted, none, axis=1).any(axis=1)
        predicted[has_emotion, none] = 0
    return predicted


def tune_thresholds(probs: np.ndarray, y_true: np.ndarray, grid: np.ndarray = THRESHOLD_GRID) -> np.ndarray:
    """Per label, the grid threshold with the best F1 on (``probs``, ``y_true``), over the rows that annotate the
    label (:data:`~affectlab.labels.UNKNOWN` cells left out); 0.5 for a label without positives. Ties go to the
    threshold closest to 0.5."""
    probs = np.asarray(probs, dtype=np.float64)
    annotated = np.asarray(y_true) >= 0  # a cell of UNKNOWN (its row's dataset does not annotate it) counts nowhere
    y_true = np.asarray(y_true) == 1
    passed = (probs[:, :, None] >= grid[None, None, :]) & annotated[:, :, None]  # (n, labels, grid)
    tp = (passed & y_true[:, :, None]).sum(axis=0)
    fp = (passed & ~y_true[:, :, None]).sum(axis=0)
    fn = y_true.sum(axis=0)[:, None] - tp
    f1 = f1_from_counts(tp, fp, fn)
    closeness = -np.abs(grid - 0.5)[None, :] * 1e-6  # tie-break toward 0.5
    chosen = grid[(f1 + closeness).argmax(axis=1)]
    return np.where(y_true.any(axis=0), chosen, 0.5)


def tune_prior_shift(
    probs: np.ndarray,
    y_true: np.ndarray,
    space: LabelSpace,
    metric: str,
    train_prior: np.ndarray | None = None,
    rounds: int = 2,
) -> np.ndarray:
    """A per-label log-prior bias for arg-max decisions, maximising ``metric`` on dev.

    It starts from the textbook shift log(dev prior / train prior) and refines it by coordinate ascent over
    ``BIAS_STEPS`` around the current value, one label at a time, keeping a change only if the score improves.
    """
    y_true = np.asarray(y_true, dtype=int)
    bias = np.zeros(len(space))
    if train_prior is not None:
        dev_prior = (y_true.sum(axis=0) + 1) / (len(y_true) + len(space))
        bias = np.log(dev_prior / np.clip(train_prior, EPS, None))
    best = _score_bias(probs, y_true, space, metric, bias)
    for _ in range(rounds):
        for label in range(len(space)):
            for step in BIAS_STEPS:
                trial = bias.copy()
                trial[label] = bias[label] + step
                score = _score_bias(probs, y_true, space, metric, trial)
                if score > best + 1e-12:
                    best, bias = score, trial
    return bias - bias.mean()


def _score_bias(probs: np.ndarray, y_true: np.ndarray, space: LabelSpace, metric: str, bias: np.ndarray) -> float:
    return primary_score(metric, y_true, Decision("argmax", bias).apply(probs, space), space)


def fit_decision(
    rule: str,
    probs: np.ndarray | None,
    y_true: np.ndarray | None,
    space: LabelSpace,
    metric: str,
    train_prior: np.ndarray | None = None,
    tune: bool = True,
    groups: Sequence[str] | None = None,
) -> Decision:
    """The decision for a detector: tuned on the dev ``probs``/``y_true`` when given and ``tune`` is set. With
    ``groups`` (one key per dev row, e.g. its language), each group of at least ``MIN_GROUP_ROWS`` rows gets its
    own values too."""
    if not tune or probs is None or y_true is None or len(y_true) == 0:
        return Decision.default(space, rule)

    def tuned(p: np.ndarray, y: np.ndarray) -> np.ndarray:
        if rule == "thresholds":
            return tune_thresholds(p, y)
        return tune_prior_shift(p, np.maximum(y, 0), space, metric, train_prior)  # single-label: nothing UNKNOWN

    decision = Decision(rule, tuned(probs, y_true))
    if groups is not None:
        keys = np.asarray(list(groups), dtype=object)
        for key in sorted(set(keys) - {""}):
            rows = np.flatnonzero(keys == key)
            if len(rows) >= MIN_GROUP_ROWS and len(set(keys)) > 1:
                decision.groups[str(key)] = tuned(probs[rows], y_true[rows])
    return decision
