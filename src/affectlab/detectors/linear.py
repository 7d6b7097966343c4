"""Logistic-regression heads shared by the detectors that learn linear weights over some features
(TF-IDF n-grams, sentence embeddings): fitting with scikit-learn, and scoring from the saved weights.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.sparse import issparse
from scipy.special import expit, softmax

CONSTANT_LOGIT = 20.0


def fit_linear(
    X: Any, Y: np.ndarray, multi_label: bool, C: float, class_weight: str | None, max_iter: int
) -> tuple[np.ndarray, np.ndarray]:
    """Weights ``(n_labels, n_features)`` and intercepts ``(n_labels,)``: one binary classifier per label when
    ``multi_label`` (each on the rows that annotate it: a cell of :data:`~affectlab.labels.UNKNOWN` is left out),
    else one multinomial classifier over the arg-max of each row."""
    from sklearn.linear_model import LogisticRegression  # here, not at the top: scoring saved weights needs no sklearn

    def classifier(solver: str) -> LogisticRegression:
        return LogisticRegression(C=C, class_weight=class_weight, solver=solver, max_iter=max_iter)

    if multi_label:
        weights = [_fit_binary(X, Y[:, j], classifier) for j in range(Y.shape[1])]
        return np.vstack([w for w, _ in weights]).astype(np.float32), np.array([b for _, b in weights])
    y = Y.argmax(axis=1)
    clf = classifier("lbfgs").fit(X, y)
    coef = np.zeros((Y.shape[1], X.shape[1]), dtype=np.float32)
    intercept = np.full(Y.shape[1], -CONSTANT_LOGIT)
    if len(clf.classes_) == 1:
        intercept[clf.classes_[0]] = CONSTANT_LOGIT
    elif len(clf.classes_) == 2:  # scikit-learn keeps one weight vector for two classes: split it symmetrically
        coef[clf.classes_] = np.vstack([-clf.coef_, clf.coef_]) / 2
        intercept[clf.classes_] = np.array([-clf.intercept_[0], clf.intercept_[0]]) / 2
    else:
        coef[clf.classes_] = clf.coef_
        intercept[clf.classes_] = clf.intercept_
    return coef, intercept


def _fit_binary(X: Any, y: np.ndarray, classifier: Any) -> tuple[np.ndarray, float]:
    annotated = np.flatnonzero(y >= 0)  # a row whose dataset does not annotate the label (UNKNOWN) teaches nothing
    if len(annotated) < len(y):
        X, y = X[annotated], y[annotated]
    if len(y) == 0 or y.min() == y.max():  # a label never (or always) seen in training: a constant, confident answer
        return np.zeros(X.shape[1]), CONSTANT_LOGIT if len(y) and y.max() == 1 else -CONSTANT_LOGIT
    clf = classifier("liblinear").fit(X, y)
    return clf.coef_[0], float(clf.intercept_[0])


def linear_proba(X: Any, coef: np.ndarray, intercept: np.ndarray, multi_label: bool) -> np.ndarray:
    """The arithmetic of ``LogisticRegression.predict_proba`` on saved weights: scikit-learn has no public way to
    rebuild a fitted estimator from its coefficients without pickle."""
    scores = (np.asarray(X @ coef.T) if issparse(X) else row_products(np.asarray(X), coef)) + intercept
    return expit(scores) if multi_label else softmax(scores, axis=1)


ROWS_PER_PRODUCT = 256


def row_products(X: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """``X @ coef.T`` computed so that each row's result depends on that row alone: a BLAS product picks its kernel
    and summation order by the matrix sizes, so a text's scores moved in the last bits with its batch (issue 22).
    Each element is numpy's pairwise sum over one row of products, the same for a row alone and in any batch."""
    out = np.empty((X.shape[0], coef.shape[0]), dtype=np.result_type(X, coef))
    for start in range(0, X.shape[0], ROWS_PER_PRODUCT):
        rows = X[start : start + ROWS_PER_PRODUCT]
        out[start : start + ROWS_PER_PRODUCT] = (rows[:, None, :] * coef[None, :, :]).sum(axis=-1)
    return out
