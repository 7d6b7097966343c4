"""The interface every open-state predictor shares (MASIVE): given a text with T5 sentinels where feelings were,
return for each mask a ranked list of terms with scores; preparing texts, and the config file of a saved predictor.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from affectlab.errors import InputError
from affectlab.openstates.collect.masking import SENTINEL, count_masks, sentinel
from affectlab.openstates.languages import OPEN_LANGS, OPEN_LANGUAGES

CONFIG = "open_states.json"


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
    """``text`` ready for a predictor: its sentinels checked (numbered from 0, at most 100), or its language's
    "I feel <extra_id_0>." appended when it has none (:meth:`~affectlab.openstates.languages.OpenLanguage.appended`:
    section 4.2.2; Spanish "Me siento")."""
    if lang not in OPEN_LANGUAGES:
        raise InputError(f"unknown language {lang!r} for open affective states (known: {', '.join(OPEN_LANGS)})")
    if not isinstance(text, str) or not text.strip():
        raise InputError("the text is empty")
    if count_masks(text) == 0:
        return f"{text.rstrip()} {OPEN_LANGUAGES[lang].appended(sentinel(0))}"
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
