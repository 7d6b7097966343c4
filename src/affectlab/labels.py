"""Label spaces: fixed, ordered label names, their words in English, Ukrainian and Spanish, and the mappings
between taxonomies, all kept as data.

Every probability matrix in affectlab is ``(n_texts, n_labels)`` in the order of a :class:`LabelSpace`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from affectlab.errors import InputError
from affectlab.registry import Registry

INTENSITY_SCALE: tuple[int, int] = (0, 3)
"""SemEval-2025 Task 11 track B's (BRIGHTER's) intensity of an emotion: 0 absent, 1 low, 2 moderate, 3 high. The one
statement of the scale: the track B reader, the intensity head's output, the levels shown, and crowd ratings."""
SCORE_DECIMALS = 4
"""Scores are given with this many decimals everywhere a user reads them (the API, the service, ``detect
--input`` and ``score`` files), so that a text scored alone and in a file reads the same; labels are decided on the
unrounded scores."""


UNANNOTATED = "unannotated"
"""The column of a joined training set that names, per row, the labels its dataset does not annotate."""
UNKNOWN = -1
"""A target matrix's value for a label its row's dataset does not annotate (neither 0 nor 1)."""


@dataclass(frozen=True)
class LabelSpace:
    """An ordered set of labels.

    ``none_label`` names the "no emotion" label (``none``, ``neutral``, ``others``) if the space has one;
    ``none_exclusive`` says that it never co-occurs with another label, so a prediction of an emotion
    drops it. ``words`` gives each label's word per language (``{"uk": {"joy": "радість"}}``).
    """

    name: str
    labels: tuple[str, ...]
    multi_label: bool
    none_label: str | None = None
    none_exclusive: bool = True
    description: str = ""
    words: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(set(self.labels)) != len(self.labels):
            raise ValueError(f"label space {self.name!r} repeats a label")
        if self.none_label is not None and self.none_label not in self.labels:
            raise ValueError(f"none label {self.none_label!r} is not in {self.name!r}")

    def __len__(self) -> int:
        return len(self.labels)

    @property
    def emotion_labels(self) -> tuple[str, ...]:
        """The labels other than the none label."""
        return tuple(label for label in self.labels if label != self.none_label)

    def word(self, label: str, lang: str = "en") -> str:
        """The label's word in ``lang`` (``en``, ``uk``, ``es``); the label name itself when none is known."""
        return self.words.get(lang, {}).get(label, label)

    def canonical(self, name: str) -> str:
        """Map a label name or its word in any supported language (any case) to the canonical label."""
        key = name.strip().lower()
        if key in self.labels:
            return key
        for lang_words in self.words.values():
            for label, word in lang_words.items():
                if word.lower() == key:
                    return label
        raise InputError(f"label {name!r} is not in label space {self.name!r} ({', '.join(self.labels)})")

    def encode(self, label_lists: Iterable[Sequence[str]]) -> np.ndarray:
        """Turn lists of label names into an ``(n, n_labels)`` 0/1 matrix in this space's order."""
        index = {label: i for i, label in enumerate(self.labels)}
        rows = list(label_lists)
        matrix = np.zeros((len(rows), len(self.labels)), dtype=np.int8)
        for row, labels in enumerate(rows):
            for label in labels:
                if label not in index:
                    raise InputError(f"label {label!r} is not in label space {self.name!r}")
                matrix[row, index[label]] = 1
        return matrix

    def encode_split(self, split: Any) -> np.ndarray:
        """The 0/1 matrix of a dataset split's ``labels``, with :data:`UNKNOWN` where its :data:`UNANNOTATED` column
        (labels joined by ``,``; a joined training set has it) says the row's dataset does not annotate a label: a
        label left unannotated is not absent, and fitting and tuning leave those cells out."""
        matrix = self.encode(split["labels"])
        if UNANNOTATED not in getattr(split, "column_names", ()):
            return matrix
        index = {label: i for i, label in enumerate(self.labels)}
        for row, missing in enumerate(split[UNANNOTATED]):
            for label in filter(None, missing.split(",")):
                matrix[row, index[label]] = UNKNOWN
        return matrix

    def decode(self, matrix: np.ndarray) -> list[list[str]]:
        """Turn an ``(n, n_labels)`` 0/1 matrix back into lists of label names."""
        return [[self.labels[j] for j in np.flatnonzero(row)] for row in np.asarray(matrix)]

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready description, stored with saved models."""
        return {
            "name": self.name,
            "labels": list(self.labels),
            "multi_label": self.multi_label,
            "none_label": self.none_label,
            "none_exclusive": self.none_exclusive,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> LabelSpace:
        """Rebuild a space saved by :meth:`to_dict`; a registered space of the same name and labels keeps its words."""
        labels = tuple(str(x) for x in data["labels"])  # type: ignore[attr-defined]
        name = str(data["name"])
        if name in LABEL_SPACES and LABEL_SPACES.get(name).labels == labels:
            return LABEL_SPACES.get(name)
        none_label = data.get("none_label")
        return cls(
            name=name,
            labels=labels,
            multi_label=bool(data["multi_label"]),
            none_label=None if none_label is None else str(none_label),
            none_exclusive=bool(data.get("none_exclusive", True)),
        )

    def subset(self, name: str, labels: Sequence[str]) -> LabelSpace:
        """A space with only ``labels`` (kept in this space's order), sharing words and the none label."""
        kept = tuple(label for label in self.labels if label in set(labels))
        return LabelSpace(
            name=name,
            labels=kept,
            multi_label=self.multi_label,
            none_label=self.none_label if self.none_label in kept else None,
            none_exclusive=self.none_exclusive,
            description=self.description,
            words=self.words,
        )


# --- Ekman-6 + none, in EmoBench-UA / SemEval-2025 Task 11 column order -------------------------------------
# Ukrainian words are those of the EmoBench-UA prompts (App. G): радість, злість, страх, сум, здивування,
# огида, and "нейтральна" for no emotion.
EKMAN = LabelSpace(
    name="ekman",
    labels=("anger", "disgust", "fear", "joy", "sadness", "surprise", "none"),
    multi_label=True,
    none_label="none",
    none_exclusive=True,
    description="Ekman's six basic emotions plus none (EmoBench-UA, SemEval-2025 Task 11 track A)",
    words={
        "en": {
            "anger": "anger",
            "disgust": "disgust",
            "fear": "fear",
            "joy": "joy",
            "sadness": "sadness",
            "surprise": "surprise",
            "none": "neutral",
        },
        "uk": {
            "anger": "злість",
            "disgust": "огида",
            "fear": "страх",
            "joy": "радість",
            "sadness": "сум",
            "surprise": "здивування",
            "none": "нейтральна",
        },
        "es": {
            "anger": "ira",
            "disgust": "asco",
            "fear": "miedo",
            "joy": "alegría",
            "sadness": "tristeza",
            "surprise": "sorpresa",
            "none": "neutral",
        },
    },
)

# --- GoEmotions 27 + neutral, in emotions.txt order (GoEmotions App. A) -------------------------------------
_GOEMOTIONS_WORDS = {
    "admiration": ("захоплення", "admiración"),
    "amusement": ("веселощі", "diversión"),
    "anger": ("злість", "enojo"),
    "annoyance": ("роздратування", "molestia"),
    "approval": ("схвалення", "aprobación"),
    "caring": ("турбота", "afecto"),
    "confusion": ("розгубленість", "confusión"),
    "curiosity": ("цікавість", "curiosidad"),
    "desire": ("бажання", "deseo"),
    "disappointment": ("розчарування", "decepción"),
    "disapproval": ("несхвалення", "desaprobación"),
    "disgust": ("огида", "asco"),
    "embarrassment": ("збентеження", "vergüenza"),
    "excitement": ("піднесення", "entusiasmo"),
    "fear": ("страх", "miedo"),
    "gratitude": ("вдячність", "gratitud"),
    "grief": ("горе", "duelo"),
    "joy": ("радість", "alegría"),
    "love": ("любов", "amor"),
    "nervousness": ("нервовість", "nerviosismo"),
    "optimism": ("оптимізм", "optimismo"),
    "pride": ("гордість", "orgullo"),
    "realization": ("усвідомлення", "comprensión"),
    "relief": ("полегшення", "alivio"),
    "remorse": ("каяття", "remordimiento"),
    "sadness": ("сум", "tristeza"),
    "surprise": ("здивування", "sorpresa"),
    "neutral": ("нейтральність", "neutral"),
}
GOEMOTIONS = LabelSpace(
    name="goemotions",
    labels=tuple(_GOEMOTIONS_WORDS),
    multi_label=True,
    none_label="neutral",
    none_exclusive=False,  # a few GoEmotions comments carry neutral beside an emotion
    description="GoEmotions: 27 emotions plus neutral (Demszky et al., 2020)",
    words={
        "en": {label: label for label in _GOEMOTIONS_WORDS},
        "uk": {label: uk for label, (uk, _) in _GOEMOTIONS_WORDS.items()},
        "es": {label: es for label, (_, es) in _GOEMOTIONS_WORDS.items()},
    },
)

# --- GoEmotions sentiment grouping (GoEmotions section 5.1, Figure 2) -------------------------------------
SENTIMENT = LabelSpace(
    name="sentiment",
    labels=("positive", "negative", "ambiguous", "neutral"),
    multi_label=True,
    none_label="neutral",
    none_exclusive=False,
    description="GoEmotions sentiment grouping: positive, negative, ambiguous, neutral",
    words={
        "en": {"positive": "positive", "negative": "negative", "ambiguous": "ambiguous", "neutral": "neutral"},
        "uk": {"positive": "позитивна", "negative": "негативна", "ambiguous": "неоднозначна", "neutral": "нейтральна"},
        "es": {"positive": "positivo", "negative": "negativo", "ambiguous": "ambiguo", "neutral": "neutral"},
    },
)

# --- SemEval-2019 Task 3 EmoContext -----------------------------------------------------------------------
EMOCONTEXT = LabelSpace(
    name="emocontext",
    labels=("happy", "sad", "angry", "others"),
    multi_label=False,
    none_label="others",
    description="SemEval-2019 Task 3 EmoContext: emotion of the last turn of a 3-turn dialogue",
    words={
        "en": {"happy": "happy", "sad": "sad", "angry": "angry", "others": "others"},
        "uk": {"happy": "щасливий", "sad": "сумний", "angry": "злий", "others": "інше"},
        "es": {"happy": "feliz", "sad": "triste", "angry": "enojado", "others": "otros"},
    },
)

# GoEmotions section 5.1: "anger (maps to: anger, annoyance, disapproval), disgust (maps to: disgust), fear
# (maps to: fear, nervousness), joy (all positive emotions), sadness (maps to: sadness, disappointment,
# embarrassment, grief, remorse) and surprise (all ambiguous emotions)"; Neutral stays as it is (our "none").
GOEMOTIONS_TO_SENTIMENT: dict[str, str] = {
    **{
        label: "positive"
        for label in (
            "amusement",
            "excitement",
            "joy",
            "love",
            "desire",
            "optimism",
            "caring",
            "pride",
            "admiration",
            "gratitude",
            "relief",
            "approval",
        )
    },
    **{
        label: "negative"
        for label in (
            "fear",
            "nervousness",
            "remorse",
            "embarrassment",
            "disappointment",
            "sadness",
            "grief",
            "disgust",
            "anger",
            "annoyance",
            "disapproval",
        )
    },
    **{label: "ambiguous" for label in ("realization", "surprise", "curiosity", "confusion")},
    "neutral": "neutral",
}
GOEMOTIONS_TO_EKMAN: dict[str, str] = {
    **{label: "anger" for label in ("anger", "annoyance", "disapproval")},
    "disgust": "disgust",
    **{label: "fear" for label in ("fear", "nervousness")},
    **{label: "joy" for label, group in GOEMOTIONS_TO_SENTIMENT.items() if group == "positive"},
    **{label: "sadness" for label in ("sadness", "disappointment", "embarrassment", "grief", "remorse")},
    **{label: "surprise" for label, group in GOEMOTIONS_TO_SENTIMENT.items() if group == "ambiguous"},
    "neutral": "none",
}


def map_labels(labels: Iterable[str], mapping: Mapping[str, str], target: LabelSpace) -> list[str]:
    """Map a list of labels through ``mapping`` into ``target``, deduplicated and in ``target`` order.

    A neutral label that co-occurs with an emotion is kept, as in the released Ekman-grouped GoEmotions data
    (MASIVE's ``goemo_ekman_*.csv`` carry the same label sets)."""
    mapped = {mapping[label] for label in labels}
    return [label for label in target.labels if label in mapped]


LABEL_SPACES: Registry[LabelSpace] = Registry("label space")
for _space in (EKMAN, GOEMOTIONS, SENTIMENT, EMOCONTEXT):
    LABEL_SPACES.add(_space.name, _space)


def get_label_space(name: str) -> LabelSpace:
    """The registered label space called ``name`` (``ekman``, ``goemotions``, ``sentiment``, ``emocontext``)."""
    return LABEL_SPACES.get(name)


@dataclass(frozen=True)
class Taxonomy:
    """What a taxonomy is, said once: its label space, the primary metric its scores and decisions are judged by (a
    name of :data:`affectlab.metrics.registry.METRICS`), and whether its texts come with earlier dialogue turns.
    The default's heads, the encoder's training recipe, the datasets and ``affectlab.detect`` read it."""

    name: str
    space: LabelSpace
    primary_metric: str = "macro_f1"
    reads_context: bool = False


TAXONOMY_RECORDS: Registry[Taxonomy] = Registry("taxonomy")
for _taxonomy in (
    Taxonomy("ekman", EKMAN),
    Taxonomy("goemotions", GOEMOTIONS),
    Taxonomy("emocontext", EMOCONTEXT, "micro_f1_emotions", reads_context=True),
):
    TAXONOMY_RECORDS.add(_taxonomy.name, _taxonomy)


def primary_metric_for(space: LabelSpace) -> str:
    """The primary metric of data in ``space``: its taxonomy's (EmoContext: micro-F1 over its emotions), else
    macro-F1 over all labels."""
    for _, taxonomy in TAXONOMY_RECORDS.items():
        if taxonomy.space.name == space.name:
            return taxonomy.primary_metric
    return "macro_f1"
