"""``llm``: open affective states from a prompted LLM (an OpenAI-compatible endpoint, or a local causal LM
directory generating greedily) with the MASIVE Table 11 prompts (verbatim), every sentinel
shown as ``<MASK>``; the reply is parsed as a comma-separated list, one term per mask, after the App. D.2 clean-up
("Here is a list of terms to fill each <MASK>: " -> only what follows the colon).

A reply that does not give exactly one term per mask is invalid: its masks get no prediction (scored as misses,
as the paper's Table 4 scores every sample) and count in ``invalid_rate`` (Table 12 reports the valid share). One
reply per text gives one term per mask, so top-3 and top-5 equal top-1 here; the paper sampled Mixtral five times
and re-ranked by log-probability, which a chat endpoint does not return in general.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from affectlab.errors import InputError
from affectlab.llm.backends import CachedBackend, LLMBackend, LocalCausalLMBackend, OpenAICompatibleBackend
from affectlab.openstates.collect.masking import SENTINEL
from affectlab.openstates.predictors.base import Ranked, TermScore, n_masks

PROMPTS = {
    "en": "Determine the most likely term reflecting a feeling to replace each <MASK> in the following text: "
    '"<MASKED_POST>" Provide a single emotion term for each <MASK> token. Do not introduce the answer, respond ONLY '
    "with a comma-separated list of lowercase terms:",
    "es": "Determine the most likely term reflecting a feeling to replace each <MASK> in the following text: "
    '"<MASKED_POST>" Provide a single emotion term for each <MASK> token. Do not introduce the answer, respond ONLY '
    "with a comma-separated list of lowercase terms in Spanish:",
}
"""MASIVE Table 11."""
INTRO = re.compile(r"^\s*here (?:is|are)[^:\n]*:\s*", re.IGNORECASE)
WORD_TERM = re.compile(r"^[^\W\d_]+(?:[-' ][^\W\d_]+){0,2}$")


def prompt_for(masked: str, lang: str) -> str:
    """The Table 11 prompt with the post's sentinels as ``<MASK>``."""
    if lang not in PROMPTS:
        raise InputError(f"no MASIVE prompt for language {lang!r} (en, es)")
    return PROMPTS[lang].replace("<MASKED_POST>", SENTINEL.sub("<MASK>", masked))


def parse_reply(reply: str, n: int) -> list[str] | None:
    """One lowercase term per mask, or None when the reply is not a list of exactly ``n`` short terms."""
    text = INTRO.sub("", reply.strip()).strip().rstrip(".")
    if "\n" in text:  # reasoning before the answer: the list is the last line
        text = text.strip().splitlines()[-1]
    terms = [t.strip().strip("\"'*").strip().lower() for t in text.split(",")]
    if len(terms) != n or not all(WORD_TERM.match(t) for t in terms):
        return None
    return terms


class LLMStatePredictor:
    """Asks ``model`` at ``base_url`` (or any :class:`LLMBackend`) to fill the masks."""

    kind = "llm"

    def __init__(self, model: str, base_url: str | None = None, backend: LLMBackend | None = None, **options: Any):
        if backend is None:
            if base_url:
                backend = CachedBackend(OpenAICompatibleBackend(base_url, model, max_tokens=64, **options))
            elif Path(model).is_dir():
                backend = CachedBackend(LocalCausalLMBackend(model, max_tokens=64, stop=("\n\n",)))
            else:
                raise InputError(
                    "the llm open-state predictor needs --llm-base-url (an OpenAI-compatible endpoint) "
                    "or a local causal LM directory as llm:PATH"
                )
        self.backend = backend
        self.model = model
        self.n_invalid_ = 0
        self.n_ = 0
        self._counting = threading.Lock()  # threads predicting at once must not lose each other's counts

    @property
    def invalid_rate(self) -> float:
        """Share of replies that were not one term per mask."""
        return self.n_invalid_ / self.n_ if self.n_ else 0.0

    def predict(self, masked: Sequence[str], langs: Sequence[str], k: int = 5) -> list[Ranked]:
        """Per text, per mask, the one term of the reply (none for an invalid reply)."""
        replies = self.backend.complete([prompt_for(text, lang) for text, lang in zip(masked, langs, strict=True)])
        out: list[Ranked] = []
        invalid = 0
        for text, reply in zip(masked, replies, strict=True):
            n = n_masks(text)
            terms = parse_reply(reply, n)
            if terms is None:
                invalid += 1
                out.append([[] for _ in range(n)])
            else:
                out.append([[TermScore(term, 1.0)] for term in terms])
        with self._counting:
            self.n_ += len(out)
            self.n_invalid_ += invalid
        return out

    def save(self, directory: str | Path) -> None:
        """An LLM predictor is its endpoint and model name; there is nothing to save."""
        raise InputError("an llm predictor has nothing to save: pass llm:MODEL and --llm-base-url again")
