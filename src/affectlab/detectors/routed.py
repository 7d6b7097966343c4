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
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from affectlab.detectors.base import Detector
from affectlab.detectors.batch import Batch, Inputs, Scored
from affectlab.detectors.capabilities import Capabilities, KindFacts, combine
from affectlab.detectors.registry import detector_class
from affectlab.detectors.serialization import nest_arrays, unnest_arrays
from affectlab.errors import InputError
from affectlab.langid import UNDETERMINED
from affectlab.languages import FIRST_LANGUAGES


class LanguageRoutedDetector(Detector):
    """Members keyed by language code; ``fallback`` names the member for any other language. A loaded router
    builds a member when a text of its language first comes (a Ukrainian text does not load the English n-gram
    vocabularies); ``members_`` gives them all."""

    name = "by-language"
    description = "one detector per language (uk, en, es), each text routed by its language"
    defaults = {"languages": list(FIRST_LANGUAGES), "fallback": "en"}

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
    def languages(self) -> list[str]:
        """The languages that have a member (read under the lock: a member moves from pending to built while
        another thread builds it, and a read between the two moments could miss its language)."""
        with self._building:
            return [*self._members, *self._pending]

    def set_members(self, members: dict[str, Detector]) -> None:
        """Install trained members (all over this detector's label space): this detector's ``fit``."""
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
        self.capabilities_ = self._computed_capabilities()

    def with_members(
        self, change: Callable[[Detector], Detector], capabilities: Capabilities
    ) -> LanguageRoutedDetector:
        """A router over ``change(member)`` for each member, each built when first needed; ``capabilities`` says
        what the changed members can do, so that asking builds none of them (the router's kind facts are its
        own)."""
        router = LanguageRoutedDetector(**self.params)
        router.label_space_, router.decision_ = self.label_space_, self.decision_
        router.capabilities_ = capabilities.with_kind_facts(router._kind_facts())
        router._pending = {lang: partial(self._changed_member, change, lang) for lang in self.languages}
        return router

    def _changed_member(self, change: Callable[[Detector], Detector], lang: str) -> Detector:
        return change(self.member(lang))

    def route(self, langs: Sequence[str]) -> dict[str, np.ndarray]:
        """Row indices per member, for texts of the language tags ``langs`` (the fallback's member for a language
        without one)."""
        languages = self.languages
        keys = np.array([lang if lang in languages else self.params["fallback"] for lang in langs])
        return {lang: np.flatnonzero(keys == lang) for lang in languages if (keys == lang).any()}

    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        raise InputError("train the members one by one and install them with set_members()")

    def _kind_facts(self) -> KindFacts:
        """It may rate intensity (when every member does)."""
        return {"may_rate_intensity": True}

    def _capabilities(self) -> Capabilities:
        """Its members' records combined (building the members not built yet): intensity only when every member
        rates it; its training languages are its routed ones (not the undetermined fallback)."""
        members = [member.capabilities for member in self.members_.values()]
        return combine(members, "every", trained_languages=frozenset(self.languages) - {UNDETERMINED})

    def _restored_capabilities(self, config: Mapping[str, Any]) -> Capabilities:
        """The saved record, read without building a member (a router saved before capabilities builds them),
        with its kind facts."""
        saved = config.get("capabilities")
        if isinstance(saved, Mapping):
            return Capabilities.from_dict(saved).with_kind_facts(self._kind_facts())
        return self._computed_capabilities()

    @property
    def reads_languages(self) -> bool:
        """A router reads every text's language: it picks the text's member."""
        return True

    def score(self, batch: Batch, intensity: bool = False) -> Scored:
        """Each route's rows scored by its member (each with its own decision), on the batch's routes (worked out
        from its languages when it has none) and embeddings."""
        self._check_fitted()
        routes = batch.routes or self.route(batch.langs)
        parts = {lang: self.member(lang).score(batch.subset(rows), intensity) for lang, rows in routes.items()}
        n, width = len(batch), len(self.label_space)
        out = Scored(np.zeros((n, width)), np.zeros((n, width)), np.zeros((n, width), dtype=np.int8),
                     np.zeros((n, width)) if intensity else None)  # fmt: skip
        for lang, rows in routes.items():
            part = parts[lang]
            out.probs[rows], out.scores[rows], out.labels[rows] = part.probs, part.scores, part.labels
            if out.intensities is not None and part.intensities is not None:
                out.intensities[rows] = part.intensities
        return out

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        states, arrays = {}, {}
        for lang, member in self.members_.items():
            state, member_arrays = member._get_state()
            states[lang] = {
                "model": member.name,
                "params": member.params,
                "decision": member.decision_.to_dict() if member.decision_ else None,
                "state": state,
                "capabilities": member.capabilities.to_dict(),
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
                **({"capabilities": saved["capabilities"]} if "capabilities" in saved else {}),
            }
            kind = detector_class(saved["model"])  # an unknown kind fails now, not at the first text
            member_arrays = unnest_arrays(lang, arrays)
            self._pending[lang] = partial(kind.from_saved, config, member_arrays)
