"""Open-ended affective-state predictors (MASIVE), all with the interface of :mod:`.base`:

* ``seq2seq`` (:mod:`affectlab.openstates.predictors.seq2seq`): a fine-tuned T5/mT5 from a local directory, beam
  search;
* ``llm`` (:mod:`affectlab.openstates.predictors.prompted`): the Table 11 prompt to an OpenAI-compatible endpoint or
  a local LM;
* ``open`` (:mod:`affectlab.openstates.predictors.open_vocabulary`): the embedded CPU predictor behind
  ``detect --open``, shipped in the package ("default"); it ranks any candidate state;
* ``closed`` (:mod:`affectlab.openstates.predictors.embedded`): a logistic regression over the states it was
  trained on (the default before the open-vocabulary one; kept as its baseline; saved as ``default`` before).

Saved predictors are directories with ``open_states.json`` naming their kind.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from affectlab.errors import InputError, ModelFileError
from affectlab.io.loaded import FolderCache
from affectlab.openstates.predictors.base import CONFIG, StatePredictor


def resolve_predictor(model: Any = "default", llm_base_url: str | None = None) -> StatePredictor:
    """The one resolver of an open-state predictor reference: a predictor object (used as it is), ``"default"``
    (the embedded predictor shipped in the package), ``llm:NAME`` (prompted at ``llm_base_url``, or a local causal
    LM directory) or a saved predictor's folder. Folders are loaded once per process, per path and content."""
    if not isinstance(model, str | os.PathLike):
        return model  # a predictor object
    name = str(model)
    if name.startswith("llm:"):
        from affectlab.openstates.predictors.prompted import LLMStatePredictor

        return LLMStatePredictor(name.removeprefix("llm:"), base_url=llm_base_url)
    if llm_base_url:
        raise InputError("--llm-base-url applies only to --model llm:NAME")
    if name == "default":
        from affectlab.model_package import verified
        from affectlab.openstates.predictors.open_vocabulary import HEADS_DIR

        return SAVED.get(verified(HEADS_DIR))
    if not Path(name).is_dir():
        raise InputError(f"{name!r} is neither 'default', llm:NAME nor a saved predictor directory")
    return SAVED.get(name)


def load_predictor(directory: str | Path) -> StatePredictor:
    """A saved predictor of any kind."""
    path = Path(directory) / CONFIG
    if not path.is_file():
        raise ModelFileError(f"{str(directory)!r} is not a saved open-state predictor (no {CONFIG})")
    config = json.loads(path.read_text(encoding="utf-8"))
    kind = config.get("kind")
    if kind == "seq2seq":
        from affectlab.openstates.predictors.seq2seq import Seq2SeqStatePredictor

        return Seq2SeqStatePredictor.load(directory)
    if kind == "open":
        from affectlab.openstates.predictors.open_vocabulary import OpenVocabularyPredictor

        return OpenVocabularyPredictor.load(directory)
    if kind in ("closed", "default"):  # "default": what the closed predictor was saved as before
        from affectlab.openstates.predictors.embedded import EmbeddedStatePredictor

        return EmbeddedStatePredictor.load(directory)
    raise ModelFileError(f"{path}: unknown predictor kind {kind!r}")


SAVED: FolderCache[StatePredictor] = FolderCache(load_predictor)
"""Saved predictors loaded in this process, by folder and content."""
