"""All classification scores of a prediction as one JSON-ready dict (:func:`classification_scores`): per-label
precision, recall, F1 and support, their macro averages, micro-F1 and the dataset's primary metric. The F1 scores
themselves are :mod:`affectlab.metrics.scores`' (re-exported here for their callers) and the metrics' records
:mod:`affectlab.metrics.registry`'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from affectlab.labels import LabelSpace
from affectlab.metrics.registry import primary_score
from affectlab.metrics.scores import macro_f1, macro_f1_emotions, micro_f1, micro_f1_emotions

__all__ = [
    "classification_scores",
    "macro_f1",
    "macro_f1_emotions",
    "micro_f1",
    "micro_f1_emotions",
    "primary_score",
]


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
