"""Scores for open-ended affective-state prediction (MASIVE section 4.2.1, footnote 7, App. E).

* **Top-k accuracy**, sample level: a mask is a hit when its gold term is among the first k predictions for it;
  a text scores the share of its masks that are hits, and the dataset scores the mean over texts (footnote 7:
  "we calculate top-k accuracy at the sample level ... and report average sample-level scores"). Terms are compared
  lowercased and trimmed; in Spanish a prediction of the other grammatical gender is wrong (``enojado`` for
  ``enojada``), as in the paper; ``gender_strict=False`` gives the lenient figure beside it.
* **Top-k similarity** (App. E): ``sim_k(P, g) = max_{i<=k} cos(E(p_i), E(g))``, where ``E`` embeds a term inside
  up to 100 tokens of its post and returns the contextual embedding of its first sub-word
  (:mod:`affectlab.openstates.contextual`); averaged like accuracy.
* **Breakdowns**: seen/unseen texts, and masks by negation and by Spanish gender (masc, fem, single).

The paper leaves open how several masks of one text are averaged: the mean over masks is our reading (it
reproduces Table 4 from Table 6 as post-weighted averages).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from affectlab.errors import InputError

KS = (1, 3, 5)
Ranked = Sequence[Sequence[str]]
"""Per mask, the predicted terms, most likely first."""


class TermEmbedder(Protocol):
    """Embeds a term in its context: ``embed([(left, term, right), ...])`` -> one row per item."""

    name: str

    def embed(self, items: Sequence[tuple[str, str, str]]) -> np.ndarray: ...


def normalise(term: str) -> str:
    """Lowercase, NFC, without surrounding spaces and punctuation."""
    return unicodedata.normalize("NFC", term).strip().strip(".,;:!?¡¿\"'“”‘’()[]").strip().lower()


def _gender_free(term: str) -> str:
    from affectlab.openstates.collect.dataset import state_family

    return state_family(term, "es")


def mask_hit(predicted: Sequence[str], gold: str, k: int, lang: str = "en", gender_strict: bool = True) -> bool:
    """Whether ``gold`` is among the first ``k`` predicted terms."""
    key = _gender_free if lang == "es" and not gender_strict else (lambda term: term)
    target = key(normalise(gold))
    return any(key(normalise(term)) == target for term in predicted[:k])


def sample_accuracy(predicted: Ranked, gold: Sequence[str], k: int, lang: str = "en", strict: bool = True) -> float:
    """The share of a text's masks whose gold term is in its top ``k``."""
    _check_lengths(predicted, gold)
    return float(np.mean([mask_hit(p, g, k, lang, strict) for p, g in zip(predicted, gold, strict=True)]))


def _check_lengths(predicted: Ranked, gold: Sequence[str]) -> None:
    if not gold:
        raise InputError("a text without masks cannot be scored")
    if len(predicted) != len(gold):
        raise InputError(f"{len(predicted)} predicted masks for {len(gold)} gold masks")


def context_items(masked: str, terms: Sequence[str], index: int, candidate: str) -> tuple[str, str, str]:
    """``(left, candidate, right)``: the masked text with mask ``index`` replaced by ``candidate`` and the other
    masks by their gold terms."""
    from affectlab.openstates.collect.masking import sentinel

    left, found, right = masked.partition(sentinel(index))
    if not found:
        raise InputError(f"the text has no {sentinel(index)}")

    def fill(text: str) -> str:
        for i, term in enumerate(terms):
            text = text.replace(sentinel(i), term)
        return text

    return fill(left), candidate, fill(right)


def sample_similarities(
    masked: str, predicted: Ranked, gold: Sequence[str], embedder: TermEmbedder, ks: Sequence[int] = KS
) -> dict[int, float]:
    """Per k, the mean over the text's masks of the best cosine between the gold term and the top-k terms."""
    _check_lengths(predicted, gold)
    per_mask: dict[int, list[float]] = {k: [] for k in ks}
    for index, (candidates, term) in enumerate(zip(predicted, gold, strict=True)):
        top = list(candidates[: max(ks)])
        if not top:
            for k in ks:
                per_mask[k].append(0.0)
            continue
        vectors = embedder.embed([context_items(masked, gold, index, t) for t in [term, *top]])
        vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        cosines = vectors[1:] @ vectors[0]
        for k in ks:
            per_mask[k].append(float(cosines[:k].max()))
    return {k: float(np.mean(values)) for k, values in per_mask.items()}


def score_open_states(
    records: Sequence[dict[str, Any]],
    predictions: Sequence[Ranked],
    embedder: TermEmbedder | None = None,
    ks: Sequence[int] = KS,
) -> dict[str, Any]:
    """Top-k accuracy (and similarity with an ``embedder``) over ``records`` (from the collector: ``masked``,
    ``terms``, ``lang``, ``unseen``, ``negated``, ``gender``), with the breakdowns of the module docstring."""
    if len(records) != len(predictions):
        raise InputError(f"{len(predictions)} predictions for {len(records)} texts")
    if not records:
        raise InputError("no texts to score")
    rows = []
    for record, predicted in zip(records, predictions, strict=True):
        lang, gold = record.get("lang", "en"), list(record["terms"])
        row = {f"acc@{k}": sample_accuracy(predicted, gold, k, lang) for k in ks}
        if lang == "es":
            row.update({f"acc_lenient@{k}": sample_accuracy(predicted, gold, k, lang, False) for k in ks})
        if embedder is not None:
            sims = sample_similarities(record["masked"], predicted, gold, embedder, ks)
            row.update({f"sim@{k}": value for k, value in sims.items()})
        rows.append(row)
    report: dict[str, Any] = {"n": len(records), **_means(rows)}
    if embedder is not None:
        report["similarity_model"] = embedder.name
    groups = {"seen": [not r.get("unseen", False) for r in records], "unseen": [bool(r.get("unseen")) for r in records]}
    report["by_subset"] = {
        name: {"n": int(sum(mask)), **_means([row for row, keep in zip(rows, mask, strict=True) if keep])}
        for name, mask in groups.items()
        if any(mask)
    }
    report["by_mask"] = _mask_breakdown(records, predictions, ks)
    return report


def _means(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    """Per key, the mean over the rows that have it (the lenient Spanish scores exist for Spanish texts only)."""
    keys = dict.fromkeys(key for row in rows for key in row)
    return {key: round(float(np.mean([row[key] for row in rows if key in row])), 4) for key in keys}


def _mask_breakdown(records: Sequence[dict[str, Any]], predictions: Sequence[Ranked], ks: Sequence[int]) -> dict:
    """Mask-level top-k accuracy by negation and by Spanish gender."""
    groups: dict[str, list[dict[str, float]]] = {}
    for record, predicted in zip(records, predictions, strict=True):
        lang = record.get("lang", "en")
        negated = record.get("negated") or [False] * len(record["terms"])
        genders = record.get("gender") or [None] * len(record["terms"])
        for i, term in enumerate(record["terms"]):
            hits = {f"acc@{k}": float(mask_hit(predicted[i], term, k, lang)) for k in ks}
            groups.setdefault("negated" if negated[i] else "not_negated", []).append(hits)
            if genders[i]:
                groups.setdefault(f"gender_{genders[i]}", []).append(hits)
    return {name: {"masks": len(rows), **_means(rows)} for name, rows in sorted(groups.items())}
