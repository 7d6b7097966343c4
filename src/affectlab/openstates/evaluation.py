"""Evaluating open-state predictors: on masked records (MASIVE section 4.2.1) and on fixed label sets (section
4.2.2: append "I feel <extra_id_0>", rank the adjective forms of the labels by the model's likelihood, take the
most likely as the prediction; macro precision/recall/F1, plus generative top-k accuracy against the labels' words).

For multi-label gold (GoEmotions), a text's one predicted label is scored against its label set (macro over
labels, as multi-label P/R/F1), and a generative top-k hit is any of its labels' words among the top k: the paper
does not say how it handled several gold labels here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from affectlab.encoders.sentence import embedding_cache
from affectlab.errors import InputError
from affectlab.metrics.classification import classification_scores
from affectlab.openstates.collect.seeds import EKMAN_WORDS, GOEMOTIONS_WORDS
from affectlab.openstates.metrics import KS, TermEmbedder, mask_hit, score_open_states
from affectlab.openstates.predictors.base import StatePredictor, prepare, terms_only

LABEL_WORDS: dict[str, tuple[str, dict[str, str]]] = {
    "goemotions": ("en", GOEMOTIONS_WORDS),
    "goemotions-ekman": ("en", EKMAN_WORDS["en"]),
    "semeval2025-eng": ("en", EKMAN_WORDS["en"]),
    "semeval2025-esp": ("es", EKMAN_WORDS["es"]),
}
"""Datasets with a fixed-label evaluation: their language and each label's word (App. C; Spanish "nada" is ours)."""


def evaluate_open(
    predictor: StatePredictor,
    records: Sequence[dict[str, Any]],
    k: int = max(KS),
    embedder: TermEmbedder | None = None,
) -> dict[str, Any]:
    """Predict the masks of ``records`` and score them; the report also carries the predictions' count, the
    seconds taken and, for an LLM, its invalid-answer rate."""
    if not records:
        raise InputError("no records to evaluate")
    started = time.perf_counter()
    masked = [r["masked"] for r in records]
    predictions = predictor.predict(masked, [r.get("lang", "en") for r in records], k=k)
    report = score_open_states(records, terms_only(predictions), embedder, ks=[x for x in KS if x <= k])
    if getattr(predictor, "n_", 0):
        report["invalid_rate"] = round(predictor.invalid_rate, 4)  # type: ignore[attr-defined]
    report["seconds"] = round(time.perf_counter() - started, 2)
    return {"report": report, "predictions": predictions}


RANKING_BATCH = 256
"""Texts ranked at a time by :func:`fixed_label_eval`, which reports its progress after each batch."""


def fixed_label_eval(
    predictor: Any,
    dataset: str,
    rows: Any,
    k: int = max(KS),
    space: Any = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Section 4.2.2 on ``rows`` (a dataset split with ``text`` and ``labels``) of ``dataset``; ``progress`` is
    called with (texts done, texts) after each :data:`RANKING_BATCH` texts. The texts go through the embedding
    cache (they are a dataset's), so the generative ranking reads the vectors the label ranking made."""
    if dataset not in LABEL_WORDS:
        raise InputError(f"no label words for {dataset!r} (fixed-label evaluation: {', '.join(LABEL_WORDS)})")
    if not hasattr(predictor, "score_terms"):
        raise InputError(f"the {predictor.kind} predictor cannot rank a fixed label set by likelihood")
    lang, words = LABEL_WORDS[dataset]
    labels = list(space.labels)
    started = time.perf_counter()
    texts = [prepare(text, lang) for text in rows["text"]]
    if not texts:
        raise InputError(f"no {dataset} rows to evaluate")
    scores, generated = [], []
    with embedding_cache():
        for start in range(0, len(texts), RANKING_BATCH):
            batch = texts[start : start + RANKING_BATCH]
            scores.append(predictor.score_terms(batch, [lang] * len(batch), [words[label] for label in labels]))
            generated += terms_only(predictor.predict(batch, [lang] * len(batch), k=k))
            if progress is not None:
                progress(start + len(batch), len(texts))
    y_true = space.encode(rows["labels"])
    y_pred = np.zeros_like(y_true)
    y_pred[np.arange(len(texts)), np.vstack(scores).argmax(axis=1)] = 1
    metrics = classification_scores(y_true, y_pred, space)
    accuracy = {
        f"acc@{x}": round(
            float(np.mean([
                any(mask_hit(g[0], words[label], x, lang) for label in gold)
                for g, gold in zip(generated, rows["labels"], strict=True)
            ])),
            4,
        )
        for x in KS
        if x <= k
    }  # fmt: skip
    return {
        "dataset": dataset,
        "n": len(texts),
        "macro_precision": round(metrics["macro_precision"], 4),
        "macro_recall": round(metrics["macro_recall"], 4),
        "macro_f1": round(metrics["macro_f1"], 4),
        **accuracy,
        "per_label_f1": {label: round(v["f1"], 4) for label, v in metrics["per_label"].items()},
        "seconds": round(time.perf_counter() - started, 2),
    }
