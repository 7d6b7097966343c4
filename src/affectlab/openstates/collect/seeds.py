"""The search templates and seed affective states of MASIVE (Deas et al., 2024): section 3.1, Table 10, App. C.

English templates are quoted from section 3.1 ("I feel <affect> and...", "I am feeling <affect> and...", "I don't
feel <affect> and...", "I am not feeling <affect> and..."); the contracted and spelled-out variants ("I'm",
"do not") are ours, since the paper searches "forms of" them without listing the forms. The Spanish templates
("Estoy <affect> y...", "Me siento <affect> y...", "Estoy sintiendo <affect> y...") are quoted; their negated forms
("No estoy ...", "No me siento ...", "No estoy sintiendo ...") are not given in the paper ("the same procedure")
and are our reading of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from affectlab.errors import InputError
from affectlab.openstates.languages import OPEN_LANGS


@dataclass(frozen=True)
class Template:
    """A search phrase: ``prefix`` words before the affective state, then the state, then ``conjunction``."""

    lang: str
    prefix: tuple[str, ...]
    negated: bool
    conjunction: str

    @property
    def text(self) -> str:
        """Human-readable form, e.g. ``I am not feeling <affect> and``."""
        return " ".join((*self.prefix, "<affect>", self.conjunction))


def _templates(lang: str, conjunction: str, plain: list[str], negated: list[str]) -> tuple[Template, ...]:
    return tuple(
        Template(lang, tuple(phrase.split()), is_negated, conjunction)
        for phrases, is_negated in ((plain, False), (negated, True))
        for phrase in phrases
    )


TEMPLATES: dict[str, tuple[Template, ...]] = {
    "en": _templates(
        "en",
        "and",
        ["i feel", "i am feeling", "i'm feeling"],
        ["i don't feel", "i do not feel", "i am not feeling", "i'm not feeling"],
    ),
    "es": _templates(
        "es",
        "y",
        ["estoy", "me siento", "estoy sintiendo"],
        ["no estoy", "no me siento", "no estoy sintiendo"],
    ),
}
"""Lowercase phrases; matching ignores case and accepts the typographic apostrophe (I’m) or none (im, dont)."""

SINGLE_TEMPLATES: dict[str, tuple[Template, ...]] = {
    lang: tuple(Template(t.lang, t.prefix, t.negated, "") for t in templates) for lang, templates in TEMPLATES.items()
}
"""The relaxed form without the conjunction ("I feel X"), for corpora where "I feel X and Y" is too rare."""

SEEDS: dict[str, tuple[str, ...]] = {
    "en": ("happy", "sad", "angry", "surprised", "disgusted", "afraid"),
    "es": (
        "feliz", "triste", "enojado", "enojada", "sorprendido", "sorprendida", "desagradado", "desagradada",
        "asustado", "asustada",
    ),
}  # fmt: skip
"""Table 10 (Ekman adjectives); Spanish with both genders, as section 3.1 searches both "where applicable"."""

REGIONAL_ENTRIES_ES = (
    "mamado/a", "patitieso/a", "emputado/a", "encandilado/a", "arrechado/a", "fastidiado/a", "encabronado/a",
    "hallado/a", "rayado/a", "achispado/a", "ahuevado/a", "enrabiado/a", "tusa", "chocho/a", "encachimbado/a",
    "bravo/a", "apantallado/a", "embromado/a", "engorilado/a", "alicaído/a", "flipando/a", "cagado/a",
    "aguitado/a", "engrinchado/a", "chato/a", "chipil", "picado/a", "bajoneado/a", "acojonado/a", "arrecho/a",
)  # fmt: skip
"""App. C.2, verbatim: 30 regional Spanish seeds ("x/a": masculine and feminine forms)."""
REGIONAL_SEEDS_ES: tuple[str, ...] = tuple(
    form
    for entry in REGIONAL_ENTRIES_ES
    for form in ((entry[:-2], entry[:-3] + "a") if entry.endswith("/a") else (entry,))
)
"""App. C.2's entries as single forms (58)."""

GOEMOTIONS_WORDS: dict[str, str] = dict(
    zip(
        (
            "admiration", "amusement", "anger", "annoyance", "approval", "caring", "confusion", "curiosity", "desire",
            "disappointment", "disapproval", "disgust", "embarrassment", "excitement", "fear", "gratitude", "grief",
            "joy", "love", "nervousness", "optimism", "pride", "realization", "relief", "remorse", "sadness",
            "surprise", "neutral",
        ),
        (
            "admiration", "amused", "angry", "annoyed", "approving", "caring", "confused", "curious", "desire",
            "disappointed", "disapproval", "disgusted", "embarrassed", "excited", "afraid", "grateful", "grief",
            "happy", "love", "nervous", "optimistic", "proud", "realized", "relieved", "remorseful", "sad",
            "surprised", "nothing",
        ),
        strict=True,
    )
)  # fmt: skip
"""App. C.1: the word each GoEmotions label is verbalised as in the fixed-label evaluation ("nothing" for neutral)."""

EKMAN_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "joy": "happy", "sadness": "sad", "anger": "angry", "surprise": "surprised", "disgust": "disgusted",
        "fear": "afraid", "none": "nothing",
    },
    "es": {
        "joy": "feliz", "sadness": "triste", "anger": "enojado", "surprise": "sorprendido", "disgust": "desagradado",
        "fear": "asustado", "none": "nada",
    },
}  # fmt: skip
"""Table 10 + "nothing" (App. C.1). The paper gives no Spanish no-emotion word; "nada" is ours."""


def templates_for(lang: str, single: bool = False) -> tuple[Template, ...]:
    """The search templates of ``lang`` (``single``: the relaxed "I feel X" forms)."""
    if lang not in TEMPLATES:
        raise InputError(f"unknown language {lang!r} for affective-state collection (known: {', '.join(OPEN_LANGS)})")
    return (SINGLE_TEMPLATES if single else TEMPLATES)[lang]
