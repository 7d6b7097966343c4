"""Open-ended affective-state predictors (MASIVE), all with the interface of :mod:`.base`:

* ``seq2seq`` (:mod:`affectlab.openstates.predictors.seq2seq`): a fine-tuned T5/mT5 from a local directory, beam
  search;
* ``llm`` (:mod:`affectlab.openstates.predictors.prompted`): the Table 11 prompt to an OpenAI-compatible endpoint or
  a local LM;
* ``default`` (:mod:`affectlab.openstates.predictors.embedded`): the embedded CPU predictor behind
  ``detect --open``.

Saved predictors are directories with ``open_states.json`` naming their kind.
"""

from __future__ import annotations

import json
from pathlib import Path

from affectlab.errors import ModelFileError
from affectlab.openstates.predictors.base import CONFIG, StatePredictor


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
    if kind == "default":
        from affectlab.openstates.predictors.embedded import EmbeddedStatePredictor

        return EmbeddedStatePredictor.load(directory)
    raise ModelFileError(f"{path}: unknown predictor kind {kind!r}")
