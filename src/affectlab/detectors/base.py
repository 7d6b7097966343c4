"""The one protocol every detector follows, in the scikit-learn manner: ``__init__`` stores parameters, ``fit``
learns and returns ``self``, learned state ends in ``_``, ``predict_proba`` returns ``(n_texts, n_labels)`` in
the label space's order, and ``predict`` applies the shared decision step (:mod:`affectlab.metrics.thresholds`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, ClassVar, Self, cast

import numpy as np

from affectlab.detectors.serialization import write_model_dir
from affectlab.errors import InputError, ModelFileError, TextTypeError
from affectlab.labels import LabelSpace
from affectlab.langid import detect_languages
from affectlab.metrics.thresholds import Decision
from affectlab.versions import __version__


@dataclass(frozen=True)
class Inputs:
    """What a detector reads: the texts, each text's earlier dialogue turns and its language code ("" unknown)."""

    texts: list[str]
    contexts: list[list[str]]
    langs: list[str]

    def __len__(self) -> int:
        return len(self.texts)


def as_inputs(X: Any) -> Inputs:
    """Accept a string, a list of strings, a list of example dicts or a ``datasets.Dataset``."""
    if isinstance(X, Inputs):
        return X
    if isinstance(X, str):
        X = [X]
    if X is None or isinstance(X, bytes | bytearray) or not isinstance(X, Iterable):
        raise TextTypeError(f"X must be a str, a list of str or of example dicts, or a Dataset, not {type(X).__name__}")
    if hasattr(X, "column_names"):  # a datasets.Dataset: read whole columns at once
        X = cast(Any, X)
        n = len(X)
        contexts = X["context"] if "context" in X.column_names else [[] for _ in range(n)]
        langs = X["lang"] if "lang" in X.column_names else [""] * n
        return Inputs(list(X["text"]), [list(c) for c in contexts], list(langs))
    texts, contexts, langs = [], [], []
    for item in X:
        if isinstance(item, str):
            texts.append(item)
            contexts.append([])
            langs.append("")
        elif isinstance(item, Mapping):
            texts.append(str(item["text"]))
            contexts.append(list(item.get("context") or []))
            langs.append(str(item.get("lang") or ""))
        else:
            raise InputError(f"cannot read {type(item).__name__} as a text")
    return Inputs(texts, contexts, langs)


class Detector:
    """Base class of all detectors. Subclasses set ``name``, ``defaults`` and implement ``_fit``,
    ``_predict_proba``, ``_get_state`` and ``_set_state``."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    defaults: ClassVar[dict[str, Any]] = {}
    decision_rule: ClassVar[str | None] = None
    """``argmax`` or ``thresholds`` to force a rule; None picks by the label space (multi-label: thresholds)."""
    tunes_decision: ClassVar[bool] = True
    """Whether training tunes the decision on dev; False keeps the untuned one (thresholds 0.5, arg-max without
    bias) for a detector whose dev predictions cost money and whose probabilities are 0/1 anyway (LLM prompting)."""
    accepts_validation: ClassVar[bool] = False
    """Whether ``fit`` takes ``validation=(X_dev, Y_dev)`` and ``progress=`` keywords (a fine-tuned encoder stops
    early on dev); training passes them only to such detectors."""

    @property
    def cheap_to_refit(self) -> bool:
        """Whether refitting five times for out-of-fold threshold rows is affordable (not for a fine-tuned
        encoder)."""
        return True

    def __init__(self, **params: Any) -> None:
        unknown = set(params) - set(self.defaults)
        if unknown:
            raise InputError(f"{self.name} has no parameter {', '.join(sorted(unknown))}")
        self.params: dict[str, Any] = {**self.defaults, **params}
        self.label_space_: LabelSpace | None = None
        self.decision_: Decision | None = None
        self.source_: str | None = None
        """How messages name this detector ("the default ekman head"); set by the resolver that loaded it."""
        self.trained_languages_: frozenset[str] | None = None
        """The languages of its training data, where known (saved as ``trained_languages`` in its config: the
        default heads); see :attr:`trained_languages`."""

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
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Probabilities ``(n_texts, n_labels)`` in label-space order."""
        self._check_fitted()
        inputs = as_inputs(X)
        if not inputs.texts:
            return np.zeros((0, len(self.label_space)))
        return self._predict_proba(inputs)

    def predict(self, X: Any) -> np.ndarray:
        """The 0/1 label matrix after the shared decision step (per-language values where the decision has them)."""
        inputs = as_inputs(X)
        return self.decide(self.predict_proba(inputs), inputs)

    def decide(self, probs: np.ndarray, X: Any) -> np.ndarray:
        """Apply the decision to probabilities already computed for ``X``."""
        assert self.decision_ is not None
        groups = detect_languages(as_inputs(X)) if self.decision_.groups else None
        return self.decision_.apply(probs, self.label_space, groups)

    def decision_scores(self, probs: np.ndarray, X: Any) -> np.ndarray:
        """Probabilities already computed for ``X`` on the decision's scale (see
        :meth:`affectlab.metrics.thresholds.Decision.scores`): what ``detect`` shows beside the labels."""
        assert self.decision_ is not None
        groups = detect_languages(as_inputs(X)) if self.decision_.groups else None
        return self.decision_.scores(probs, self.label_space, groups)

    def scores_and_labels(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """Decision scores and the 0/1 label matrix for ``X``, from one pass of the model."""
        inputs = as_inputs(X)
        probs = self.predict_proba(inputs)
        return self.decision_scores(probs, inputs), self.decide(probs, inputs)

    @property
    def trained_languages(self) -> frozenset[str] | None:
        """The languages this detector was trained on, where known (None: it does not say): the detections of a
        text in another language say so."""
        return self.trained_languages_

    def encoder_pass(self, X: Any) -> AbstractContextManager[None]:
        """A block within which every sentence encoder this detector reads embeds the texts of ``X`` once, however
        often they are asked for (scores, then intensities)."""
        from affectlab.encoders.sentence import one_encoder_pass

        return one_encoder_pass(as_inputs(X).texts, self.encoder_names)

    @property
    def rates_intensity(self) -> bool:
        """Whether :meth:`intensities` rates how strongly each emotion is expressed (the default ekman head)."""
        return False

    def intensities(self, X: Any) -> np.ndarray:
        """Each label's intensity on SemEval-2025 track B's 0-3 scale, unrounded, ``(n_texts, n_labels)`` in
        label-space order (the none label: 0); only for a detector that :attr:`rates_intensity`."""
        raise InputError(f"{self.source_ or self.name} does not rate intensity")

    def predict_labels(self, X: Any) -> list[list[str]]:
        """Predicted label names per text."""
        return self.label_space.decode(self.predict(X))

    def rule(self) -> str:
        """The decision rule this detector uses on its label space."""
        return self.decision_rule or ("thresholds" if self.label_space.multi_label else "argmax")

    @property
    def encoder_names(self) -> frozenset[str]:
        """The sentence encoders this detector embeds texts with (by name; empty for n-gram and keyword models):
        what a router runs once per batch for all its members."""
        return frozenset()

    @property
    def encoder_max_chars(self) -> int | None:
        """How many characters of a text a neural encoder in this detector reads (None: no encoder cuts texts);
        ``affectlab.detect`` notes a longer text's cut only when there is one."""
        return None

    @property
    def reads_context(self) -> bool:
        """Whether this detector reads earlier dialogue turns (``context``); one that does not scores each text
        alone, so ``affectlab.detect`` refuses a context given to it rather than ignore it."""
        return bool(getattr(self, "uses_context_", False))

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
        """Save to ``directory`` as JSON + npz (see :mod:`affectlab.detectors.serialization`)."""
        self._check_fitted()
        assert self.decision_ is not None
        state, arrays = self._get_state()
        config = {
            "model": self.name,
            "params": self.params,
            "label_space": self.label_space.to_dict(),
            "decision": self.decision_.to_dict(),
            "state": state,
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
            languages = config.get("trained_languages")
            model.trained_languages_ = frozenset(map(str, languages)) if languages else None
        except (KeyError, TypeError, ValueError, InputError) as exc:
            raise ModelFileError(f"saved {cls.name} model is incomplete or inconsistent ({exc})") from None
        return model

    # --- for subclasses -------------------------------------------------------------------------------------
    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        raise NotImplementedError

    def _predict_proba(self, inputs: Inputs) -> np.ndarray:
        raise NotImplementedError

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        raise NotImplementedError

    def _set_state(self, state: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        raise NotImplementedError
