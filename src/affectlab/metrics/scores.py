"""The metric functions, each saying how it averages: F1 over 0/1 label matrices ``(n_texts, n_labels)``, and
Pearson's r over intensity matrices. Their records (averaging, source, count form) are
:data:`affectlab.metrics.registry.METRICS`.

* macro-F1 (unweighted mean over all labels of the space, the none label included: EmoBench-UA Table 1,
  GoEmotions Table 4);
* micro-F1 over all labels;
* micro-F1 over the emotion labels only, i.e. without the none label: for EmoContext this is the official
  micro-F1 over happy, sad and angry (SemEval-2019 Task 3, section 6);
* macro-F1 over the emotion labels only (SemEval-2025 Task 11 track A);
* Pearson's r between gold and predicted intensities (0-3) per emotion column, averaged over the language's emotion
  columns: SemEval-2025 Task 11 track B's score (the task's evaluation script averages the per-emotion r).

Each F1 score also has a count form, which scores many resamples at once from their per-label counts (the bootstrap's).
In F1, a label with no true and no predicted example scores 0 (scikit-learn's ``zero_division=0``).
"""

from __future__ import annotations

import numpy as np

from affectlab.labels import LabelSpace


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


def macro_f1_of_counts(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """Macro-F1 of each row of ``(rows, labels)`` counts."""
    return f1_from_counts(tp, fp, fn).mean(axis=1)


def micro_f1_of_counts(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """Micro-F1 of each row of ``(rows, labels)`` counts."""
    return f1_from_counts(tp.sum(axis=1), fp.sum(axis=1), fn.sum(axis=1))


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


def pearson_per_emotion(gold: np.ndarray, predicted: np.ndarray) -> list[float]:
    """Pearson's r of each column of ``gold`` and ``predicted`` (rows are texts), over the rows where the gold is
    known (not NaN). A column whose gold or prediction does not vary has no correlation; it scores 0, as a
    constant guess earns nothing."""
    gold, predicted = np.asarray(gold, dtype=np.float64), np.asarray(predicted, dtype=np.float64)
    if gold.shape != predicted.shape or gold.ndim != 2:
        raise ValueError(f"gold {gold.shape} and predicted {predicted.shape} must be matrices of one shape")
    scores = []
    for column in range(gold.shape[1]):
        known = ~np.isnan(gold[:, column])
        g, p = gold[known, column], predicted[known, column]
        if len(g) < 2 or np.ptp(g) == 0 or np.ptp(p) == 0:
            scores.append(0.0)
            continue
        scores.append(float(np.corrcoef(g, p)[0, 1]))
    return scores


def pearson_intensity(gold: np.ndarray, predicted: np.ndarray) -> float:
    """Track B's official score: the mean over emotion columns of :func:`pearson_per_emotion`."""
    return float(np.mean(pearson_per_emotion(gold, predicted)))
