"""The dev score of the encoder being fine-tuned, after each epoch: per dataset its primary metric after a decision
tuned on the same rows, and the ``intensity`` head's Pearson's r."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from affectlab.build.sources import GOEMOTIONS_EKMAN, INTENSITY
from affectlab.datasets import DATASETS
from affectlab.labels import TAXONOMY_RECORDS
from affectlab.metrics.classification import primary_score
from affectlab.metrics.intensity import pearson_intensity
from affectlab.metrics.thresholds import fit_decision


@dataclass
class DevSet:
    """A dataset's dev rows: token ids, their context's, and the gold matrix per head."""

    dataset: str
    encoded: Any
    context: Any
    gold: dict[str, np.ndarray]
    langs: list[str]


def score_dev(model: Any, dev_sets: list[DevSet], pad_id: int) -> dict[str, float]:
    """Per dataset, its primary metric on its dev rows after a decision tuned on those rows (so an epoch is judged
    by the labels it would give once the build tunes its thresholds), and the track B score (Pearson's r) of the
    ``intensity`` head as ``<dataset>-intensity``. Rows a head has no gold for are left out of its score."""
    from affectlab.encoders import multitask

    scores = {}
    for dev in dev_sets:
        text = multitask.pooled_vectors(model, dev.encoded, 64, pad_id)
        context = multitask.pooled_vectors(model, dev.context, 64, pad_id) if dev.context is not None else None
        for task, gold in dev.gold.items():
            rows = ~np.isnan(gold).all(axis=1)
            logits = multitask.head_logits(model, task, text[rows], context[rows] if context is not None else None)
            gold = gold[rows]
            if task == INTENSITY:
                columns = ~np.isnan(gold).all(axis=0)
                scores[f"{dev.dataset}-{INTENSITY}"] = round(pearson_intensity(gold[:, columns], logits[:, columns]), 4)
                continue
            key = dev.dataset if task != "ekman" or dev.dataset != "goemotions" else GOEMOTIONS_EKMAN
            scores[key] = round(_classification_score(task, key, gold, logits), 4)
    return scores


def _classification_score(task: str, dataset: str, gold: np.ndarray, logits: np.ndarray) -> float:
    """The dataset's primary metric over the labels it annotates, after a decision tuned on the same rows."""
    space = TAXONOMY_RECORDS.get(task).space
    metric = DATASETS.get(dataset).primary_metric if dataset in DATASETS else TAXONOMY_RECORDS.get(task).primary_metric
    probs = _probabilities(logits, space.multi_label)
    columns = ~np.isnan(gold).any(axis=0)
    sub = space.subset(space.name, [label for label, keep in zip(space.labels, columns, strict=True) if keep])
    y, p = gold[:, columns].astype(np.int8), probs[:, columns]
    decision = fit_decision("thresholds" if space.multi_label else "argmax", p, y, sub, metric)
    return primary_score(metric, y, decision.apply(p, sub), sub)


def _probabilities(logits: np.ndarray, multi_label: bool) -> np.ndarray:
    from scipy.special import expit, softmax

    return expit(logits) if multi_label else softmax(logits, axis=1)
