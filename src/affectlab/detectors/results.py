"""What a detection gives: the records :func:`affectlab.detect` returns (:class:`Detection`, with its
:class:`Sentence` results and explanations), one per text, as the command line, ``--json``, files and the service
show them, and the open states' (:class:`~affectlab.openstates.detect.OpenDetection`).

Each record's output is declared once, as data, like Hugging Face datasets' ``Features``: a :class:`Record` names its
keys in output order, each with the shape of its value and when it is written (:data:`DETECTION`, :data:`SENTENCE`,
:data:`SPAN_WEIGHT`, :data:`OPEN_DETECTION`). The rest derives from it: the JSON (:meth:`Record.json`, behind every
``to_dict``), the Arrow types of the Parquet columns (:func:`arrow_type`) and the service's response models
(:mod:`affectlab.serve.models`: pydantic, which only the service imports)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from affectlab.detectors.explain import SpanWeight
from affectlab.langid import UNDETERMINED

if TYPE_CHECKING:
    import pyarrow as pa

Asked = Literal["intensity", "sentences", "explain", "trained languages"]
"""What brings an optional key: an option asked for, or a model that says which languages it was trained on."""


# The declarations below are constants, one object each, so they compare by identity (eq=False), which also keeps
# the import of this module, on the way of every detection, a few milliseconds quicker.
@dataclass(frozen=True, eq=False)
class Value:
    """A JSON scalar (Arrow: int64, float64, string, bool)."""

    kind: Literal["int", "float", "str", "bool"]


@dataclass(frozen=True, eq=False)
class ListOf:
    """A JSON array of ``item`` (Arrow: a list)."""

    item: Shape


@dataclass(frozen=True, eq=False)
class Keyed:
    """A JSON object from names to ``value``: the label space's ``labels``, its ``emotions`` (the labels but its none
    label) or ``languages`` (tags, an open set). Arrow: a struct with a field per label or emotion (null where a
    record has no value), a map for languages."""

    over: Literal["labels", "emotions", "languages"]
    value: Shape


@dataclass(frozen=True, eq=False)
class Key:
    """One key of a :class:`Record`: its ``name`` (the JSON key, read from the record's attribute of that name), its
    value's ``shape``, what it holds (``doc``: the service's OpenAPI says it), when it is ``written`` ("always";
    "null if None"; "unless None" or "unless empty": left out when it is None or empty), and what ``asked`` for it
    (None: nothing; a Parquet column's records have the key only when it was asked for)."""

    name: str
    shape: Shape
    doc: str
    written: Literal["always", "null if None", "unless None", "unless empty"] = "always"
    asked: Asked | None = None


@dataclass(frozen=True, eq=False)
class Record:
    """A JSON object with ``keys``, in that order (Arrow: a struct); ``name`` names it in the service's OpenAPI."""

    name: str
    keys: tuple[Key, ...]

    def json(self, source: object, **computed: Any) -> dict[str, Any]:
        """``source`` as this record's JSON: each key's value is ``source``'s attribute of its name (or the value
        ``computed`` gives, for a key that is no attribute), left out as the key says; a nested record's values are
        written the same way (a value that is already JSON, a dict, as it is)."""
        out: dict[str, Any] = {}
        for name, written, nested in self._plan:
            value = computed[name] if name in computed else getattr(source, name)
            if (value is None and written == "unless None") or (not value and written == "unless empty"):
                continue
            out[name] = value if nested is None or value is None else _json(nested, value)
        return out

    @cached_property  # a result is written for every text: what is known of each key is worked out once
    def _plan(self) -> tuple[tuple[str, str, Shape | None], ...]:
        """Each key's name, when it is written, and its shape where that holds records to write (else None)."""
        return tuple((key.name, key.written, key.shape if _holds_record(key.shape) else None) for key in self.keys)


Shape: TypeAlias = Value | ListOf | Keyed | Record
"""What a key's value is."""


def _json(shape: Shape, value: Any) -> Any:
    """``value`` (of ``shape``) as JSON: records written by their :meth:`Record.json`, everything else as it is."""
    if isinstance(shape, Record):
        return value if isinstance(value, dict) else shape.json(value)
    if isinstance(shape, ListOf) and _holds_record(shape.item):
        return [_json(shape.item, item) for item in value]
    if isinstance(shape, Keyed) and _holds_record(shape.value):
        return {name: _json(shape.value, item) for name, item in value.items()}
    return value


def _holds_record(shape: Shape) -> bool:
    if isinstance(shape, ListOf):
        return _holds_record(shape.item)
    if isinstance(shape, Keyed):
        return _holds_record(shape.value)
    return isinstance(shape, Record)


def arrow_type(
    shape: Shape, labels: Sequence[str], emotions: Sequence[str] = (), asked: Collection[str] = ()
) -> pa.DataType:
    """The Arrow type (for Parquet) of values of ``shape`` written by a detector with ``labels`` (``emotions``: those
    but its none label) asked for ``asked``: its records hold the keys asked for, and those never asked for."""
    import pyarrow as pa

    if isinstance(shape, Value):
        return {"int": pa.int64(), "float": pa.float64(), "str": pa.string(), "bool": pa.bool_()}[shape.kind]
    if isinstance(shape, ListOf):
        return pa.list_(arrow_type(shape.item, labels, emotions, asked))
    if isinstance(shape, Keyed):
        value = arrow_type(shape.value, labels, emotions, asked)
        if shape.over == "languages":
            return pa.map_(pa.string(), value)
        return pa.struct([pa.field(name, value) for name in (labels if shape.over == "labels" else emotions)])
    kept = [key for key in shape.keys if key.asked is None or key.asked in asked]
    return pa.struct([pa.field(key.name, arrow_type(key.shape, labels, emotions, asked)) for key in kept])


INT, FLOAT, STR, BOOL = Value("int"), Value("float"), Value("str"), Value("bool")

SPAN_WEIGHT = Record("SpanWeight", (
    Key("start", INT, "Where the word starts in the text (a character offset)"),
    Key("end", INT, "Where the word ends: it is text[start:end]"),
    Key("text", STR, "The word"),
    Key("weight", FLOAT, "How far the label's score falls without the word (positive: it supports the label)"),
))  # fmt: skip
"""A word behind a label (:class:`~affectlab.detectors.explain.SpanWeight`)."""

EXPLANATION = Keyed("labels", ListOf(SPAN_WEIGHT))
"""An explanation: per label explained, its words (:mod:`affectlab.detectors.explain`)."""

_LABELS = Key("labels", ListOf(STR), "The labels given, highest score first")
_SCORES = Key("scores", Keyed("labels", FLOAT), "Every label's score on its decision's scale (0.5: its threshold)")
_LANG = Key("lang", STR, "The language it was read as (a tag given as given; und where none could be told)")
_INTENSITIES = Key("intensities", Keyed("emotions", INT), "Each emotion's intensity, 0-3 (when asked for)",
                   "unless None", "intensity")  # fmt: skip
_EXPLANATION = Key("explanation", EXPLANATION, "Per label explained, the words behind it (when asked for)",
                   "unless None", "explain")  # fmt: skip

SENTENCE = Record("Sentence", (
    Key("start", INT, "Where the sentence starts in the text (a character offset)"),
    Key("end", INT, "Where the sentence ends: it is text[start:end]"),
    Key("text", STR, "The sentence"),
    _LABELS, _SCORES, _LANG,
    Key("supported", BOOL, "Whether the model was trained on its language (for a model that says)", "unless None",
        "trained languages"),
    _INTENSITIES, _EXPLANATION,
))  # fmt: skip
"""A :class:`Sentence` of a text, scored alone."""

SENTENCES = ListOf(SENTENCE)
"""A text's sentences, each scored alone."""

DETECTION = Record("Detection", (
    Key("text", STR, "The text"),
    _LABELS, _SCORES, _LANG,
    Key("supported", BOOL, "Whether the model was trained on its language (null: the model does not say)",
        "null if None", "trained languages"),
    Key("languages", Keyed("languages", FLOAT), "A text's languages and their shares of its characters (a long "
        "text's when two or more have 5 % or more, a short one's when three or more do)", "unless None"),
    _INTENSITIES,
    Key("sentences", SENTENCES, "Its sentences, each scored alone (when asked for)", "unless None",
        "sentences"),
    _EXPLANATION,
    Key("notes", ListOf(STR), "What there is to say about the text (when there is something)", "unless empty"),
))  # fmt: skip
"""The :class:`Detection` of a text."""

TERM_SCORE = Record("TermScore", (
    Key("term", STR, "A feeling word or phrase"),
    Key("score", FLOAT, "How likely it fills the mask (6 decimals)"),
))  # fmt: skip
"""A ranked open affective state."""

OPEN_DETECTION = Record("OpenDetection", (
    Key("text", STR, "The text"),
    Key("lang", STR, "The language its states were ranked in"),
    Key("terms", ListOf(TERM_SCORE), "The first mask's states, most likely first"),
    Key("masks", ListOf(ListOf(TERM_SCORE)), "Every mask's states (when the text has more than one)", "unless None"),
    Key("notes", ListOf(STR), "What there is to say about the text (when there is something)", "unless empty"),
))  # fmt: skip
"""An :class:`~affectlab.openstates.detect.OpenDetection`: open affective states (MASIVE)."""


@dataclass
class Sentence:
    """One sentence of a text as :func:`detect` scored it alone: ``text[start:end]`` of the text it is in, its
    ``labels`` (highest score first), every label's score, the language it was read as (its own, identified unless
    given), whether the model was trained on it (``supported``; None for a model that does not say) and (when asked
    for) each emotion's intensity 0-3. Its output: :data:`SENTENCE`."""

    start: int
    end: int
    text: str
    labels: list[str]
    scores: dict[str, float]
    lang: str
    intensities: dict[str, int] | None = None
    explanation: dict[str, list[SpanWeight]] | None = None
    supported: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"start", "end", "text", "labels", "scores", "lang"}`` and ``supported`` (for a model that says; plus
        ``intensities`` and ``explanation`` when asked for): :data:`SENTENCE`."""
        return SENTENCE.json(self)


@dataclass
class Detection:
    """The result for one text: the predicted ``labels`` (highest score first) and every label's score in
    ``scores``. A score is on the decision's scale: 0.5 is the threshold tuned for that label (arg-max heads: the
    prior-shifted probability), so the labels given are those at the top of the scores (see
    :meth:`affectlab.metrics.thresholds.Decision.scores`). ``lang`` is the language the text was read as (given or
    identified: :mod:`affectlab.langid`; a tag given is shown as given), ``supported`` whether the model was
    trained on texts of it (None for a model that does not say), ``intensities`` each emotion's intensity 0-3 when
    asked for (0 for an emotion not among the labels), and ``sentences`` its sentences, each scored alone, when
    asked for (a text over :data:`~affectlab.detectors.documents.WHOLE_UP_TO` characters is scored from them:
    :mod:`affectlab.detectors.documents`). A document read sentence by sentence has the language most of its
    characters were read as, is ``supported`` where that language is, and where its sentences are in several
    languages, ``languages`` gives each one's share of its characters (those of at least 5 %; also in
    ``notes``). Its output: :data:`DETECTION`."""

    text: str
    labels: list[str]
    scores: dict[str, float]
    notes: list[str] = field(default_factory=list)
    lang: str = UNDETERMINED
    supported: bool | None = None
    intensities: dict[str, int] | None = None
    sentences: list[Sentence] | None = None
    explanation: dict[str, list[SpanWeight]] | None = None
    languages: dict[str, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"text", "labels", "scores", "lang", "supported"}`` (plus ``languages``, ``intensities``,
        ``sentences``, ``explanation`` and ``notes`` when there are any): :data:`DETECTION`."""
        return DETECTION.json(self)


def explanation_dict(explanation: dict[str, list[SpanWeight]]) -> dict[str, list[dict[str, Any]]]:
    """An explanation as JSON: label -> ``[{"start", "end", "text", "weight"}, ...]`` (:data:`EXPLANATION`)."""
    return _json(EXPLANATION, explanation)


def explanation_type(labels: Sequence[str]) -> Any:
    """The Arrow type of an ``explanation`` in Parquet: per label (null where not explained) its words' records
    (:data:`EXPLANATION`)."""
    return arrow_type(EXPLANATION, labels)


def sentences_type(
    labels: Sequence[str], emotions: Sequence[tuple[int, str]], intensity: bool, explain: bool = False,
    supported: bool = False,
) -> Any:  # fmt: skip
    """The Arrow type of the ``sentences`` column in Parquet: a list of the sentences' records (:data:`SENTENCE`;
    ``supported`` for a model that says which languages it was trained on); JSON Lines writes them as they are,
    CSV as JSON."""
    options = (("intensity", intensity), ("explain", explain), ("trained languages", supported))
    return arrow_type(SENTENCES, labels, [label for _, label in emotions], [name for name, asked in options if asked])


def file_columns(
    labels: Sequence[str], emotions: Sequence[tuple[int, str]], *, read_as: bool, supported: bool, intensity: bool,
    sentences: bool, explain: bool,
) -> list[tuple[str, Any]]:  # fmt: skip
    """The columns a file run writes after ``labels`` (before ``error``), by name and type: ``lang`` (unless
    ``read_as`` is False: the input's own ``lang`` column is filled in), ``supported``, ``intensity_<emotion>``,
    ``sentences``, ``explanation`` (each when asked for or, ``supported``, when the model says), ``notes``."""
    lang = [("lang", "string")] if read_as else []
    said = [("supported", "bool")] if supported else []
    rated = [(f"intensity_{label}", "int") for _, label in emotions] if intensity else []
    arcs = [("sentences", sentences_type(labels, emotions, intensity, explain, supported))] if sentences else []
    why = [("explanation", explanation_type(labels))] if explain else []
    return [*lang, *said, *rated, *arcs, *why, ("notes", "string")]


def file_values(found: Detection, emotions: Sequence[tuple[int, str]]) -> dict[str, Any]:
    """A detection's values of the :func:`file_columns` (``lang`` always; the caller drops what it fills in
    otherwise)."""
    values: dict[str, Any] = {"lang": found.lang}
    if found.supported is not None:
        values["supported"] = found.supported
    if found.intensities is not None:
        values |= {f"intensity_{label}": found.intensities[label] for _, label in emotions}
    if found.sentences is not None:
        values["sentences"] = [sentence.to_dict() for sentence in found.sentences]
    if found.explanation is not None:
        values["explanation"] = explanation_dict(found.explanation)
    values["notes"] = "; ".join(found.notes)
    return values
