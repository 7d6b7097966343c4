"""TF-IDF + logistic regression (``tfidf-lr``) and TF-IDF + random forest (``tfidf-rf``): the linguistic
baselines of EmoBench-UA section 5.1, over word and character n-grams.

Multi-label spaces get one binary classifier per label (logistic regression) or one multi-output forest; single-
label spaces get a multinomial logistic regression or a multi-class forest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from affectlab.detectors.base import Detector
from affectlab.detectors.batch import Inputs
from affectlab.detectors.capabilities import Capabilities
from affectlab.detectors.linear import fit_linear, linear_proba
from affectlab.detectors.ngrams import FEATURE_DEFAULTS, NgramFeatures
from affectlab.errors import InputError

if TYPE_CHECKING:  # scikit-learn is imported where a forest is built: scoring with tfidf-lr needs none of it
    from sklearn.ensemble import RandomForestClassifier


COEF_STORAGE = ("float32", "float16")
"""How ``tfidf-lr`` stores its weights in a saved model. float16 halves the largest files of the shipped package and
moves a probability by at most about 1e-4 (``benchmarks/notes/issue54_package_size.md``); weights are read back as
float32 either way."""


class TfidfLogisticRegression(Detector):
    """Word + char TF-IDF features, logistic regression (``C``, ``class_weight``); ``coef_storage`` is how a saved
    model keeps the weights (:data:`COEF_STORAGE`)."""

    name = "tfidf-lr"
    description = "TF-IDF word + char n-grams, logistic regression (EmoBench-UA 5.1)"
    defaults = {**FEATURE_DEFAULTS, "C": 2.0, "class_weight": None, "max_iter": 2000, "coef_storage": "float32"}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if self.params["coef_storage"] not in COEF_STORAGE:
            raise InputError(f"coef_storage is one of {', '.join(COEF_STORAGE)}, not {self.params['coef_storage']!r}")

    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        self.features_ = NgramFeatures(self.params)
        X = self.features_.fit_transform(inputs)
        p = self.params
        self.coef_, self.intercept_ = fit_linear(
            X, Y, self.label_space.multi_label, p["C"], p["class_weight"], p["max_iter"]
        )

    def _predict_proba(self, inputs: Inputs) -> np.ndarray:
        X = self.features_.transform(inputs)
        return linear_proba(X, self.coef_, self.intercept_, self.label_space.multi_label)

    def _capabilities(self) -> Capabilities:
        """Context when the training texts had earlier turns, so that a context block was learned."""
        return Capabilities(reads_context=self.features_.reads_context)

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        state, arrays = self.features_.get_state()
        coef = self.coef_.astype(self.params["coef_storage"]) if self.coef_.dtype != np.float64 else self.coef_
        return state, {**arrays, "coef": coef, "intercept": self.intercept_}

    def _set_state(self, state: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        self.features_ = NgramFeatures(self.params)
        self.features_.set_state(state, arrays)
        coef = arrays["coef"]
        self.coef_ = coef.astype(np.float32) if coef.dtype == np.float16 else coef
        self.intercept_ = arrays["intercept"]
        if self.coef_.shape != (len(self.label_space), self.features_.n_features):
            raise ValueError("weights do not match the vocabulary and label space")


class TfidfRandomForest(Detector):
    """Word + char TF-IDF features, a random forest of ``n_estimators`` trees (EmoBench-UA: 100).

    Trees grown on every n-gram of a 30k-text training set take minutes and over 100 MB, so by default the forest
    sees the ``selected_features`` n-grams with the highest chi-squared score for any label, and leaves hold at
    least ``min_samples_leaf`` texts (``selected_features=null`` keeps all n-grams)."""

    name = "tfidf-rf"
    description = "TF-IDF word + char n-grams, random forest of 100 trees (EmoBench-UA 5.1)"
    defaults = {
        **FEATURE_DEFAULTS,
        "n_estimators": 100,
        "min_samples_leaf": 3,
        "selected_features": 2000,
        "class_weight": "balanced_subsample",
        "n_jobs": -1,
        "random_state": 0,
    }

    def _forest(self) -> RandomForestClassifier:
        from sklearn.ensemble import RandomForestClassifier

        return RandomForestClassifier(
            n_estimators=self.params["n_estimators"],
            min_samples_leaf=self.params["min_samples_leaf"],
            class_weight=self.params["class_weight"],
            n_jobs=self.params["n_jobs"],
            random_state=self.params["random_state"],
        )

    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        self.features_ = NgramFeatures(self.params)
        X = self.features_.fit_transform(inputs)
        self.selected_ = _top_chi2_features(X, Y, self.params["selected_features"])
        target = Y if self.label_space.multi_label else Y.argmax(axis=1)
        self.forest_ = self._forest().fit(X[:, self.selected_], target)

    def _predict_proba(self, inputs: Inputs) -> np.ndarray:
        raw = self.forest_.predict_proba(self.features_.transform(inputs)[:, self.selected_])
        n_labels = len(self.label_space)
        probs = np.zeros((len(inputs), n_labels))
        if self.label_space.multi_label:  # one (n, n_classes) array per label; take the column of class 1
            for j, (classes, p) in enumerate(zip(self.forest_.classes_, raw, strict=True)):
                positive = np.flatnonzero(np.asarray(classes) == 1)
                probs[:, j] = p[:, positive[0]] if len(positive) else 0.0
        else:
            probs[:, np.asarray(self.forest_.classes_, dtype=int)] = raw
        return probs

    def _capabilities(self) -> Capabilities:
        """Context when the training texts had earlier turns, so that a context block was learned."""
        return Capabilities(reads_context=self.features_.reads_context)

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        state, arrays = self.features_.get_state()
        arrays = {**arrays, **_forest_arrays(self.forest_), "selected": self.selected_}
        return {**state, **_forest_meta(self.forest_)}, arrays

    def _set_state(self, state: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        self.features_ = NgramFeatures(self.params)
        self.features_.set_state(state, arrays)
        self.selected_ = arrays["selected"]
        self.forest_ = _rebuild_forest(self._forest(), state, arrays)
        if self.forest_.n_features_in_ != len(self.selected_) or self.selected_.max() >= self.features_.n_features:
            raise ValueError("forest does not match the vocabulary")


def _top_chi2_features(X: Any, Y: np.ndarray, k: int | None) -> np.ndarray:
    """Indices (sorted) of the ``k`` features with the highest chi-squared score against any one label."""
    from sklearn.feature_selection import chi2

    if k is None or k >= X.shape[1]:
        return np.arange(X.shape[1])
    columns = [Y[:, j] for j in range(Y.shape[1]) if Y[:, j].min() != Y[:, j].max()]
    scores = np.max([np.nan_to_num(chi2(X, y)[0]) for y in columns], axis=0) if columns else np.zeros(X.shape[1])
    return np.sort(np.argsort(-scores, kind="stable")[:k])


# --- random forests as plain arrays ---------------------------------------------------------------------------
# scikit-learn offers no public way to save a fitted tree except pickle. The node table below is what its own
# pickling stores (``Tree.__getstate__``); we keep it in npz and rebuild the trees the same way skops does.
_NODE_FIELDS = ("left_child", "right_child", "feature", "threshold", "missing_go_to_left")


def _forest_meta(forest: RandomForestClassifier) -> dict[str, Any]:
    classes = forest.classes_ if isinstance(forest.classes_, list) else [forest.classes_]
    return {
        "forest": {
            "n_features": int(forest.n_features_in_),
            "n_outputs": int(forest.n_outputs_),
            "classes": [np.asarray(c).astype(int).tolist() for c in classes],
            "max_depths": [int(e.tree_.max_depth) for e in forest.estimators_],
            "node_counts": [int(e.tree_.node_count) for e in forest.estimators_],
        }
    }


def _forest_arrays(forest: RandomForestClassifier) -> dict[str, np.ndarray]:
    states = [e.tree_.__getstate__() for e in forest.estimators_]
    arrays = {f"forest.{f}": np.concatenate([s["nodes"][f] for s in states]) for f in _NODE_FIELDS}
    arrays["forest.values"] = np.concatenate([s["values"] for s in states])
    return arrays


def _rebuild_forest(forest: RandomForestClassifier, state: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> Any:
    from sklearn.tree import DecisionTreeClassifier
    from sklearn.tree._tree import NODE_DTYPE, Tree

    meta = state["forest"]
    classes = [np.asarray(c) for c in meta["classes"]]
    n_classes = np.array([len(c) for c in classes], dtype=np.intp)
    estimators, start = [], 0
    for depth, count in zip(meta["max_depths"], meta["node_counts"], strict=True):
        nodes = np.zeros(count, dtype=NODE_DTYPE)
        for field in _NODE_FIELDS:
            nodes[field] = arrays[f"forest.{field}"][start : start + count]
        tree = Tree(meta["n_features"], n_classes, meta["n_outputs"])
        values = arrays["forest.values"][start : start + count].astype(np.float64)
        tree.__setstate__({"max_depth": depth, "node_count": count, "nodes": nodes, "values": values})
        estimator = DecisionTreeClassifier()
        estimator.tree_ = tree
        estimator.n_outputs_ = meta["n_outputs"]
        estimator.n_features_in_ = meta["n_features"]
        estimator.classes_ = classes if meta["n_outputs"] > 1 else classes[0]
        estimator.n_classes_ = n_classes.tolist() if meta["n_outputs"] > 1 else int(n_classes[0])
        estimators.append(estimator)
        start += count
    forest.estimators_ = estimators
    forest.n_outputs_ = meta["n_outputs"]
    forest.n_features_in_ = meta["n_features"]
    forest.classes_ = classes if meta["n_outputs"] > 1 else classes[0]
    forest.n_classes_ = n_classes.tolist() if meta["n_outputs"] > 1 else int(n_classes[0])
    return forest
