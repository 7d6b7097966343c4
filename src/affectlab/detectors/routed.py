"""``by-language``: one detector per language over the same label space, each text sent to the detector of its
language (the dataset's ``lang`` column, else :mod:`affectlab.langid`), each member deciding with its own
thresholds.

Why not one head for all languages: with frozen multilingual-e5-small embeddings, one logistic regression trained
on EmoBench-UA, SemEval-2025 eng/esp and GoEmotions-Ekman together scored lower on every one of them than a head
trained on that dataset alone (EmoBench-UA test macro-F1 0.41-0.46 joint against 0.47 alone; see BENCHMARKS.md):
the datasets differ in domain and in annotation conventions more than the shared space can bridge. The default's
members now share one fine-tuned encoder head, and routing keeps what still differs by language: the n-gram member,
the member weights and the thresholds (label priors differ a lot between the datasets).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from functools import partial
from typing import Any

import numpy as np

from affectlab.detectors.base import Detector, Inputs, as_inputs
from affectlab.detectors.registry import detector_class
from affectlab.detectors.serialization import nest_arrays, unnest_arrays
from affectlab.encoders.sentence import one_encoder_pass
from affectlab.errors import InputError
from affectlab.langid import UNDETERMINED, detect_languages


class LanguageRoutedDetector(Detector):
    """Members keyed by language code; ``fallback`` names the member for any other language. A loaded router
    builds a member when a text of its language first comes (a Ukrainian text does not load the English n-gram
    vocabularies); ``members_`` gives them all."""

    name = "by-language"
    description = "one detector per language (uk, en, es), each text routed by its language"
    defaults = {"languages": ["uk", "en", "es"], "fallback": "en"}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if self.params["fallback"] not in self.params["languages"]:
            raise InputError("the fallback language must be one of the routed languages")
        self._members: dict[str, Detector] = {}
        self._pending: dict[str, Callable[[], Detector]] = {}
        self._building = threading.RLock()  # threads predicting at once must not build a member twice or half

    @property
    def members_(self) -> dict[str, Detector]:
        """Every member, by language (building those not built yet)."""
        with self._building:
            for lang in list(self._pending):
                self.member(lang)
            return self._members

    def member(self, lang: str) -> Detector:
        """The member for ``lang`` (built now if it was not yet; one thread builds it while the others wait)."""
        with self._building:
            if lang in self._pending:
                self._members[lang] = self._pending[lang]()
                del self._pending[lang]
            return self._members[lang]

    @property
    def encoder_max_chars(self) -> int | None:
        """The shortest cut of any language's member (builds the members not built yet)."""
        cuts = [member.encoder_max_chars for member in self.members_.values()]
        return min((cut for cut in cuts if cut is not None), default=None)

    @property
    def reads_context(self) -> bool:
        """Whether any language's member reads earlier turns (builds the members not built yet)."""
        return any(member.reads_context for member in self.members_.values())

    @property
    def languages(self) -> list[str]:
        """The languages that have a member (read under the lock: a member moves from pending to built while
        another thread builds it, and a read between the two moments could miss its language)."""
        with self._building:
            return [*self._members, *self._pending]

    def set_members(self, members: dict[str, Detector]) -> None:
        """Install trained members (all over this detector's label space)."""
        missing = set(self.params["languages"]) - set(members)
        if missing:
            raise InputError(f"no member for {', '.join(sorted(missing))}")
        spaces = {member.label_space.labels for member in members.values()}
        if len(spaces) != 1:
            raise InputError("routed members must share one label space")
        self._members, self._pending = dict(members), {}
        first = next(iter(members.values()))
        self.label_space_ = first.label_space
        self.decision_ = first.decision_

    def with_members(self, change: Callable[[Detector], Detector]) -> LanguageRoutedDetector:
        """A router over ``change(member)`` for each member, each built when first needed."""
        router = LanguageRoutedDetector(**self.params)
        router.label_space_, router.decision_ = self.label_space_, self.decision_
        router._pending = {lang: partial(self._changed_member, change, lang) for lang in self.languages}
        return router

    def _changed_member(self, change: Callable[[Detector], Detector], lang: str) -> Detector:
        return change(self.member(lang))

    def route(self, inputs: Inputs) -> dict[str, np.ndarray]:
        """Row indices per member."""
        languages = self.languages
        keys = np.array([lang if lang in languages else self.params["fallback"] for lang in detect_languages(inputs)])
        return {lang: np.flatnonzero(keys == lang) for lang in languages if (keys == lang).any()}

    def _subset(self, inputs: Inputs, rows: np.ndarray) -> Inputs:
        return Inputs(
            [inputs.texts[i] for i in rows], [inputs.contexts[i] for i in rows], [inputs.langs[i] for i in rows]
        )

    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        raise InputError("train the members one by one and install them with set_members()")

    @property
    def trained_languages(self) -> frozenset[str]:
        """Its routed languages (not the undetermined fallback)."""
        return frozenset(self.languages) - {UNDETERMINED}

    def encoder_pass(self, X: Any) -> AbstractContextManager[None]:
        """One pass of each encoder the members of the texts' languages read, over all the texts."""
        inputs = as_inputs(X)
        names = frozenset().union(*(self.member(lang).encoder_names for lang in self.route(inputs)))
        return one_encoder_pass(inputs.texts, names)

    def _predict_proba(self, inputs: Inputs) -> np.ndarray:
        probs = np.zeros((len(inputs), len(self.label_space)))
        routes = self.route(inputs)
        # one encoder pass over the whole batch, whatever its languages; the members then differ only in their
        # n-gram models, weights and thresholds
        shared = frozenset().union(*(self.member(lang).encoder_names for lang in routes)) if len(routes) > 1 else ()
        with one_encoder_pass(inputs.texts, shared):
            for lang, rows in routes.items():
                probs[rows] = self.member(lang).predict_proba(self._subset(inputs, rows))
        return probs

    @property
    def rates_intensity(self) -> bool:
        """Whether every language's member rates intensity (builds the members not built yet)."""
        return all(member.rates_intensity for member in self.members_.values())

    def intensities(self, X: Any) -> np.ndarray:
        """Each row's intensities from its language's member."""
        inputs = as_inputs(X)
        out = np.zeros((len(inputs), len(self.label_space)))
        for lang, rows in self.route(inputs).items():
            out[rows] = self.member(lang).intensities(self._subset(inputs, rows))
        return out

    def decide(self, probs: np.ndarray, X: Any) -> np.ndarray:
        """Each row decided by its language's member."""
        inputs = as_inputs(X)
        predicted = np.zeros(probs.shape, dtype=np.int8)
        for lang, rows in self.route(inputs).items():
            predicted[rows] = self.member(lang).decide(probs[rows], self._subset(inputs, rows))
        return predicted

    def decision_scores(self, probs: np.ndarray, X: Any) -> np.ndarray:
        """Each row's scores on its language member's decision scale."""
        inputs = as_inputs(X)
        scores = np.zeros(probs.shape)
        for lang, rows in self.route(inputs).items():
            scores[rows] = self.member(lang).decision_scores(probs[rows], self._subset(inputs, rows))
        return scores

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        states, arrays = {}, {}
        for lang, member in self.members_.items():
            state, member_arrays = member._get_state()
            states[lang] = {
                "model": member.name,
                "params": member.params,
                "decision": member.decision_.to_dict() if member.decision_ else None,
                "state": state,
            }
            arrays.update(nest_arrays(lang, member_arrays))
        return {"members": states}, arrays

    def _set_state(self, state: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        self._members, self._pending = {}, {}
        for lang, saved in state["members"].items():
            config = {
                "params": saved["params"],
                "label_space": self.label_space.to_dict(),
                "decision": saved["decision"],
                "state": saved["state"],
            }
            kind = detector_class(saved["model"])  # an unknown kind fails now, not at the first text
            member_arrays = unnest_arrays(lang, arrays)
            self._pending[lang] = partial(kind.from_saved, config, member_arrays)
