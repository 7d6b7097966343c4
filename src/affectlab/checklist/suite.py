"""The behavioural suite's cases (CheckList, Ribeiro et al. 2020: a test is a template filled from lexicons and an
expectation), read from one data file per language (``data/<tag>.json``, written natively in each language; the
format is ``data/README.md``) and expanded here into :class:`Case` records.

Every template is ``dev`` or ``test``, so a fix chosen on dev is shown to carry to sentence frames it never saw. The
invariance cases are not written but made: each written sentence of a split, edited in a way that keeps its
meaning (:data:`EDITS`), must keep the label set the unedited sentence got.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from affectlab.errors import InputError
from affectlab.labels import EKMAN
from affectlab.loaded_once import loaded_once

DATA_DIR = Path(__file__).with_name("data")
SPLITS = ("dev", "test")
CAPABILITIES = ("negation", "not_a_but_b", "intensifier", "situation", "neutral", "clear", "invariance")
"""The capabilities in the order they are reported; ``invariance`` is computed from the written sentences."""
CAPABILITY_TITLES = {
    "negation": "negation", "not_a_but_b": "not A but B", "intensifier": "intensifiers", "situation": "situations",
    "neutral": "neutral", "clear": "clear", "invariance": "invariance",
}  # fmt: skip
SCOPES = ("not X", "no X at all", "never X", "X? No.")
"""The negation scopes every language covers."""
POLARITY = {"positive": ("joy",), "negative": ("anger", "disgust", "fear", "sadness")}
"""The emotions of each polarity (surprise is neither): a situation of one polarity fails if it is given an emotion
of the other."""
_SLOT = re.compile(r"\{([ABX])\.(\w+)\}")
_EMOTIONS = EKMAN.emotion_labels


@dataclass(frozen=True)
class Case:
    """One sentence of the suite and what it must get: ``present`` (all given), ``any_of`` (at least one given),
    ``absent`` (none given), ``only`` (exactly this label set). ``detail`` is what the capability is reported by
    (a negation's scope, an intensifier's degree, an edit's name)."""

    lang: str
    capability: str
    template: str
    split: str
    text: str
    present: tuple[str, ...] = ()
    any_of: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    only: tuple[str, ...] | None = None
    detail: str = ""

    def passes(self, labels: set[str]) -> bool:
        """Whether a detection with ``labels`` meets the case's expectation."""
        if self.only is not None and labels != set(self.only):
            return False
        if self.any_of and not labels & set(self.any_of):
            return False
        return set(self.present) <= labels and not labels & set(self.absent)

    def expected(self) -> str:
        """The expectation in a few words, for a failure's line."""
        if self.capability == "invariance":
            return f"as unedited: {'+'.join(self.only or ()) or 'nothing'}"
        parts = [f"only {'+'.join(self.only)}"] if self.only is not None else []
        parts += [f"has {'+'.join(self.present)}"] if self.present else []
        parts += [f"one of {'/'.join(self.any_of)}"] if self.any_of else []
        parts += [f"not {'/'.join(self.absent)}"] if self.absent else []
        return ", ".join(parts)


@dataclass(frozen=True)
class Edit:
    """A meaning-keeping edit of the invariance test: its name and the function that applies it (the same text
    always edited the same way)."""

    name: str
    apply: Callable[[str], str] = field(compare=False)


def _typo(text: str) -> str:
    """Two neighbouring letters of the text's longest word swapped (its first letter kept)."""
    words = re.findall(r"\w{4,}", text)
    if not words:
        return text
    word = max(words, key=len)
    middle = len(word) // 2
    swapped = word[:middle] + word[middle + 1] + word[middle] + word[middle + 2 :]
    return text.replace(word, swapped, 1)


EDITS = (
    Edit("case", str.upper),
    Edit("exclamations", lambda text: text.rstrip().rstrip(".。।።") + "!!!"),
    Edit("said twice", lambda text: f"{text} {text}"),
    Edit("mention", lambda text: f"@maria_k {text}"),
    Edit("link", lambda text: f"{text} https://t.co/x7Qp2Lm9Zk"),
    Edit("hashtag", lambda text: f"{text} #monday"),
    Edit("emoji noise", lambda text: f"{text} 📌📌"),
    Edit("typo", _typo),
)
"""The edits that keep a text's meaning, in the order reported."""


@loaded_once
def language_file(lang: str) -> dict[str, Any]:
    """The data file of ``lang`` (a tag of :func:`suite_languages`), read and checked once."""
    path = DATA_DIR / f"{lang}.json"
    if not path.is_file():
        raise InputError(f"the suite has no language {lang!r} (languages: {', '.join(suite_languages())})")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    check_language_file(data)
    return data


def suite_languages() -> tuple[str, ...]:
    """The languages the suite has a data file of."""
    return tuple(sorted(path.stem for path in DATA_DIR.glob("*.json")))


def check_language_file(data: dict[str, Any]) -> None:
    """Refuse a data file whose templates name a slot or an emotion its ``fills`` lack, or an unknown capability,
    split, scope, polarity or label (raises ``ValueError`` naming the template)."""
    ids = [template["id"] for template in data["templates"]]
    if len(ids) != len(set(ids)):
        raise ValueError(f"{data['lang']}: template ids repeat")
    for template in data["templates"]:
        where = f"{data['lang']} template {template['id']!r}"
        if template["capability"] not in CAPABILITIES[:-1] or template["split"] not in SPLITS:
            raise ValueError(f"{where}: unknown capability or split")
        if template["capability"] == "negation" and template.get("scope") not in SCOPES:
            raise ValueError(f"{where}: unknown scope {template.get('scope')!r}")
        labels = [*template.get("fits", ()), *template.get("labels", ())]
        if template["capability"] == "situation" and template.get("polarity") not in POLARITY:
            raise ValueError(f"{where}: unknown polarity")
        if any(label not in _EMOTIONS for label in labels):
            raise ValueError(f"{where}: unknown label in {labels}")
        for _, slot in _SLOT.findall(template["text"]):
            fills = data["fills"].get(slot, {})
            missing = [e for e in template.get("emotions", _EMOTIONS) if not fills.get(e)]
            if missing:
                raise ValueError(f"{where}: slot {slot!r} has no words for {', '.join(missing)}")


def _filled(text: str, fills: dict[str, Any], chosen: dict[str, str], index: int) -> str:
    """``text`` with each ``{A.slot}`` replaced by word ``index`` (cycled) of that slot for the emotion ``A``."""

    def word(match: re.Match[str]) -> str:
        words = fills[match.group(2)][chosen[match.group(1)]]
        return str(words[index % len(words)])

    return _SLOT.sub(word, text)


def _template_cases(lang: str, template: dict[str, Any], fills: dict[str, Any]) -> list[Case]:
    """The cases of one template: per emotion (and word) for X, per ordered pair of emotions for A and B, the
    sentence itself where it has no slot."""
    capability, text = template["capability"], template["text"]
    base = {"lang": lang, "capability": capability, "template": template["id"], "split": template["split"]}
    emotions = tuple(template.get("emotions", _EMOTIONS))
    slots = {name for name, _ in _SLOT.findall(text)}
    if capability == "not_a_but_b":
        pairs = [(a, b) for a, b in itertools.permutations(emotions, 2)]
        return [Case(**base, text=_filled(text, fills, {"A": a, "B": b}, i), present=(b,), absent=(a,))
                for i, (a, b) in enumerate(pairs)]  # fmt: skip
    if "X" in slots:
        widths = [len(fills[slot][e]) for _, slot in _SLOT.findall(text) for e in emotions]
        cases = []
        for emotion, index in itertools.product(emotions, range(max(widths))):
            filled = _filled(text, fills, {"X": emotion}, index)
            if capability == "negation":
                cases.append(Case(**base, text=filled, absent=(emotion,), detail=template["scope"]))
            else:
                cases.append(Case(**base, text=filled, present=(emotion,), detail=template.get("degree", "")))
        return list(dict.fromkeys(cases))  # a slot with fewer words repeats none
    if capability == "situation":
        opposite = POLARITY["negative" if template["polarity"] == "positive" else "positive"]
        return [Case(**base, text=text, any_of=tuple(template["fits"]), absent=opposite, detail=template["polarity"])]
    if capability == "neutral":
        return [Case(**base, text=text, only=(str(EKMAN.none_label),))]
    return [Case(**base, text=text, present=tuple(template["labels"]))]


def written_cases(lang: str, split: str | None = None) -> list[Case]:
    """Every written case of ``lang`` (of one split, or both)."""
    data = language_file(lang)
    return [
        case
        for template in data["templates"]
        if split in (None, template["split"])
        for case in _template_cases(lang, template, data["fills"])
    ]


SOURCES = ("situation", "neutral", "clear")
"""The capabilities whose written sentences (one per template) the invariance test edits."""


def invariance_sources(cases: list[Case]) -> list[Case]:
    """The written sentences the invariance test edits: those of the :data:`SOURCES` capabilities."""
    return [case for case in cases if case.capability in SOURCES]


def edited(case: Case, edit: Edit) -> Case:
    """The invariance case of ``case`` under ``edit`` (its expectation is set once the unedited text is scored)."""
    return Case(case.lang, "invariance", case.template, case.split, edit.apply(case.text), detail=edit.name)
