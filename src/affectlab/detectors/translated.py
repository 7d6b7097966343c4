"""``translate-test``: translate each input into the language of a detector, then let that detector score it
(EmoBench-UA, section 5.3.1, "Translation": an English emotion model applied to Ukrainian texts translated into
English by NLLB; Table 1, "Translation to English").

``base`` says where the detector of the target language comes from:

* **a saved model directory** (the paper's setup): a detector already trained on target-language data, e.g.
  ``affectlab train tfidf-lr --dataset goemotions-ekman`` saved to ``DIR``. ``fit`` trains nothing: it loads the
  base and checks that its labels cover the dataset's (``affectlab eval --model translate-test -p base=DIR
  -p translator=NLLB_DIR --dataset emobench-ua`` then only tunes the decision on the translated dev set).
* **a model kind** (``tfidf-lr``, ``embedding-lr``, ...; ``base_params`` for its parameters): ``fit`` translates
  the training texts as well and trains the base on the translations, so the base only ever sees target-language
  text (e.g. to use an English-only encoder on Ukrainian data).

Texts whose ``lang`` already is the target language are passed through untranslated. The translator is a local
NLLB or MarianMT directory (:mod:`affectlab.encoders.translation`), cached on disk; saving stores the base as
nested state (arrays under ``base/``) and the translator's path in the parameters, so the translation model must
be present where the saved detector is used.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

import numpy as np

from affectlab.detectors.base import Detector
from affectlab.detectors.batch import Inputs
from affectlab.detectors.capabilities import Capabilities, KindFacts
from affectlab.detectors.registry import create_detector, detector_class, is_model_dir, read_detector
from affectlab.detectors.serialization import nest_arrays, unnest_arrays
from affectlab.encoders.translation import Translator, open_translator, short_code
from affectlab.errors import InputError
from affectlab.labels import LabelSpace
from affectlab.loaded_once import loaded_once
from affectlab.metrics.thresholds import Decision


@loaded_once
def shared_translator(
    model_dir: str, device: str | None, batch_size: int, max_length: int, num_beams: int | None
) -> Translator:
    """One loaded translation model per setting in a process (:class:`~affectlab.loaded_once.LoadedOnce`: threads
    asking at once share one load): training makes several copies of a detector (the out-of-fold threshold
    models), which should not each load a 600M-parameter model."""
    return open_translator(model_dir, device=device, batch_size=batch_size, max_length=max_length, num_beams=num_beams)


def label_columns(base_space: LabelSpace, space: LabelSpace) -> np.ndarray:
    """The base's column of each label of ``space``; the base must have them all and the same multi-label kind."""
    missing = [label for label in space.labels if label not in base_space.labels]
    if missing or base_space.multi_label != space.multi_label:
        reason = f"lacks {', '.join(missing)}" if missing else "differs in being multi-label"
        raise InputError(
            f"the base model's label space {base_space.name!r} {reason} ({space.name!r} is asked for): "
            "evaluate on a label space the base covers"
        )
    return np.array([base_space.labels.index(label) for label in space.labels], dtype=np.int64)


class TranslateTestDetector(Detector):
    """Inputs translated from ``source_lang`` into ``target_lang`` by the model in ``translator``, then scored by
    the ``base`` detector (a saved model directory, or a model kind trained on translated training texts)."""

    name = "translate-test"
    description = "translates inputs (e.g. uk -> en) with a local NLLB/Marian model for a target-language detector"
    defaults = {
        "translator": None,
        "source_lang": "uk",
        "target_lang": "en",
        "base": "tfidf-lr",
        "base_params": {},
        "device": None,
        "batch_size": 16,
        "max_length": 256,
        "num_beams": None,
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if not self.params["translator"]:
            raise InputError("translate-test needs translator=DIR: a local NLLB or MarianMT model directory")
        if self.base_is_saved() and self.params["base_params"]:
            raise InputError("base_params apply only when base names a model kind, not a saved model directory")
        self.base_: Detector | None = None
        self.columns_: np.ndarray | None = None
        self._translator: Translator | None = None

    def base_is_saved(self) -> bool:
        """Whether ``base`` is a saved model directory rather than a model kind."""
        return is_model_dir(str(self.params["base"]))

    def _kind_facts(self) -> KindFacts:
        """Training refits copies for out-of-fold thresholds as it would the base kind, and not with a saved base,
        whose out-of-fold rows would cost a translation of the whole training set for nothing but more
        threshold-tuning rows."""
        if self.base_is_saved():
            return {"cheap_to_refit": False}
        base = create_detector(self.params["base"], **self.params["base_params"])
        return {"cheap_to_refit": base.capabilities.cheap_to_refit}

    def use_translator(self, translator: Translator) -> None:
        """Translate with ``translator`` instead of the model directory in the parameters (e.g. another service)."""
        self._translator = translator

    @property
    def translator(self) -> Translator:
        """The translator: the one installed by :meth:`use_translator`, else the local model in the parameters,
        loaded once per process (:func:`shared_translator`)."""
        if self._translator is not None:
            return self._translator
        p = self.params
        return shared_translator(str(p["translator"]), p["device"], p["batch_size"], p["max_length"], p["num_beams"])

    def translate_inputs(self, inputs: Inputs) -> Inputs:
        """``inputs`` in the target language: texts and context turns of rows in another language translated in
        one call (so each distinct string once), rows already in the target language kept."""
        target = short_code(self.params["target_lang"])
        rows = [i for i, lang in enumerate(inputs.langs) if short_code(lang) != target]
        strings = [inputs.texts[i] for i in rows] + [turn for i in rows for turn in inputs.contexts[i]]
        translated = iter(self.translator.translate(strings, self.params["source_lang"], self.params["target_lang"]))
        texts, contexts = list(inputs.texts), list(inputs.contexts)
        for i in rows:
            texts[i] = next(translated)
        for i in rows:
            contexts[i] = [next(translated) for _ in inputs.contexts[i]]
        return Inputs(texts, contexts, [target] * len(inputs))

    def fit(self, X: Any, Y: np.ndarray, label_space: LabelSpace) -> Self:
        """Load (saved ``base``) or train (a model kind) the base; a saved base's decision is kept as the starting
        decision, so the detector is usable before any tuning on the source-language dev set."""
        super().fit(X, Y, label_space)
        assert self.base_ is not None and self.columns_ is not None
        base_decision = self.base_.decision_
        if self.base_is_saved() and base_decision is not None and base_decision.rule == self.rule():
            self.decision_ = Decision(
                base_decision.rule,
                base_decision.values[self.columns_],
                {group: values[self.columns_] for group, values in base_decision.groups.items()},
            )
        return self

    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        if self.base_is_saved():
            self.base_ = read_detector(self.params["base"])
            self.columns_ = label_columns(self.base_.label_space, self.label_space)
        else:
            base = create_detector(self.params["base"], **self.params["base_params"])
            self.base_ = base.fit(self.translate_inputs(inputs), Y, self.label_space)
            self.columns_ = np.arange(len(self.label_space))

    def _capabilities(self) -> Capabilities:
        """The base's, less its encoders and intensity: the base embeds the translations, not the batch's texts,
        and its intensities are not passed on. Context is read when the base reads it (the turns are translated
        with the text)."""
        assert self.base_ is not None
        base = self.base_.capabilities
        return Capabilities(max_chars=base.max_chars, reads_context=base.reads_context, left_out=base.left_out,
                            diagnostics=base.diagnostics)  # fmt: skip

    def diagnostics(self) -> dict[str, Any]:
        """The base's counts of its last prediction."""
        assert self.base_ is not None
        return self.base_.diagnostics()

    def _predict_proba(self, inputs: Inputs) -> np.ndarray:
        assert self.base_ is not None and self.columns_ is not None
        return self.base_.predict_proba(self.translate_inputs(inputs))[:, self.columns_]

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        assert self.base_ is not None and self.columns_ is not None
        base = self.base_
        state, arrays = base._get_state()
        decision = base.decision_ or Decision.default(base.label_space, base.rule())
        saved = {
            "model": base.name,
            "params": base.params,
            "label_space": base.label_space.to_dict(),
            "decision": decision.to_dict(),
            "state": state,
            "capabilities": base.capabilities.to_dict(),
        }
        return {"base": saved, "columns": self.columns_.tolist()}, nest_arrays("base", arrays)

    def _set_state(self, state: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        saved = state["base"]
        self.base_ = detector_class(saved["model"]).from_saved(saved, unnest_arrays("base", arrays))
        self.columns_ = np.asarray(state["columns"], dtype=np.int64)
        label_columns(self.base_.label_space, self.label_space)  # a file whose labels disagree fails to load
