"""Open-ended affective-state predictors (MASIVE): given a text with T5 sentinels where feelings were, return for
each mask a ranked list of terms with scores. Three kinds share this interface:

* ``seq2seq`` (:mod:`affectlab.models.open_seq2seq`): a fine-tuned T5/mT5 from a local directory, beam search;
* ``llm`` (:mod:`affectlab.models.open_llm`): the Table 11 prompt to an OpenAI-compatible endpoint or local LM;
* ``default`` (:mod:`affectlab.models.open_default`): the embedded CPU predictor behind ``detect --open``.

Saved predictors are directories with ``open_states.json`` naming their kind.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from affectlab.collect.masking import SENTINEL, count_masks, sentinel
from affectlab.errors import InputError, ModelFileError

CONFIG = "open_states.json"
APPENDED = {"en": "I feel {mask}.", "es": "Me siento {mask}."}
"""Appended to a text without masks (section 4.2.2 appends "I feel <extra_id_0>"; Spanish: "Me siento")."""
LANGS = tuple(APPENDED)


@dataclass(frozen=True)
class TermScore:
    """A predicted term and its score (higher is more likely; what the score is depends on the predictor)."""

    term: str
    score: float

    def to_dict(self) -> dict[str, Any]:
        """``{"term", "score"}``."""
        return {"term": self.term, "score": round(self.score, 6)}


Ranked = list[list[TermScore]]
"""For one text: per mask, the terms most likely first."""


class StatePredictor(Protocol):
    """What every open-state predictor does."""

    kind: str

    def predict(self, masked: Sequence[str], langs: Sequence[str], k: int = 5) -> list[Ranked]: ...

    def save(self, directory: str | Path) -> None: ...


def prepare(text: str, lang: str) -> str:
    """``text`` ready for a predictor: its sentinels checked (numbered from 0, at most 100), or "I feel
    <extra_id_0>." appended when it has none."""
    if lang not in APPENDED:
        raise InputError(f"unknown language {lang!r} for open affective states (known: {', '.join(LANGS)})")
    if not isinstance(text, str) or not text.strip():
        raise InputError("the text is empty")
    if count_masks(text) == 0:
        return f"{text.rstrip()} {APPENDED[lang].format(mask=sentinel(0))}"
    return text


def n_masks(text: str) -> int:
    """How many sentinels ``text`` has."""
    return len(SENTINEL.findall(text))


def terms_only(ranked: Sequence[Ranked]) -> list[list[list[str]]]:
    """The terms of predictions, for the metrics."""
    return [[[t.term for t in mask] for mask in text] for text in ranked]


def write_config(directory: str | Path, kind: str, settings: dict[str, Any]) -> None:
    """Write ``open_states.json``."""
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    body = {"kind": kind, **settings}
    (path / CONFIG).write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def load_predictor(directory: str | Path) -> StatePredictor:
    """A saved predictor of any kind."""
    path = Path(directory) / CONFIG
    if not path.is_file():
        raise ModelFileError(f"{str(directory)!r} is not a saved open-state predictor (no {CONFIG})")
    config = json.loads(path.read_text(encoding="utf-8"))
    kind = config.get("kind")
    if kind == "seq2seq":
        from affectlab.models.open_seq2seq import Seq2SeqStatePredictor

        return Seq2SeqStatePredictor.load(directory)
    if kind == "default":
        from affectlab.models.open_default import EmbeddedStatePredictor

        return EmbeddedStatePredictor.load(directory)
    raise ModelFileError(f"{path}: unknown predictor kind {kind!r}")
