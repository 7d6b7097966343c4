"""The languages of open-ended affective states (MASIVE: English and Spanish), one :class:`OpenLanguage` record each:
the predictors, ``detect --open``, the lexicons and the collection read the languages and their feeling phrase
("I feel" / "Me siento") from :data:`OPEN_LANGUAGES`, and nowhere else."""

from __future__ import annotations

from dataclasses import dataclass

from affectlab.languages import LANGUAGES


@dataclass(frozen=True)
class OpenLanguage:
    """One language of open affective states: ``tag`` (one of :data:`affectlab.languages.LANGUAGES`) and
    ``feeling``, the phrase a state follows in the one-state template: MASIVE section 4.2.2 appends "I feel
    <extra_id_0>" to a text without masks, and a candidate state is embedded as "I feel X." ("Me siento X.")."""

    tag: str
    feeling: str

    @property
    def name(self) -> str:
        """The language's English name (``English``, ``Spanish``), from its record in :mod:`affectlab.languages`."""
        return LANGUAGES.get(self.tag).name

    @property
    def state_template(self) -> str:
        """How a candidate state is written to be embedded: ``"I feel {}."``."""
        return f"{self.feeling} {{}}."

    def appended(self, mask: str) -> str:
        """What a text without masks gets appended: ``"I feel <extra_id_0>."`` for ``mask`` ``<extra_id_0>``."""
        return f"{self.feeling} {mask}."


OPEN_LANGUAGES: dict[str, OpenLanguage] = {
    language.tag: language for language in (OpenLanguage("en", "I feel"), OpenLanguage("es", "Me siento"))
}
"""The languages of open affective states by tag."""
OPEN_LANGS: tuple[str, ...] = tuple(OPEN_LANGUAGES)
"""Their tags: ``("en", "es")``."""
STATE_TEMPLATES: dict[str, str] = {tag: language.state_template for tag, language in OPEN_LANGUAGES.items()}
"""``{"en": "I feel {}.", "es": "Me siento {}."}``: how each language's candidate states are embedded (saved with
the open-vocabulary predictor)."""
