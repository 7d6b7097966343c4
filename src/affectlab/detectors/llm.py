"""Emotion detection by prompting a generative LLM, as EmoBench-UA section 5.3 does (Table 1's LLM rows).

Each text is put into the App. G prompt (:mod:`affectlab.llm.prompts`), the model's reply is parsed into
labels (:mod:`affectlab.llm.parsing`) and the labels become 0/1 probabilities. The decision is fixed
(threshold 0.5, or arg-max over the parsed label for single-label spaces): tuning it on dev would spend a dev run
of API calls to move thresholds between 0 and 1, which changes nothing. Every prediction records the share of
replies that named no label (:meth:`LLMDetector.diagnostics`), which MASIVE App. F.1 shows decides how LLM results
compare.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from affectlab.detectors.base import Detector
from affectlab.detectors.batch import Inputs, as_inputs
from affectlab.detectors.capabilities import Capabilities, KindFacts
from affectlab.errors import InputError
from affectlab.llm.backends import CachedBackend, LLMBackend, LocalCausalLMBackend, OpenAICompatibleBackend
from affectlab.llm.parsing import AnswerParser
from affectlab.llm.prompts import PROMPT_LANGUAGES, Shot, draw_shots, prompt_template
from affectlab.loaded_once import LoadedOnce


class LLMDetector(Detector):
    """A generative LLM asked with EmoBench-UA's prompts.

    ``model`` names the model at ``base_url`` (any OpenAI-compatible endpoint; the key comes from
    ``AFFECTLAB_LLM_API_KEY`` or ``OPENAI_API_KEY``) or, without ``base_url``, is a local Hugging Face causal LM
    directory. ``prompt`` is the instruction language (``en``, ``uk``). ``shots`` None shows the prompt's own
    examples (the paper's seven for EmoBench-UA's labels, none otherwise); a number k draws k training examples
    with ``seed`` in ``fit``. ``concurrency``, ``timeout`` (seconds) and ``max_retries`` shape the requests;
    ``cache`` keeps replies on disk; ``max_tokens`` bounds each reply (room for the step-by-step reasoning the
    prompts ask for).
    """

    name: ClassVar[str] = "llm"
    description: ClassVar[str] = "a generative LLM prompted with the EmoBench-UA App. G prompts (OpenAI API or local)"
    defaults: ClassVar[dict[str, Any]] = {
        "model": None,
        "base_url": None,
        "prompt": "en",
        "shots": None,
        "concurrency": 8,
        "timeout": 60.0,
        "max_retries": 3,
        "cache": True,
        "seed": 0,
        "max_tokens": 256,
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if self.params["prompt"] not in PROMPT_LANGUAGES:
            raise InputError(f"no LLM prompt in {self.params['prompt']!r}; choose one of {', '.join(PROMPT_LANGUAGES)}")
        shots = self.params["shots"]
        if shots is not None and (not isinstance(shots, int) or shots < 0):
            raise InputError(f"shots must be a number of examples (0 or more) or None, not {shots!r}")
        self.shots_: tuple[Shot, ...] | None = None
        self._last_replies: list[str] = []
        self._n_invalid: int | None = None
        self._backends: LoadedOnce[[], LLMBackend] = LoadedOnce(self._make_backend)
        """This detector's one backend (its key is empty): a backend reads the API key and the cache folder from
        the environment when it is made, so detectors with the same parameters do not share one."""

    def _kind_facts(self) -> KindFacts:
        """Training keeps the untuned decision: tuning it would spend a dev run of API calls on 0/1
        probabilities."""
        return {"tunes_decision": False}

    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        """Only the label space is learned (by :meth:`fit`), and the few-shot examples drawn when ``shots`` asks."""
        shots, seed = self.params["shots"], self.params["seed"]
        draw = shots is not None
        self.shots_ = draw_shots(inputs.texts, inputs.contexts, Y, self.label_space, shots, seed) if draw else None

    def prompts(self, X: Any) -> list[str]:
        """The prompt for every text of ``X`` (anything :meth:`predict_proba` accepts)."""
        inputs = as_inputs(X)
        template = prompt_template(self.label_space, self.params["prompt"])
        return [
            template.render(text, context, self.shots_)
            for text, context in zip(inputs.texts, inputs.contexts, strict=True)
        ]

    def _capabilities(self) -> Capabilities:
        """The prompt shows the earlier turns before the text; each prediction counts the replies that named no
        label."""
        return Capabilities(reads_context=True, diagnostics=("n_invalid", "invalid_answer_rate"))

    def diagnostics(self) -> dict[str, Any]:
        """``n_invalid``: replies of the last prediction that named no label (MASIVE App. F.1), and their rate
        ``invalid_answer_rate`` (empty before any prediction)."""
        if self._n_invalid is None:
            return {}
        return {"n_invalid": self._n_invalid, "invalid_answer_rate": self._n_invalid / len(self._last_replies)}

    def last_replies(self) -> list[str]:
        """The model's replies of the last prediction, as generated."""
        return list(self._last_replies)

    def _predict_proba(self, inputs: Inputs) -> np.ndarray:
        replies = self.backend().complete(self.prompts(inputs))
        parser = AnswerParser(self.label_space, self.params["prompt"])
        probs = np.zeros((len(inputs), len(self.label_space)))
        invalid = 0
        for row, reply in enumerate(replies):
            labels, valid = parser.parse(reply)
            invalid += not valid
            probs[row, [self.label_space.labels.index(label) for label in labels]] = 1.0
        self._last_replies, self._n_invalid = list(replies), invalid
        return probs

    def backend(self) -> LLMBackend:
        """Where replies come from, made on first use (``fit`` and loading make no connection); made once when
        threads ask at the same time (a local model is loaded once, and no thread sees half of one)."""
        return self._backends()

    def _make_backend(self) -> LLMBackend:
        p = self.params
        if not p["model"]:
            raise InputError("the llm model needs a model name (llm:MODEL) or a local model directory")
        backend: LLMBackend
        if p["base_url"]:
            backend = OpenAICompatibleBackend(
                p["base_url"],
                p["model"],
                concurrency=p["concurrency"],
                timeout=p["timeout"],
                max_retries=p["max_retries"],
                max_tokens=p["max_tokens"],
            )
        elif not Path(p["model"]).is_dir():
            raise InputError(
                f"{p['model']!r} is not a local model directory; "
                "to ask a served model, give the endpoint's base URL (base_url, --llm-base-url)"
            )
        else:
            stop = prompt_template(self.label_space, p["prompt"]).stop
            backend = LocalCausalLMBackend(p["model"], max_tokens=p["max_tokens"], stop=stop)
        return CachedBackend(backend) if p["cache"] else backend

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        shots = None if self.shots_ is None else [shot.to_dict() for shot in self.shots_]
        return {"shots": shots}, {}

    def _set_state(self, state: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        shots = state["shots"]
        self.shots_ = None if shots is None else tuple(Shot.from_dict(shot) for shot in shots)
