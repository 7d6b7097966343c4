"""Classification scores over 0/1 label matrices ``(n_texts, n_labels)``, each saying how it averages.

* per-label precision, recall, F1 and support;
* macro averages (unweighted mean over all labels of the space, the none label included: EmoBench-UA Table 1,
  GoEmotions Table 4);
* micro-F1 over all labels;
* micro-F1 over the emotion labels only, i.e. without the none label: for EmoContext this is the official
  micro-F1 over happy, sad and angry (SemEval-2019 Task 3, section 6).

A label with no true and no predicted example scores 0 (scikit-learn's ``zero_division=0``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from affectlab.labels import LabelSpace
from affectlab.registry import Registry


def _counts(y_true: np.ndarray, y_pred: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """True positives, false positives and false negatives per label."""
    y_true = np.asarray(y_true, dtype=bool)
    y_pred = np.asarray(y_pred, dtype=bool)
    tp = (y_true & y_pred).sum(axis=0)
    fp = (~y_true & y_pred).sum(axis=0)
    fn = (y_true & ~y_pred).sum(axis=0)
    return tp, fp, fn


def f1_from_counts(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """F1 = 2TP / (2TP + FP + FN), 0 where the denominator is 0; works elementwise on any array shape."""
    denominator = 2 * tp + fp + fn
    return np.divide(2 * tp, denominator, out=np.zeros(np.shape(denominator)), where=denominator > 0)


def micro_f1(y_true: np.ndarray, y_pred: np.ndarray, columns: list[int] | None = None) -> float:
    """Micro-averaged F1 over ``columns`` (all labels when None): counts are pooled before F1 is taken."""
    tp, fp, fn = _counts(y_true, y_pred)
    if columns is not None:
        tp, fp, fn = tp[columns], fp[columns], fn[columns]
    return float(f1_from_counts(tp.sum(), fp.sum(), fn.sum()))


def macro_f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Macro-averaged F1: the unweighted mean of the per-label F1 over all labels."""
    return float(f1_from_counts(*_counts(y_true, y_pred)).mean())


def emotion_columns(space: LabelSpace) -> list[int]:
    """Column indices of the labels other than the none label."""
    return [i for i, label in enumerate(space.labels) if label != space.none_label]


def micro_f1_emotions(y_true: np.ndarray, y_pred: np.ndarray, space: LabelSpace) -> float:
    """Micro-F1 over the emotion labels only (EmoContext: happy, sad, angry; SemEval-2019 Task 3, section 6)."""
    return micro_f1(y_true, y_pred, emotion_columns(space))


def macro_f1_emotions(y_true: np.ndarray, y_pred: np.ndarray, space: LabelSpace) -> float:
    """Macro-F1 over the emotion labels only: SemEval-2025 Task 11 track A's official score (its evaluation
    averages F1 over a language's emotion columns, so a neutral text counts only through the emotions predicted for
    it; a label with no gold and no predicted positive scores 0)."""
    columns = emotion_columns(space)
    return float(f1_from_counts(*_counts(np.asarray(y_true)[:, columns], np.asarray(y_pred)[:, columns])).mean())


PRIMARY_METRICS: Registry[Callable[[np.ndarray, np.ndarray, LabelSpace], float]] = Registry("primary metric")
"""The functions of the primary metrics named by :data:`affectlab.labels.PRIMARY_METRIC_NAMES`, with "did you mean"."""
PRIMARY_METRICS.add("macro_f1", lambda y_true, y_pred, _space: macro_f1(y_true, y_pred))
PRIMARY_METRICS.add("micro_f1_emotions", micro_f1_emotions)
PRIMARY_METRICS.add("macro_f1_emotions", macro_f1_emotions)


def primary_score(name: str, y_true: np.ndarray, y_pred: np.ndarray, space: LabelSpace) -> float:
    """The dataset's primary metric ``name`` (see :data:`PRIMARY_METRICS`)."""
    return PRIMARY_METRICS.get(name)(y_true, y_pred, space)


def classification_scores(
    y_true: np.ndarray, y_pred: np.ndarray, space: LabelSpace, primary: str = "macro_f1"
) -> dict[str, Any]:
    """All scores as one JSON-ready dict: ``primary`` ({name, value}), ``macro_f1``, ``macro_precision``,
    ``macro_recall``, ``micro_f1``, ``micro_f1_emotions`` and ``per_label`` ({label: precision, recall, f1,
    support})."""
    from sklearn.metrics import precision_recall_fscore_support  # here: detecting emotions needs no sklearn

    y_true = np.asarray(y_true, dtype=int)
    y_pred = np.asarray(y_pred, dtype=int)
    precision, recall, f1, support = precision_recall_fscore_support(
        y_true, y_pred, average=None, labels=list(range(len(space))), zero_division=0
    )
    per_label = {
        label: {"precision": float(p), "recall": float(r), "f1": float(f), "support": int(s)}
        for label, p, r, f, s in zip(space.labels, precision, recall, f1, support, strict=True)
    }
    return {
        "primary": {"name": primary, "value": primary_score(primary, y_true, y_pred, space)},
        "macro_f1": float(np.mean(f1)),
        "macro_precision": float(np.mean(precision)),
        "macro_recall": float(np.mean(recall)),
        "micro_f1": micro_f1(y_true, y_pred),
        "micro_f1_emotions": micro_f1_emotions(y_true, y_pred, space),
        "per_label": per_label,
    }
