"""Multiple-choice evaluation of a language model on Eval-UA-tion tasks (section 4.1 of Eval-UA-tion 1.0).

A scorer turns a prompt and the answer targets of its options into a :class:`Prediction`; two scorers exist, by
log-likelihood of each target with a local Hugging Face model (:mod:`affectlab.uatasks.lm_scoring`) and by exact
match of a generated answer from an OpenAI-compatible server (:mod:`affectlab.uatasks.openai_compat`).
:func:`evaluate_mc` builds the 3-shot prompts, asks the scorer and reports accuracy with a bootstrap interval.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from affectlab.errors import InputError
from affectlab.metrics.bootstrap import Resampling, percentile_interval
from affectlab.uatasks.instances import MCInstance
from affectlab.uatasks.prompts import answer_targets, format_prompt, sample_shots
from affectlab.versions import library_versions as installed_versions

LIBRARIES = ("affectlab", "numpy", "torch", "transformers", "openai")
SHOTS_FROM_POOL = "few-shot split"
SHOTS_LEAVE_ONE_OUT = "evaluated instances, leaving the current one out"


@dataclass(frozen=True)
class Prediction:
    """A scorer's answer to one question: the chosen option (``-1`` when a generated reply matched none), the
    per-option scores where the scorer has them (log-likelihoods), and the raw reply where it generates one."""

    index: int
    scores: tuple[float, ...] | None = None
    reply: str | None = None


class MCScorer(Protocol):
    """Anything that answers a multiple-choice prompt; ``name`` identifies the model in the results record."""

    name: str

    def score(self, prompt: str, targets: Sequence[str]) -> Prediction:
        """Choose among ``targets`` (what the model must produce for each option) given ``prompt``."""
        ...


Progress = Callable[[int, int], None]
"""Called with (instances done, instances in all) after each instance."""


def evaluate_mc(
    instances: Sequence[MCInstance],
    scorer: MCScorer,
    shots_pool: Sequence[MCInstance] | None,
    k_shots: int = 3,
    seed: int = 0,
    limit: int | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Accuracy of ``scorer`` on ``instances`` (the first ``limit`` of them), each asked with ``k_shots`` shots.

    Shots come from ``shots_pool`` (the few-shot split); where it is empty or ``None`` they come from all
    ``instances`` leaving the current one out, and the record says so. Returns ``accuracy``, ``n``, ``ci95`` (a
    percentile bootstrap over instances), ``predictions`` (one dict per instance) and ``record`` (task, model,
    k_shots, seed, n, accuracy, ci95, seconds, shots_source, versions, machine).
    """
    started = time.perf_counter()
    task = _single_task(instances)
    evaluated = list(instances if limit is None else instances[:limit])
    pool = list(shots_pool) if shots_pool else list(instances)
    source = SHOTS_FROM_POOL if shots_pool else SHOTS_LEAVE_ONE_OUT
    predictions = []
    for done, instance in enumerate(evaluated, start=1):
        predictions.append(_predict_one(instance, scorer, sample_shots(instance, pool, k_shots, seed)))
        if progress is not None:
            progress(done, len(evaluated))
    correct = np.array([row["correct"] for row in predictions], dtype=bool)
    accuracy = float(correct.mean()) if len(correct) else float("nan")
    ci95 = bootstrap_accuracy_ci(correct, seed=seed)
    record = {
        "task": task,
        "model": scorer.name,
        "k_shots": k_shots,
        "seed": seed,
        "n": len(evaluated),
        "accuracy": accuracy,
        "ci95": list(ci95),
        "seconds": round(time.perf_counter() - started, 3),
        "shots_source": source,
        "versions": library_versions(),
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
    }
    return {"accuracy": accuracy, "n": len(evaluated), "ci95": list(ci95), "predictions": predictions, "record": record}


def _single_task(instances: Sequence[MCInstance]) -> str:
    tasks = sorted({instance.task for instance in instances})
    if len(tasks) != 1:
        found = ", ".join(tasks) if tasks else "none"
        raise InputError(f"evaluate one task at a time; the instances belong to: {found}")
    return tasks[0]


def _predict_one(instance: MCInstance, scorer: MCScorer, shots: Sequence[MCInstance]) -> dict[str, Any]:
    targets = answer_targets(instance)
    prediction = scorer.score(format_prompt(instance, shots), targets)
    return {
        "id": instance.id,
        "answer": instance.answer,
        "predicted": prediction.index,
        "correct": prediction.index == instance.answer,
        "target": targets[instance.answer],
        "scores": None if prediction.scores is None else list(prediction.scores),
        "reply": prediction.reply,
        "shots": [shot.id for shot in shots],
    }


def bootstrap_accuracy_ci(
    correct: np.ndarray, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """The ``confidence`` percentile interval of accuracy over ``n_resamples`` resamples of the instances.

    Resamples are drawn as counts per instance by :func:`affectlab.metrics.bootstrap.percentile_interval`.
    """
    correct = np.asarray(correct, dtype=np.float64)
    n = len(correct)
    return percentile_interval(lambda weights: weights @ correct / n, n, Resampling(n_resamples, confidence, seed))


def library_versions() -> dict[str, str]:
    """Installed versions of the libraries a multiple-choice result depends on."""
    return installed_versions(LIBRARIES)
