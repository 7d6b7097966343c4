"""Train a detector on a dataset's train split and tune its decision (thresholds or prior shift) on dev."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from sklearn.model_selection import KFold

from affectlab.datasets import DatasetSpec
from affectlab.detectors import Detector, as_inputs
from affectlab.detectors.ensemble import EnsembleDetector, combine, tune_ensemble_weights
from affectlab.detectors.identify import read_languages
from affectlab.encoders.sentence import embedding_cache
from affectlab.errors import InputError
from affectlab.io.progress import Progress, quiet
from affectlab.labels import LabelSpace
from affectlab.metrics.thresholds import fit_decision

CV_THRESHOLD_MAX_TRAIN = 20_000
"""Below this many training texts, per-label thresholds are tuned on dev plus 5-fold out-of-fold predictions on
train. EmoBench-UA's dev set has 249 texts (about 10 per rarer emotion): thresholds tuned on it alone moved test
macro-F1 by up to 0.05 between near-identical settings; with the out-of-fold rows added they vary by about 0.01."""
CV_FOLDS = 5


def label_metric(spec: DatasetSpec) -> str:
    """The metric a decision is tuned for and labels are scored by: the dataset's primary metric, or, for
    intensity data (SemEval-2025 track B, ranked by Pearson's r), track A's macro-F1 over the emotions of the same
    rows."""
    return "macro_f1_emotions" if spec.rates_intensity else spec.primary_metric


def train_detector(
    model: Detector,
    spec: DatasetSpec,
    data: Any,
    tune: bool = True,
    progress: Progress = quiet,
    cv_thresholds: bool | None = None,
) -> dict[str, Any]:
    """Fit ``model`` on ``data["train"]`` and tune its decision on ``data["dev"]`` (when there is one) for the
    dataset's primary metric. Returns a summary: sizes, seconds and the tuned decision. Dataset texts go through
    the embedding cache, so training again or evaluating later does not embed them again. ``cv_thresholds``
    forces (True) or forbids (False) adding out-of-fold train predictions to the threshold tuning; by default they
    are added when train has at most ``CV_THRESHOLD_MAX_TRAIN`` texts."""
    with embedding_cache():
        return _train(model, spec, data, tune, progress, cv_thresholds)


def _train(
    model: Detector, spec: DatasetSpec, data: Any, tune: bool, progress: Progress, cv_thresholds: bool | None
) -> dict[str, Any]:
    tune = tune and model.capabilities.tunes_decision
    if "train" in data:
        train = data["train"]
    elif not tune:  # a prompted LLM learns nothing from train and tunes nothing on dev: a test set is enough
        train = data[next(iter(data))].select([])
    else:
        raise InputError(
            f"dataset {spec.name!r} has no train split to train on (splits: {', '.join(data)}); "
            "give a file a --split-col, or a directory of train/dev/test files"
        )
    space = spec.label_space
    started = time.perf_counter()
    progress(f"training {model.name} on {spec.name} ({len(train)} texts)")
    y_train = space.encode_split(train)
    dev = data.get("dev")
    model.fit(train, y_train, space, **_fit_options(model, dev, space, progress))
    probs = y_dev = groups = None
    if dev is not None and tune:
        progress(f"tuning the decision on dev ({len(dev)} texts)")
        y_dev = space.encode_split(dev)
        probs = _dev_probabilities(model, dev, y_dev, spec)
        groups = _languages(dev)
        use_cv = _use_cv_thresholds(model, len(train)) if cv_thresholds is None else cv_thresholds
        if model.rule() == "thresholds" and use_cv:
            progress(f"adding {CV_FOLDS}-fold out-of-fold predictions on train for the thresholds")
            probs = np.vstack([probs, out_of_fold_proba(model, train, y_train)])
            y_dev = np.vstack([y_dev, y_train])
            groups = groups + _languages(train)
    decision = fit_decision(
        model.rule(),
        probs,
        y_dev,
        space,
        label_metric(spec),
        train_prior=label_prior(y_train) if len(y_train) else None,
        tune=tune,
        groups=groups if len(set(groups or [])) > 1 else None,
    )
    model.set_decision(decision)
    return {
        "dataset": spec.name,
        "n_train": len(train),
        "n_dev": 0 if dev is None else len(dev),
        "n_tuning": 0 if y_dev is None else len(y_dev),
        "seconds": round(time.perf_counter() - started, 3),
        "decision": decision.to_dict(),
    }


def label_prior(y: np.ndarray) -> np.ndarray:
    """Each label's rate among the rows that annotate it (cells of :data:`~affectlab.labels.UNKNOWN` left out)."""
    return (y == 1).sum(axis=0) / np.maximum((y >= 0).sum(axis=0), 1)


def _fit_options(model: Detector, dev: Any, space: LabelSpace, progress: Progress) -> dict[str, Any]:
    """Keywords for ``fit`` beyond the protocol: a detector whose capabilities say ``accepts_validation`` (the
    ``hf`` encoder, which stops early on dev) gets the dev split and a progress callback fed with its per-step
    reports."""
    if not model.capabilities.accepts_validation:
        return {}
    validation = None if dev is None else (dev, space.encode(dev["labels"]))
    return {"validation": validation, "progress": lambda report: progress(str(report))}


def _use_cv_thresholds(model: Detector, n_train: int) -> bool:
    """Out-of-fold rows for small training sets, unless refitting the model five times is costly (a detector
    whose capabilities say ``cheap_to_refit=False``, such as a fine-tuned encoder)."""
    return n_train <= CV_THRESHOLD_MAX_TRAIN and model.capabilities.cheap_to_refit


def _dev_probabilities(model: Detector, dev: Any, y_dev: np.ndarray, spec: DatasetSpec) -> np.ndarray:
    """Dev probabilities; an ensemble first gets its member weights tuned on dev (kept in its parameters, so that
    copies of it, such as the out-of-fold models, share them)."""
    if not isinstance(model, EnsembleDetector):
        return model.predict_proba(dev)
    probas = model.member_probas(dev)
    weights = tune_ensemble_weights(probas, y_dev, spec.label_space, label_metric(spec), model.rule())
    model.set_weights(weights)
    return combine(probas, weights)


def out_of_fold_proba(model: Detector, train: Any, y_train: np.ndarray, folds: int = CV_FOLDS) -> np.ndarray:
    """Probabilities for every training text from a copy of ``model`` fitted on the other folds."""
    probs = np.zeros(y_train.shape)
    splitter = KFold(n_splits=folds, shuffle=True, random_state=0)
    for fit_rows, held_out in splitter.split(np.arange(len(train))):
        fold_model = model.unfitted_copy().fit(train.select(fit_rows), y_train[fit_rows], model.label_space)
        probs[held_out] = fold_model.predict_proba(train.select(held_out))
    return probs


def _languages(split: Any) -> list[str]:
    """The language of each text of ``split``: its ``lang`` column's tag where it has one, else identified."""
    inputs = as_inputs(split)
    return read_languages(inputs.texts, inputs.langs)
