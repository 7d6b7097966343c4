"""The one protocol every detector follows, in the scikit-learn manner: ``__init__`` stores parameters, ``fit``
learns and returns ``self``, learned state ends in ``_``, ``predict_proba`` returns ``(n_texts, n_labels)`` in
the label space's order, and ``predict`` applies the shared decision step (:mod:`affectlab.metrics.thresholds`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Self

import numpy as np

from affectlab.detectors.batch import Batch, Inputs, Scored, as_inputs, prepare_batch
from affectlab.detectors.capabilities import Capabilities, KindFacts
from affectlab.detectors.serialization import write_model_dir
from affectlab.errors import InputError, ModelFileError
from affectlab.labels import LabelSpace
from affectlab.langid import normalise
from affectlab.metrics.thresholds import Decision
from affectlab.versions import __version__


class Detector:
    """Base class of all detectors. Subclasses set ``name``, ``defaults`` and implement ``_fit``,
    ``_predict_proba``, ``_get_state`` and ``_set_state``, ``_capabilities`` when they can do more than score
    texts alone (read an encoder, context, rate intensity), and ``_kind_facts`` when their kind differs from the
    defaults of :class:`~affectlab.detectors.capabilities.KindFacts` (a decision rule of its own, no tuning, ...)."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    defaults: ClassVar[dict[str, Any]] = {}

    def __init__(self, **params: Any) -> None:
        unknown = set(params) - set(self.defaults)
        if unknown:
            raise InputError(f"{self.name} has no parameter {', '.join(sorted(unknown))}")
        self.params: dict[str, Any] = {**self.defaults, **params}
        self.label_space_: LabelSpace | None = None
        self.decision_: Decision | None = None
        self.capabilities_: Capabilities | None = None
        """What it can do, computed by ``fit`` and by loading (:attr:`capabilities`)."""
        self._source: str | None = None

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.params.items() if self.defaults.get(k) != v}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in changed.items())})"

    # --- the protocol -------------------------------------------------------------------------------------
    def fit(self, X: Any, Y: np.ndarray, label_space: LabelSpace) -> Self:
        """Learn from texts ``X`` and their 0/1 label matrix ``Y`` in ``label_space`` order."""
        inputs = as_inputs(X)
        Y = np.asarray(Y, dtype=np.int8)
        if Y.shape != (len(inputs), len(label_space)):
            raise InputError(f"labels have shape {Y.shape}, expected {(len(inputs), len(label_space))}")
        self.label_space_ = label_space
        try:
            self._fit(inputs, Y)
        except ValueError as exc:
            if type(exc).__name__ != "InvalidParameterError":  # scikit-learn's, not imported here (scoring avoids it)
                raise
            raise InputError(f"{self.name}: {exc} (see --param / the detector's parameters)") from None
        self.decision_ = Decision.default(label_space, self.rule())
        self.capabilities_ = self._computed_capabilities().with_languages(training_languages(inputs))
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Probabilities ``(n_texts, n_labels)`` in label-space order: :meth:`score`'s, for ``X`` prepared as a batch
        (:func:`~affectlab.detectors.batch.prepare_batch`)."""
        return self.score(prepare_batch(self, X)).probs

    def predict(self, X: Any) -> np.ndarray:
        """The 0/1 label matrix after the shared decision step (per-language values where the decision has them):
        :meth:`score`'s, for ``X`` prepared as a batch."""
        return self.score(prepare_batch(self, X)).labels

    def score(self, batch: Batch, intensity: bool = False) -> Scored:
        """The one scoring door: probabilities, decision scores (0.5 = each label's threshold), labels and (with
        ``intensity``) intensities of a prepared batch (:func:`~affectlab.detectors.batch.prepare_batch`) from one
        pass of the model, reading the batch's languages, embeddings (and a router its routes) rather than working
        them out again. :meth:`predict_proba`, :meth:`predict`, ``detect``, evaluation, training and the build all
        score through it."""
        self._check_fitted()
        assert self.decision_ is not None
        width = len(self.label_space)
        if not len(batch):
            empty = np.zeros((0, width))
            return Scored(empty, empty, empty.astype(np.int8), empty if intensity else None)
        probs = self._predict_proba(batch)
        groups = list(batch.langs) if self.decision_.groups else None
        scores = self.decision_.scores(probs, self.label_space, groups)
        labels = self.decision_.apply(probs, self.label_space, groups)
        return Scored(probs, scores, labels, self._intensities(batch) if intensity else None)

    @property
    def reads_languages(self) -> bool:
        """Whether scoring reads each text's language (a per-language decision or members), so that a batch
        prepared for it identifies the languages not given."""
        return bool(self.decision_ is not None and self.decision_.groups)

    def route(self, langs: Sequence[str]) -> dict[str, np.ndarray]:
        """Which rows each member scores, by member key, for texts of the language tags ``langs`` (empty for a
        detector without language members)."""
        return {}

    @property
    def capabilities(self) -> Capabilities:
        """What this detector can do: its encoders, the characters they read, whether it reads context or rates
        intensity, its training languages, what was left out when it was loaded, its diagnostics, and the facts of
        its kind (decision rule, whether training tunes its decision, ...). A detector not trained yet answers with
        its kind's facts and the defaults for the rest (no encoder, no context, no intensity, languages unknown),
        which ``fit`` or loading then work out: training reads the kind facts before it fits."""
        if self.capabilities_ is None:
            return Capabilities().with_kind_facts(self._kind_facts())
        return self.capabilities_

    def diagnostics(self) -> dict[str, Any]:
        """The counts named by :attr:`Capabilities.diagnostics` for the last prediction (none by default)."""
        return {}

    def predict_labels(self, X: Any) -> list[list[str]]:
        """Predicted label names per text."""
        return self.label_space.decode(self.predict(X))

    def unfitted_copy(self) -> Detector:
        """An untrained copy with the same parameters (what out-of-fold training fits on each fold)."""
        return type(self)(**self.params)

    def rule(self) -> str:
        """The decision rule this detector uses on its label space."""
        return self.capabilities.decision_rule or ("thresholds" if self.label_space.multi_label else "argmax")

    def set_decision(self, decision: Decision) -> None:
        """Use ``decision`` (tuned on dev by training) from now on."""
        self.decision_ = decision.check(len(self.label_space))

    def named(self, source: str) -> Self:
        """Name this detector ``source`` in messages ("the default ekman head"); the resolver that loaded it does."""
        self._source = source
        return self

    def describe(self) -> str:
        """How messages name it: the name the resolver gave it, else "the <kind> detector"."""
        return self._source or f"the {self.name} detector"

    @property
    def label_space(self) -> LabelSpace:
        """The label space learned by ``fit``."""
        self._check_fitted()
        assert self.label_space_ is not None
        return self.label_space_

    def _check_fitted(self) -> None:
        if self.label_space_ is None:
            raise InputError(f"{self.name} is not trained yet: call fit() or load a saved model")

    # --- saving -------------------------------------------------------------------------------------------
    def save(self, directory: str | os.PathLike[str], extra: Mapping[str, Any] | None = None) -> None:
        """Save to ``directory`` as JSON + npz (see :mod:`affectlab.detectors.serialization`), with its
        capabilities."""
        self._check_fitted()
        assert self.decision_ is not None
        state, arrays = self._get_state()
        config = {
            "model": self.name,
            "params": self.params,
            "label_space": self.label_space.to_dict(),
            "decision": self.decision_.to_dict(),
            "state": state,
            "capabilities": self.capabilities.to_dict(),
            "affectlab_version": __version__,
            **(extra or {}),
        }
        write_model_dir(directory, config, arrays)

    @classmethod
    def from_saved(cls, config: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> Self:
        """Rebuild a detector from what :meth:`save` wrote (the directory is already verified)."""
        try:
            model = cls(**config["params"])
            model.label_space_ = LabelSpace.from_dict(config["label_space"])
            model.decision_ = Decision.from_dict(config["decision"]).check(len(model.label_space_))
            model._set_state(config["state"], arrays)
            model.capabilities_ = model._restored_capabilities(config)
        except (KeyError, TypeError, ValueError, InputError) as exc:
            raise ModelFileError(f"saved {cls.name} model is incomplete or inconsistent ({exc})") from None
        return model

    def _restored_capabilities(self, config: Mapping[str, Any]) -> Capabilities:
        """A loaded model's capabilities: worked out from its loaded state (which may have left parts out), with
        the training languages it was saved with (``trained_languages`` in models saved before capabilities)."""
        saved = config.get("capabilities")
        if isinstance(saved, Mapping):
            return self._computed_capabilities().with_languages(Capabilities.from_dict(saved).trained_languages)
        languages = config.get("trained_languages")
        return self._computed_capabilities().with_languages(map(str, languages) if languages else None)

    def _computed_capabilities(self) -> Capabilities:
        """What :meth:`_capabilities` reads from the learned state, with this kind's facts: the record every fit,
        load and copy of a detector assigns (the training languages are added by the caller)."""
        return self._capabilities().with_kind_facts(self._kind_facts())

    # --- for subclasses -------------------------------------------------------------------------------------
    def _capabilities(self) -> Capabilities:
        """What this kind can do, read from its learned state (the training languages are added by the caller;
        the kind facts by :meth:`_computed_capabilities`)."""
        return Capabilities()

    def _kind_facts(self) -> KindFacts:
        """The facts of this kind and its parameters that differ from the defaults (none for the base): read by
        :attr:`capabilities` before ``fit`` and put into every record the detector computes."""
        return {}

    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        raise NotImplementedError

    def _predict_proba(self, inputs: Inputs) -> np.ndarray:
        """Probabilities ``(n_texts, n_labels)`` of a non-empty batch (a :class:`Batch` when scored through
        :meth:`score`)."""
        raise NotImplementedError

    def _intensities(self, inputs: Inputs) -> np.ndarray:
        """Each label's intensity on SemEval-2025 track B's 0-3 scale, unrounded, ``(n_texts, n_labels)`` in
        label-space order (the none label: 0); only for a detector whose capabilities say it rates intensity."""
        raise InputError(f"{self.describe()} does not rate intensity")

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        raise NotImplementedError

    def _set_state(self, state: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        raise NotImplementedError


def training_languages(inputs: Inputs) -> frozenset[str] | None:
    """The language tags of training texts, when every text has one (None: some do not say, so neither does the
    model)."""
    if not inputs.langs or not all(inputs.langs):
        return None
    return frozenset(normalise(lang) for lang in inputs.langs)
