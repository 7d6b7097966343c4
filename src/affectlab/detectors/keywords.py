"""Keyword detector (EmoBench-UA section 5.1): the top-20 lemmatised keywords of each label, taken from the training
texts; a text gets the label whose keywords it hits most often.

The paper lemmatises with spaCy and does not say how keywords are ranked. Here lemmas come from simplemma (one
light lemmatiser for Ukrainian, English and Spanish), and a lemma's keyness for a label is the weighted log-odds
ratio with an informative Dirichlet prior (Monroe, Colaresi and Quinn, 2008, "Fightin' Words"): it ranks the
words most typical of a label against the other labels and needs no stop-word list. The ranking is written here
because no maintained library provides it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np

from affectlab.detectors.base import Detector
from affectlab.detectors.batch import Inputs
from affectlab.detectors.capabilities import KindFacts
from affectlab.languages import FIRST_LANGUAGES, tags_by_code
from affectlab.text import normalise

LANG_CODES = tags_by_code(FIRST_LANGUAGES)
SUPPORTED = FIRST_LANGUAGES


class KeywordDetector(Detector):
    """Most keyword hits wins; texts with no hit get the none label (if the space has one)."""

    name = "keywords"
    description = "top-20 lemmatised keywords per label, most hits wins (EmoBench-UA 5.1)"
    defaults = {"top_k": 20, "min_count": 3, "prior": 0.01}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self._lemma_cache: dict[tuple[str, tuple[str, ...]], str] = {}

    def _kind_facts(self) -> KindFacts:
        """One label per text: the most hits."""
        return {"decision_rule": "argmax"}

    # --- lemmas -------------------------------------------------------------------------------------------
    def _langs(self, lang: str) -> tuple[str, ...]:
        code = LANG_CODES.get(lang.lower())
        return (code,) if code else tuple(self.languages_)  # set by fit before any text is read

    def _lemmas(self, text: str, lang: str) -> list[str]:
        import simplemma

        langs = self._langs(lang)
        lemmas = []
        for token in simplemma.simple_tokenizer(normalise(text).lower()):
            if not token.isalpha() or len(token) < 2:
                continue
            key = (token, langs)
            if key not in self._lemma_cache:
                self._lemma_cache[key] = simplemma.lemmatize(token, lang=langs if len(langs) > 1 else langs[0])
            lemmas.append(self._lemma_cache[key].lower())
        return lemmas

    # --- protocol -----------------------------------------------------------------------------------------
    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        seen = sorted({LANG_CODES[lang.lower()] for lang in inputs.langs if lang.lower() in LANG_CODES})
        self.languages_ = seen or list(SUPPORTED)
        docs = [self._lemmas(text, lang) for text, lang in zip(inputs.texts, inputs.langs, strict=True)]
        self.keywords_ = [self._top_keywords(docs, Y[:, j]) for j in range(Y.shape[1])]

    def _top_keywords(self, docs: list[list[str]], in_label: np.ndarray) -> list[str]:
        inside = Counter(lemma for doc, hit in zip(docs, in_label, strict=True) if hit for lemma in doc)
        outside = Counter(lemma for doc, hit in zip(docs, in_label, strict=True) if not hit for lemma in doc)
        if not inside:
            return []
        total = inside + outside
        n_all, n_in, n_out = sum(total.values()), sum(inside.values()), sum(outside.values())
        alpha0 = self.params["prior"] * len(total)
        scores = {}
        for lemma, count in inside.items():
            if count < self.params["min_count"]:
                continue
            alpha = alpha0 * total[lemma] / n_all
            y_in, y_out = count, outside[lemma]
            delta = np.log((y_in + alpha) / (n_in + alpha0 - y_in - alpha)) - np.log(
                (y_out + alpha) / (n_out + alpha0 - y_out - alpha)
            )
            scores[lemma] = delta / np.sqrt(1.0 / (y_in + alpha) + 1.0 / (y_out + alpha))
        ranked = sorted(scores, key=lambda lemma: (-scores[lemma], lemma))
        return ranked[: self.params["top_k"]]

    def _predict_proba(self, inputs: Inputs) -> np.ndarray:
        index: dict[str, list[int]] = {}
        for j, words in enumerate(self.keywords_):
            for word in words:
                index.setdefault(word, []).append(j)
        hits = np.zeros((len(inputs), len(self.label_space)))
        for i, (text, lang) in enumerate(zip(inputs.texts, inputs.langs, strict=True)):
            for lemma in self._lemmas(text, lang):
                for j in index.get(lemma, ()):
                    hits[i, j] += 1
        return self._hits_to_probs(hits)

    def _hits_to_probs(self, hits: np.ndarray) -> np.ndarray:
        """Share of a text's hits per label; a text without hits goes to the none label, else uniform."""
        probs = np.full(hits.shape, 1.0 / hits.shape[1])
        space = self.label_space
        totals = hits.sum(axis=1)
        probs[totals > 0] = hits[totals > 0] / totals[totals > 0, None]
        if space.none_label is not None:
            probs[totals == 0] = 0.0
            probs[totals == 0, space.labels.index(space.none_label)] = 1.0
        return probs

    def keywords(self) -> dict[str, list[str]]:
        """The learned keywords per label."""
        return dict(zip(self.label_space.labels, self.keywords_, strict=True))

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        return {"languages": self.languages_, "keywords": self.keywords()}, {}

    def _set_state(self, state: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        self.languages_ = list(state["languages"])
        self.keywords_ = [list(state["keywords"][label]) for label in self.label_space.labels]
