"""Prompts for emotion classification by a generative LLM, for any label space (EmoBench-UA section 5.3).

A label space with EmoBench-UA's six emotions and a none label is asked with the paper's own prompts (Appendix G,
English or Ukrainian instructions, stored verbatim in ``templates/emobench_ua.yaml``) and, by default, the paper's
seven examples. Any other space (GoEmotions' 28 labels, EmoContext's 4) gets the same prompt with its own label
words in the prompt's language (``templates/generic.yaml``). Few-shot examples can instead be drawn from train
(:func:`draw_shots`); a text's earlier dialogue turns (EmoContext) are shown before it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.errors import InputError
from affectlab.extras import require
from affectlab.labels import LabelSpace

PROMPTS_DIR = Path(__file__).parent / "templates"
PROMPT_LANGUAGES = ("en", "uk")
NONE_KEY = "none"
"""The key of the "no emotion" answer in a preset's ``words`` (the space's own none label may be named otherwise)."""


@dataclass(frozen=True)
class Shot:
    """One few-shot example: a text, its earlier dialogue turns and its labels (names in the label space)."""

    text: str
    labels: tuple[str, ...]
    context: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, saved with the detector."""
        return {"text": self.text, "labels": list(self.labels), "context": list(self.context)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Shot:
        """Inverse of :meth:`to_dict`."""
        return cls(str(data["text"]), tuple(data["labels"]), tuple(data.get("context") or ()))


@dataclass(frozen=True)
class PromptTemplate:
    """A prompt in one language: ``instruction``, then ``examples_header`` and each example as ``text_label``
    text / ``answer_label`` answer, then ``query`` with its ``placeholder`` replaced by the text, then
    ``answer_label``. ``words`` gives each label's answer word; ``examples`` are the template's own shots."""

    lang: str
    instruction: str
    examples_header: str
    text_label: str
    answer_label: str
    query: str
    placeholder: str
    context_label: str
    dialogue_rule: str
    words: Mapping[str, str]
    examples: tuple[Shot, ...]
    source: str

    def answer(self, labels: Sequence[str]) -> str:
        """The answer an example shows for ``labels``: their words, comma-separated (EmoBench-UA App. G)."""
        return ", ".join(self.words[label] for label in labels)

    def render(self, text: str, context: Sequence[str] = (), shots: Sequence[Shot] | None = None) -> str:
        """The whole prompt for ``text`` (after its earlier turns ``context``); ``shots`` default to the
        template's own examples."""
        shots = self.examples if shots is None else shots
        dialogue = bool(context) or any(shot.context for shot in shots)
        lines = [self.instruction + (self.dialogue_rule if dialogue else "")]
        if shots:
            lines.append(self.examples_header)
        for shot in shots:
            lines += [*self._context_lines(shot.context), f"{self.text_label} {_one_line(shot.text)}"]
            lines.append(f"{self.answer_label} {self.answer(shot.labels)}")
        lines += self._context_lines(context)
        lines += [self.query.replace(self.placeholder, _one_line(text), 1), self.answer_label]
        return "\n".join(lines)

    @property
    def stop(self) -> tuple[str, ...]:
        """Where a raw continuation has started a new example of its own and the answer is over."""
        query_label = self.query.split(self.placeholder)[0].strip()
        return tuple(dict.fromkeys(f"\n{label}" for label in (self.text_label, query_label, self.context_label)))

    def _context_lines(self, context: Sequence[str]) -> list[str]:
        return [self.context_label, *(_one_line(turn) for turn in context)] if context else []


def _one_line(text: str) -> str:
    """``text`` with its line breaks as spaces: a line of its own that read ``Answer: joy`` would end the prompt."""
    return " ".join(text.split())


@cache
def _load(name: str) -> dict[str, Any]:
    yaml = require("yaml", "llm", "reading the LLM prompts")
    data: dict[str, Any] = yaml.safe_load((PROMPTS_DIR / name).read_text(encoding="utf-8"))
    return data


def uses_preset(space: LabelSpace) -> bool:
    """Whether ``space`` is EmoBench-UA's: its six emotions plus a none label, so the paper's prompts fit it."""
    return space.none_label is not None and set(space.emotion_labels) == set(_load("emobench_ua.yaml")["labels"])


def prompt_template(space: LabelSpace, lang: str = "en") -> PromptTemplate:
    """The prompt for ``space`` with instructions in ``lang`` (``en`` or ``uk``): EmoBench-UA's App. G prompt
    and examples for its label space, otherwise the generic prompt listing the space's labels, without examples."""
    if lang not in PROMPT_LANGUAGES:
        raise InputError(f"no LLM prompt in {lang!r}; choose one of {', '.join(PROMPT_LANGUAGES)}")
    return _preset(space, lang) if uses_preset(space) else _generic(space, lang)


def _preset(space: LabelSpace, lang: str) -> PromptTemplate:
    data = _load("emobench_ua.yaml")["prompts"][lang]
    none_label = str(space.none_label)  # uses_preset: the space has one
    words = {(none_label if key == NONE_KEY else key): word for key, word in data["words"].items()}
    label_of = {word: label for label, word in words.items()}
    examples = tuple(Shot(example["text"], (label_of[example["answer"]],)) for example in data["examples"])
    return _template(lang, data, data["instruction"], words, examples, source="EmoBench-UA Appendix G")


def _generic(space: LabelSpace, lang: str) -> PromptTemplate:
    data = _load("generic.yaml")[lang]
    words = {label: space.word(label, lang) for label in space.labels}
    labels = ", ".join(words[label] for label in space.emotion_labels)
    none_rule = data["none_rule"].format(none=words[space.none_label]) if space.none_label else ""
    key = "instruction_multi" if space.multi_label else "instruction_single"
    instruction = data[key].format(labels=labels, none_rule=none_rule)
    return _template(lang, data, instruction, words, (), source="affectlab generic prompt")


def _template(
    lang: str,
    layout: Mapping[str, str],
    instruction: str,
    words: Mapping[str, str],
    examples: tuple[Shot, ...],
    source: str,
) -> PromptTemplate:
    """A template with the example and query lines of ``layout`` (a prompt file's entry for ``lang``); the
    dialogue lines are the generic prompt's, since the paper's prompts show no dialogue."""
    generic = _load("generic.yaml")[lang]
    return PromptTemplate(
        lang=lang,
        instruction=instruction,
        examples_header=layout["examples_header"],
        text_label=layout["text_label"],
        answer_label=layout["answer_label"],
        query=layout["query"],
        placeholder=layout["placeholder"],
        context_label=generic["context_label"],
        dialogue_rule=generic["dialogue_rule"],
        words=words,
        examples=examples,
        source=source,
    )


def draw_shots(
    texts: Sequence[str], contexts: Sequence[Sequence[str]], Y: np.ndarray, space: LabelSpace, k: int, seed: int = 0
) -> tuple[Shot, ...]:
    """``k`` training examples, drawn with ``seed`` so that each label in turn gets one (as the App. G prompts
    show one example per emotion and one neutral) until ``k`` are drawn or train runs out; shown in random order."""
    rng = np.random.default_rng(seed)
    pools = [list(rng.permutation(np.flatnonzero(Y[:, j]))) for j in range(len(space))]
    chosen: list[int] = []
    while len(chosen) < min(k, len(texts)) and any(pools):
        for j in rng.permutation(len(space)):
            while pools[j] and pools[j][0] in chosen:
                pools[j].pop(0)
            if pools[j] and len(chosen) < k:
                chosen.append(int(pools[j].pop(0)))
    return tuple(
        Shot(texts[i], tuple(space.labels[j] for j in np.flatnonzero(Y[i])), tuple(contexts[i]))
        for i in rng.permutation(chosen)
    )
