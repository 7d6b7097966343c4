"""Right in kind (issue 43): how well a candidate state agrees with what its masked context says about affect, so
that a state the predictor never saw still lands in the family and polarity the text calls for.

* **The context's affect**: the default emotion detector's six Ekman scores and its ``none`` score
  (:func:`context_affect`), read on the mask's window with the mask left out: the project's best reader of affect,
  where a sentence vector alone named sadness for good news (issue 43).
* **A state's affect** (:class:`WordAffect`): a logistic regression from the state's own vector ("I feel X.", the
  one the map already embeds, so a user's state costs nothing more) onto the six emotions. It learns from the
  feeling words of the recipe's CARER posts, each post's label the family of the word its author named (love read
  as joy; :func:`word_affect_examples`), and from the paper's label words (Table 10, and App. C.1's through
  GoEmotions' Ekman grouping), the only source of disgust.
* **Agreement** (:func:`agreement`): ``log(sum_f q_f p_f(state) + q_none / 6)``, ``q`` the context's seven scores
  normalised, so a context that says no emotion leaves the ranking as it was. The open predictor adds it with the
  weight its blend was chosen with on dev (:mod:`~affectlab.openstates.predictors.open_training`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from affectlab.openstates.predictors.embedded import PLACEHOLDER

EMOTIONS = ("anger", "disgust", "fear", "joy", "sadness", "surprise")
"""The families a state's affect is read in: Ekman's six, as the default detector reads contexts."""
CARER_FAMILIES = {"sadness": "sadness", "joy": "joy", "love": "joy", "anger": "anger", "fear": "fear",
                  "surprise": "surprise"}  # fmt: skip
"""CARER's six labels as Ekman families (love is a positive feeling: joy's family)."""
WORD_C = 1.0
"""The regression's inverse L2 strength (scikit-learn's default)."""
SEED_WEIGHT = 3.0
"""The weight of each of the paper's label words, against at most sqrt(5) for a CARER word."""


@dataclass
class WordAffect:
    """A state's six-emotion profile from its unit vector: softmax of ``vectors @ weights.T + bias``."""

    weights: np.ndarray
    bias: np.ndarray

    @classmethod
    def fit(cls, vectors: np.ndarray, families: Sequence[str], weights: np.ndarray) -> WordAffect:
        """A multinomial logistic regression over :data:`EMOTIONS` (every one must occur in ``families``)."""
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(C=WORD_C, max_iter=3000).fit(vectors, list(families), sample_weight=weights)
        if tuple(model.classes_) != EMOTIONS:
            raise ValueError(f"the word affect needs examples of {', '.join(EMOTIONS)}; got {list(model.classes_)}")
        return cls(model.coef_.astype(np.float32), model.intercept_.astype(np.float32))

    def profiles(self, vectors: np.ndarray) -> np.ndarray:
        """``(n, 6)`` probabilities of :data:`EMOTIONS` for each state vector."""
        logits = vectors @ self.weights.T + self.bias
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        return shifted / shifted.sum(axis=1, keepdims=True)

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        """The arrays to save, under ``prefix``."""
        return {f"{prefix}/weights": self.weights, f"{prefix}/bias": self.bias}

    @classmethod
    def from_arrays(cls, arrays: Any, prefix: str) -> WordAffect:
        """The reader saved by :meth:`arrays` (``ValueError`` when the shapes are not six emotions')."""
        reader = cls(arrays[f"{prefix}/weights"].astype(np.float32), arrays[f"{prefix}/bias"].astype(np.float32))
        if reader.weights.shape[0] != len(EMOTIONS) or reader.bias.shape != (len(EMOTIONS),):
            raise ValueError(f"{prefix}: the word affect's arrays are not six emotions'")
        return reader


def word_affect_examples(
    states: Sequence[tuple[str, str]], families: Sequence[str | None], seeds: Mapping[str, Sequence[tuple[str, str]]]
) -> tuple[list[tuple[str, str]], list[str], np.ndarray]:
    """``([(lang, state)], families, weights)``: each ``(lang, state)`` named in posts with a family, one row per
    family it was named with (weighted by its share times sqrt(number of posts, at most 5)), then every
    ``seeds[lang]`` ``(family, word)`` at :data:`SEED_WEIGHT`. ``families`` line up with ``states`` (None: a post
    whose source gives no family)."""
    counts: dict[tuple[str, str], Counter[str]] = {}
    for state, family in zip(states, families, strict=True):
        if family is not None:
            counts.setdefault(state, Counter())[family] += 1
    words, labels, weights = [], [], []
    for state, found in sorted(counts.items()):
        total = sum(found.values())
        for family, n in sorted(found.items()):
            words.append(state)
            labels.append(family)
            weights.append(n / total * min(total, 5) ** 0.5)
    for lang, pairs in seeds.items():
        for family, word in pairs:
            words.append((lang, word))
            labels.append(family)
            weights.append(SEED_WEIGHT)
    return words, labels, np.array(weights)


def situation(context: str, lang: str) -> str:
    """What the detector reads of a mask's context: the context without its masks, and without the feeling phrase
    right before each (the collector's templates, an intensifier, and the conjunction before them: "... and I feel
    so ___" and "... y me siento ___" end at "..."), which alone read as sadness to the detector in Spanish ("Ganamos
    el partido en el último minuto" joy 0.63; with "y me siento" after it, sadness 0.61)."""
    return " ".join(_frame(lang).sub(" ", context).replace(PLACEHOLDER, " ").split())


@cache
def _frame(lang: str) -> re.Pattern[str]:
    from affectlab.openstates.collect.bootstrap import INTENSIFIERS
    from affectlab.openstates.collect.seeds import TEMPLATES

    templates = TEMPLATES.get(lang, ())
    phrases = sorted({" ".join(t.prefix) for t in templates}, key=len, reverse=True)
    prefix = "|".join(re.escape(p).replace(r"\ ", r"\s+").replace("'", "['’]?") for p in phrases) or "(?!)"
    intensifier = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in INTENSIFIERS.get(lang, ()))
    conjunctions = "|".join(re.escape(c) for c in sorted({t.conjunction for t in templates}))
    return re.compile(
        rf"(?:[,;]?\s*\b(?:{conjunctions})\s+|[,;]\s*)?\b(?:{prefix})(?:\s+(?:{intensifier}))?\s+{re.escape(PLACEHOLDER)}",
        re.IGNORECASE,
    )


def context_affect(contexts: Sequence[str], langs: Sequence[str]) -> np.ndarray:
    """``(n, 7)`` scores of :data:`EMOTIONS` and ``none`` by the default detector (Ekman), each context read as its
    :func:`situation` in its language; a context with nothing else reads as ``none``. The scores come from the
    scoring door (``detector.score``: decision scores, unrounded), not from ``detect``'s display of them (issue 52)."""
    from affectlab.detectors.batch import Inputs, prepare_batch
    from affectlab.detectors.resolve import default_head

    detector = default_head("ekman")
    columns = [detector.label_space.labels.index(label) for label in (*EMOTIONS, "none")]
    texts = [situation(context, lang) for context, lang in zip(contexts, langs, strict=True)]
    scores = np.zeros((len(texts), len(EMOTIONS) + 1), dtype=np.float32)
    scores[:, -1] = 1.0
    rows = [i for i, text in enumerate(texts) if text]
    if rows:
        inputs = Inputs([texts[i] for i in rows], [[] for _ in rows], [langs[i] for i in rows])
        scores[rows] = detector.score(prepare_batch(detector, inputs)).scores[:, columns]
    return scores


def agreement(context_scores: np.ndarray, profiles: np.ndarray) -> np.ndarray:
    """``(n_contexts, n_states)``: ``log(q[:6] . profile + q_none / 6)`` with ``q`` the context's scores
    normalised."""
    q = context_scores / np.maximum(context_scores.sum(axis=1, keepdims=True), 1e-9)
    return np.log(q[:, : len(EMOTIONS)] @ profiles.T + q[:, -1:] / len(EMOTIONS) + 1e-6)


def label_words() -> dict[str, list[tuple[str, str]]]:
    """The paper's label words with their Ekman family: Table 10's (English and Spanish) and App. C.1's GoEmotions
    words through GoEmotions' Ekman grouping (``nothing`` left out)."""
    from affectlab.labels import GOEMOTIONS_TO_EKMAN
    from affectlab.openstates.collect.seeds import EKMAN_WORDS, GOEMOTIONS_WORDS

    words = {lang: [(family, word) for family, word in of_lang.items() if family in EMOTIONS]
             for lang, of_lang in EKMAN_WORDS.items()}  # fmt: skip
    for label, word in GOEMOTIONS_WORDS.items():
        if GOEMOTIONS_TO_EKMAN[label] in EMOTIONS and (GOEMOTIONS_TO_EKMAN[label], word) not in words["en"]:
            words["en"].append((GOEMOTIONS_TO_EKMAN[label], word))
    return words
