"""An annotation protocol as a file (issue 44): what annotators see and answer, who answers how often, the quality
rules, and how the answers become labels, in one versioned YAML file that ``affectlab annotate init`` writes from
a preset (:mod:`affectlab.annotation.presets`) and every collection command reads.

The schema is a set of pydantic models (:class:`Protocol`): each field is checked when the file is read, and so are
the facts that join fields (a stage's labels are the protocol's, a gate names an earlier stage, the overlap is not
above the annotator pool, an intensity has a scale, an example's intensity is on it). A file that breaks one is an
:class:`~affectlab.errors.InputError` of one line that names the file and the field.

**Quality rules are data** (:class:`Rule`): over the ``window`` of an annotator's last pages, a condition
(:class:`When`: each page faster than a duration, every page skipped, no break as long as a duration, control
accuracy below a share, the same answers as one other annotator or each text's first too often, or as the others
too seldom) and an
action (:class:`Then`: a ban, permanent or for a duration; a pause; a ban until the training and exam are passed
again). Durations are written ``15s``, ``30m``, ``2h`` or ``1d``. Every time a rule measures is the server's, never
the client's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from affectlab.errors import InputError

PROTOCOL_FORMAT = "affectlab-annotation-protocol"
PROTOCOL_VERSION = 1
MAX_PAGE_SIZE = 100
"""The most items a page holds: the collection service takes at most this many answers in one submission."""
"""The format name and the newest version this affectlab reads."""
AGGREGATIONS = ("dawid-skene", "majority", "glad", "mace", "mmsr", "wawa", "votes", "brighter")
"""How answers become labels (:mod:`~affectlab.annotation.aggregation`): crowd-kit's models, ``votes`` (a label is
present when at least ``overlap.min_votes`` annotators chose it: GoEmotions) or BRIGHTER's rule."""
ANY_LANGUAGE = "any"
"""A protocol's ``languages`` entry for texts in any language (BRIGHTER's)."""
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*(s|m|h|d)$")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def duration_seconds(text: str) -> float:
    """Seconds in a duration written ``15s``, ``30m``, ``2h`` or ``1d`` (``InputError`` otherwise)."""
    match = _DURATION.match(str(text).strip())
    if match is None:
        raise InputError(f"{text!r} is not a duration (write 15s, 30m, 2h or 1d)")
    return float(match.group(1)) * _SECONDS[match.group(2)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Localised = dict[str, str]
"""A text in each interface language, by language code (``{"uk": "...", "en": "..."}``)."""


class Choice(_Strict):
    """A label annotators can choose: its id, its name and a definition in each interface language, an emoji and
    a group (GoEmotions' sentiment)."""

    name: str = Field(min_length=1)
    text: Localised
    description: Localised = {}
    emoji: str | None = None
    group: str | None = None


class Intensity(_Strict):
    """How strongly a chosen label is expressed: ``levels`` (values 1..n) named in each interface language."""

    levels: dict[str, list[str]]
    required: bool = True

    @field_validator("levels")
    @classmethod
    def _has_a_scale(cls, levels: dict[str, list[str]]) -> dict[str, list[str]]:
        if not levels or any(not names for names in levels.values()):
            raise ValueError("an intensity needs a scale: at least one level named in each interface language")
        if len({len(names) for names in levels.values()}) > 1:
            raise ValueError("every interface language must name the same number of intensity levels")
        return levels

    @property
    def n_levels(self) -> int:
        """How many levels the scale has."""
        return len(next(iter(self.levels.values())))


class Example(_Strict):
    """A text with its answer: ``labels`` (empty: the none choice), an intensity per label, and an explanation in
    each interface language (training shows it after the annotator answers)."""

    text: str = Field(min_length=1)
    labels: list[str] = []
    intensities: dict[str, int] = {}
    explanation: Localised = {}
    source: str | None = None


class Gate(_Strict):
    """Which items a stage receives from stage ``after``: ``has-label``, those whose aggregated labels there hold
    one of its labels; ``not-none``, every item not aggregated there as the none choice (one of its labels or the
    protocol's ``other_choice``: EmoBench-UA section 3.3.1, "a label other than None")."""

    after: str
    when: Literal["has-label", "not-none"] = "has-label"


class Training(_Strict):
    """Examples shown with their answers and explanations before any work (intensities may be left out)."""

    examples: list[Example] = Field(min_length=1)


class Exam(_Strict):
    """Items answered like real pages, their answers hidden; passed at ``pass_accuracy`` (share of items whose
    labels are exactly right). An annotator who fails may take it again after the training, up to ``attempts``
    times in a row (None: without limit); one sent back to training by a rule has ``attempts`` again."""

    examples: list[Example] = Field(min_length=1)
    pass_accuracy: float = Field(gt=0.0, le=1.0)
    attempts: int | None = Field(default=None, ge=1)


class Stage(_Strict):
    """One annotation project: the labels it asks about, its instructions, its training and exam (their answers
    in the stage's labels), and the gate into it."""

    name: str = Field(min_length=1)
    labels: list[str] = Field(min_length=1)
    instructions: Localised
    gate: Gate | None = None
    training: Training | None = None
    exam: Exam | None = None


class Overlap(_Strict):
    """Annotators per item; ``extra`` more where no label has ``min_votes`` votes after the first round
    (GoEmotions: 3, then 2 more)."""

    per_item: int = Field(ge=1)
    extra: int = Field(default=0, ge=0)
    min_votes: int = Field(default=2, ge=1)


class Controls(_Strict):
    """Control tasks mixed into the pages at random positions, this share of the items shown. The control items
    and their known answers are the owner's (a file of ``item,label,value`` rows, as ``annotate aggregate
    --controls`` reads), never part of the protocol annotators can see."""

    share: float = Field(gt=0.0, lt=1.0)


class AgreementWithOne(_Strict):
    """Copying (ours, issue 53; no paper's rule): over the window's answered pages, the annotator gave the same
    choice as one other annotator, who answered those items before, on at least ``at_least`` of the ``min_shared``
    or more items they share (items both called "no emotion" do not count: agreeing on nothing shows nothing)."""

    at_least: float = Field(gt=0.0, le=1.0)
    min_shared: int = Field(ge=1)


class AgreementWithFirst(AgreementWithOne):
    """Copying whoever answered first (ours, issue 53): over the window's answered pages, the annotator gave the
    same choice as each item's first answer by someone else on at least ``at_least`` of the ``min_shared`` or more
    items that had one (both "no emotion" left out): one who copies an answer sheet, or whatever answer a text
    already has, agrees with no one person but always with the first."""


class AgreementWithOthers(_Strict):
    """Guessing (ours, issue 53): over the window's answered pages, the annotator gave the same choice as the
    earlier annotators of the same items on fewer than ``below`` of the ``min_shared`` or more (item, earlier answer)
    pairs, items both called "no emotion" left out. It stops one who copies control tasks and guesses the rest,
    whom the control rule cannot see."""

    below: float = Field(gt=0.0, le=1.0)
    min_shared: int = Field(ge=1)


class When(_Strict):
    """A rule's condition over the window's pages: exactly one field set."""

    each_page_faster_than: str | None = None
    all_skipped: bool | None = None
    without_break: str | None = None
    control_accuracy_below: float | None = Field(default=None, gt=0.0, le=1.0)
    agreement_with_one: AgreementWithOne | None = None
    agreement_with_first: AgreementWithFirst | None = None
    agreement_with_others: AgreementWithOthers | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> When:
        set_fields = [name for name, value in self.model_dump().items() if value is not None]
        if len(set_fields) != 1:
            raise ValueError(f"a rule's condition sets exactly one of {', '.join(When.model_fields)}")
        for name in ("each_page_faster_than", "without_break"):
            value = getattr(self, name)
            if value is not None:
                _checked_duration(value)
        return self


class Then(_Strict):
    """A rule's action: exactly one field set. ``ban``: ``permanent`` or a duration; ``pause``: a duration;
    ``retrain``: banned until the training and exam are passed again."""

    ban: str | None = None
    pause: str | None = None
    retrain: bool | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Then:
        set_fields = [name for name, value in self.model_dump().items() if value is not None]
        if len(set_fields) != 1:
            raise ValueError(f"a rule's action sets exactly one of {', '.join(Then.model_fields)}")
        if self.ban is not None and self.ban != "permanent":
            _checked_duration(self.ban)
        if self.pause is not None:
            _checked_duration(self.pause)
        return self


class Rule(_Strict):
    """Over an annotator's last ``window`` pages (the window must be full), ``when`` holds: do ``then``."""

    name: str = Field(min_length=1)
    window: int = Field(ge=1)
    when: When
    then: Then


class Selection(_Strict):
    """The defaults of ``annotate select`` for this protocol (EmoBench-UA section 3.2)."""

    min_words: int = Field(default=1, ge=1)
    max_words: int | None = Field(default=None, ge=1)
    languages: list[str] = []
    neutral_share: float = Field(default=0.0, ge=0.0, lt=1.0)

    @model_validator(mode="after")
    def _words_in_order(self) -> Selection:
        if self.max_words is not None and self.max_words < self.min_words:
            raise ValueError(f"max_words {self.max_words} is below min_words {self.min_words}: no text would fit")
        return self


class Aggregation(_Strict):
    """How answers become labels: ``method`` (:data:`AGGREGATIONS`), the confidence an item needs in every stage,
    and whether control answers are taken as known truths (Dawid-Skene only)."""

    method: str
    min_confidence: float | None = Field(default=None, gt=0.0, le=1.0)
    controls_as_truth: bool = False

    @model_validator(mode="after")
    def _known_method(self) -> Aggregation:
        if self.method not in AGGREGATIONS:
            raise ValueError(f"unknown aggregation {self.method!r} (known: {', '.join(AGGREGATIONS)})")
        if self.controls_as_truth and self.method != "dawid-skene":
            raise ValueError("controls_as_truth is for dawid-skene only")
        return self


class Protocol(_Strict):
    """A whole annotation protocol (the module docstring)."""

    format: Literal["affectlab-annotation-protocol"]
    version: int
    name: str = Field(min_length=1)
    description: str = ""
    source: str = ""
    languages: list[str] = Field(min_length=1)
    interface_languages: list[str] = Field(min_length=1)
    labels: list[Choice] = Field(min_length=1)
    none_choice: Choice | None = None
    other_choice: Choice | None = None
    """An exclusive choice beside the none choice: the text holds an emotion the stage does not ask about
    (EmoBench-UA's "other emotions"). Each stage's answers rate it like a label, so it is aggregated and can open a
    ``not-none`` gate; it is never one of an item's labels."""
    multi_label: bool = True
    intensity: Intensity | None = None
    shows_context: bool = False
    difficult_flag: bool = False
    skip: bool = True
    flag: bool = True
    page_size: int = Field(ge=1, le=MAX_PAGE_SIZE)
    overlap: Overlap
    pool: int | None = Field(default=None, ge=1)
    stages: list[Stage] = Field(min_length=1)
    merge: Literal["union", "emobench-ua"] = "union"
    selection: Selection = Selection()
    controls: Controls | None = None
    rules: list[Rule] = []
    aggregation: Aggregation
    messages: dict[str, dict[str, str]] = {}
    """The annotation page's own words, by interface language and message key (the keys of the page's catalogue,
    ``collection/pages/messages.json``): a language the catalogue lacks, or a message reworded."""

    @field_validator("messages")
    @classmethod
    def _known_messages(cls, messages: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        known = page_message_keys()
        for language, texts in messages.items():
            unknown = sorted(set(texts) - known)
            if unknown:
                raise ValueError(f"messages.{language}: no page message {unknown[0]!r} (the keys of the page's "
                                 f"catalogue, e.g. {', '.join(sorted(known)[:3])})")  # fmt: skip
        return messages

    @field_validator("languages", "interface_languages")
    @classmethod
    def _language_tags(cls, languages: list[str]) -> list[str]:
        from affectlab.langid import check_lang

        for tag in languages:
            if tag != ANY_LANGUAGE:
                try:
                    check_lang(tag, "language")
                except InputError as exc:
                    raise ValueError(str(exc)) from None
        return languages

    @field_validator("version")
    @classmethod
    def _readable_version(cls, version: int) -> int:
        if not 1 <= version <= PROTOCOL_VERSION:
            raise ValueError(f"version {version} is not one this affectlab reads (1 to {PROTOCOL_VERSION})")
        return version

    @model_validator(mode="after")
    def _consistent(self) -> Protocol:
        names = [choice.name for choice in self.labels]
        _unique(names, "label")
        _unique([stage.name for stage in self.stages], "stage")
        _unique([rule.name for rule in self.rules], "rule")
        if self.none_choice is not None and self.none_choice.name in names:
            raise ValueError(f"none_choice {self.none_choice.name!r} is also a label")
        self._check_other_choice(names)
        self._check_texts()
        self._check_stages(set(names))
        if self.pool is not None and self.overlap.per_item + self.overlap.extra > self.pool:
            raise ValueError(
                f"overlap {self.overlap.per_item + self.overlap.extra} per item is above the annotator pool of "
                f"{self.pool}"
            )
        for stage in self.stages:
            parts = [("training", stage.training, False), ("exam", stage.exam, True)]
            for part, holder, answered in parts:
                for i, example in enumerate(holder.examples if holder else []):
                    where = f"stages.{stage.name}.{part}.examples[{i}]"
                    self._check_example(example, where, set(stage.labels), answered)
        if self.aggregation.controls_as_truth and self.controls is None:
            raise ValueError("aggregation.controls_as_truth needs controls")
        if any(rule.when.control_accuracy_below is not None for rule in self.rules) and self.controls is None:
            raise ValueError("a rule on control accuracy needs controls")
        untrained = [s.name for s in self.stages if s.training is None or s.exam is None]
        if any(rule.then.retrain for rule in self.rules) and untrained:
            raise ValueError(
                f"a rule sends annotators back to training, but stage {untrained[0]!r} has no training and exam"
            )
        return self

    def _check_other_choice(self, names: list[str]) -> None:
        other = self.other_choice
        if other is not None and (other.name in names or (self.none_choice and other.name == self.none_choice.name)):
            raise ValueError(f"other_choice {other.name!r} is also a label or the none choice")
        if other is not None and self.none_choice is None:
            raise ValueError("other_choice needs a none_choice to stand apart from")
        gated = [s.name for s in self.stages if s.gate is not None and s.gate.when == "not-none"]
        if gated and other is None:
            raise ValueError(f"stage {gated[0]!r} has a not-none gate, which needs an other_choice (without one, "
                             "the none choice may hold other emotions)")  # fmt: skip

    def _check_texts(self) -> None:
        wanted = set(self.interface_languages)
        localised = [(f"labels.{c.name}.text", c.text) for c in self.labels]
        localised += [("none_choice.text", self.none_choice.text)] if self.none_choice else []
        localised += [("other_choice.text", self.other_choice.text)] if self.other_choice else []
        localised += [(f"stages.{s.name}.instructions", s.instructions) for s in self.stages]
        for where, texts in localised:
            missing = wanted - set(texts)
            if missing:
                raise ValueError(f"{where} has no text in {', '.join(sorted(missing))}")
        if self.intensity is not None and set(self.intensity.levels) != wanted:
            raise ValueError(f"intensity.levels must name the levels in {', '.join(self.interface_languages)}")

    def _check_stages(self, names: set[str]) -> None:
        earlier: set[str] = set()
        for stage in self.stages:
            unknown = [label for label in stage.labels if label not in names]
            if unknown:
                raise ValueError(f"stage {stage.name!r} names an unknown label {unknown[0]!r}")
            if stage.gate is not None and stage.gate.after not in earlier:
                raise ValueError(f"stage {stage.name!r} has a gate after {stage.gate.after!r}, not an earlier stage")
            earlier.add(stage.name)

    def _check_example(self, example: Example, where: str, names: set[str], answered: bool) -> None:
        """An example's labels are among the stage's ``names`` and its intensities on the scale; ``answered``
        (an exam's): every label has its intensity when the protocol requires one."""
        unknown = [label for label in example.labels if label not in names]
        if unknown:
            raise ValueError(f"{where} has the label {unknown[0]!r}, which its stage does not ask about")
        if not self.multi_label and len(example.labels) > 1:
            raise ValueError(f"{where} has {len(example.labels)} labels in a single-label protocol")
        for label, level in example.intensities.items():
            if label not in example.labels:
                raise ValueError(f"{where} gives an intensity to {label!r}, which is not among its labels")
            if self.intensity is None:
                raise ValueError(f"{where} gives an intensity, but the protocol has no intensity scale")
            if not 1 <= level <= self.intensity.n_levels:
                scale = self.intensity.n_levels
                raise ValueError(f"{where}: intensity {level} of {label!r} is off the scale 1-{scale}")
        if answered and self.intensity is not None and self.intensity.required:
            missing = [label for label in example.labels if label not in example.intensities]
            if missing:
                raise ValueError(f"{where}: {missing[0]!r} has no intensity, which the protocol requires")

    @property
    def label_names(self) -> list[str]:
        """The labels' ids, in order."""
        return [choice.name for choice in self.labels]

    def rated_labels(self, stage: Stage) -> list[str]:
        """What each answer of ``stage`` rates: its labels, then the other choice where the protocol has one."""
        return [*stage.labels, *([self.other_choice.name] if self.other_choice else [])]

    def passes_gate(self, stage: Stage, labels_before: set[str]) -> bool:
        """Whether an item whose aggregated labels in the stage before ``stage`` are ``labels_before`` (the other
        choice among them when aggregated so) goes to ``stage`` (an ungated stage takes every item)."""
        if stage.gate is None:
            return True
        before = next(s for s in self.stages if s.name == stage.gate.after)
        wanted = set(before.labels if stage.gate.when == "has-label" else self.rated_labels(before))
        return bool(wanted & labels_before)


def _unique(names: list[str], kind: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(f"the {kind} {name!r} is given twice")
        seen.add(name)


def _checked_duration(text: str) -> None:
    try:
        duration_seconds(text)
    except InputError as exc:
        raise ValueError(str(exc)) from None


def protocol_from_data(data: object, name: str = "the protocol") -> Protocol:
    """The :class:`Protocol` in ``data`` (a parsed YAML mapping); an :class:`InputError` of one line, naming
    ``name`` and the field, when it breaks the schema."""
    if not isinstance(data, Mapping):
        raise InputError(f"{name} is not a protocol: expected a mapping of fields, got {type(data).__name__}")
    if data.get("format") != PROTOCOL_FORMAT:
        raise InputError(f"{name} is not an affectlab protocol (its format must be {PROTOCOL_FORMAT!r})")
    try:
        return Protocol.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"{name}: {_first_error(exc)}") from None


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def read_protocol(path: str | Path) -> Protocol:
    """The protocol in the YAML file ``path`` (one-line :class:`InputError` for a missing, unreadable or invalid
    file)."""
    import yaml

    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{str(source)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {str(source)!r} ({exc})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise InputError(f"{source.name}{where}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
    return protocol_from_data(data, source.name)


def page_message_keys() -> set[str]:
    """The keys of the annotation page's message catalogue (a data file of the collection service's page, read
    here so that ``annotate check`` refuses a protocol's message the page would never show)."""
    import json
    from importlib.resources import files

    catalogue = json.loads(files("affectlab.collection").joinpath("pages", "messages.json").read_text("utf-8"))
    return set(catalogue["en"])


PRESETS = ("emobench-ua", "emobench-ua-plus", "goemotions", "emocontext", "brighter")
"""The protocols that reproduce the papers' designs (``annotation/presets/NAME.yaml``), and ``emobench-ua-plus``:
EmoBench-UA's with rules of ours (``NAME.overlay.yaml`` over its base)."""


def preset_text(name: str) -> str:
    """The YAML text of the preset ``name`` (comments included: they say what the paper states and what is ours)."""
    from importlib.resources import files

    if name not in PRESETS:
        raise InputError(f"unknown preset {name!r} (presets: {', '.join(PRESETS)})")
    folder = files("affectlab.annotation").joinpath("presets")
    plain = folder.joinpath(f"{name}.yaml")
    if plain.is_file():
        return plain.read_text(encoding="utf-8")
    return _overlaid(folder.joinpath(f"{name}.overlay.yaml").read_text(encoding="utf-8"))


def _overlaid(overlay: str) -> str:
    """An overlay's preset: its comments, then its base's text under the overlay's name and description with the
    overlay's rules after the base's (written as text, comments kept, so that ``annotate init`` writes a file
    that says what each part is; a YAML dump would drop every comment)."""
    import yaml

    data = yaml.safe_load(overlay)
    comments = "".join(line for line in overlay.splitlines(keepends=True) if line.startswith("#"))
    added_rules = overlay[overlay.index("\nrules:\n") + len("\nrules:\n") :]
    text = preset_text(data["base"]).replace(f"\nname: {data['base']}\n", f"\nname: {data['name']}\n", 1)
    text = re.sub(r"(?m)^description: .*$", lambda _: f"description: {data['description']}", text, count=1)
    end_of_rules = text.index("\naggregation:") + 1  # the base's rules come right before its aggregation
    return f"{comments}#\n{text[:end_of_rules]}{added_rules}{text[end_of_rules:]}"


def preset(name: str) -> Protocol:
    """The preset ``name`` as a :class:`Protocol`."""
    import yaml

    return protocol_from_data(yaml.safe_load(preset_text(name)), f"the {name} preset")


def protocol_summary(protocol: Protocol) -> dict[str, Any]:
    """What ``annotate check`` and ``init`` print: the protocol's shape in a few numbers and names."""
    return {
        "name": protocol.name,
        "version": protocol.version,
        "languages": protocol.languages,
        "labels": protocol.label_names,
        "none_choice": protocol.none_choice.name if protocol.none_choice else None,
        "other_choice": protocol.other_choice.name if protocol.other_choice else None,
        "intensity_levels": protocol.intensity.n_levels if protocol.intensity else 0,
        "stages": [
            {
                "name": s.name,
                "labels": s.labels,
                "gate": None if s.gate is None else s.gate.after,
                "gate_when": None if s.gate is None else s.gate.when,
                "training_examples": len(s.training.examples) if s.training else 0,
                "exam_examples": len(s.exam.examples) if s.exam else 0,
            }
            for s in protocol.stages
        ],
        "page_size": protocol.page_size,
        "per_item": protocol.overlap.per_item,
        "extra_per_item": protocol.overlap.extra,
        "control_share": protocol.controls.share if protocol.controls else 0.0,
        "rules": [rule.name for rule in protocol.rules],
        "aggregation": protocol.aggregation.method,
        "min_confidence": protocol.aggregation.min_confidence,
    }
