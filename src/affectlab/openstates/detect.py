"""``affectlab.detect_open``: open-ended affective states (MASIVE) of texts with the shipped embedded predictor
(or any saved one), in one call."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from affectlab.errors import InputError
from affectlab.langid import check_lang, detect_language_batch, normalise
from affectlab.openstates.collect.masking import SENTINEL, count_masks
from affectlab.openstates.languages import OPEN_LANGS, OPEN_LANGUAGES
from affectlab.openstates.lexicon import check_states
from affectlab.openstates.predictors import resolve_predictor
from affectlab.openstates.predictors.base import prepare
from affectlab.text import as_texts, check_count

_COVERED = (
    f"{' and '.join(OPEN_LANGS)} only (if it is {' or '.join(lang.name for lang in OPEN_LANGUAGES.values())}, say "
    f"so: lang={' or '.join(map(repr, OPEN_LANGS))}, --lang {' or '.join(OPEN_LANGS)})"
)


@dataclass
class OpenDetection:
    """Open-ended affective states of one text: per mask, ranked terms (``terms`` is the first mask's)."""

    text: str
    lang: str
    masks: list[list[dict[str, Any]]]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """``{"text", "lang", "terms": [{"term", "score"}, ...]}``, plus ``masks`` when the text has more than one
        and ``notes`` when there is something to say (a text that reads as another language than the one given)."""
        from affectlab.detectors.results import OPEN_DETECTION  # the open states alone need no emotion detector

        return OPEN_DETECTION.json(self, terms=self.masks[0], masks=self.masks if len(self.masks) > 1 else None)


def detect_open(
    texts: str | Sequence[str],
    lang: str | None = None,
    k: int = 5,
    model: Any = "default",
    states: Sequence[str] | None = None,
    states_only: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> list[OpenDetection]:
    """Open-ended affective states (MASIVE): each text's ``<extra_id_N>`` masks filled with ranked feeling words;
    a text without masks gets "I feel <extra_id_0>." appended ("Me siento" in Spanish). The language is detected
    unless given (English and Spanish are covered; the masks are not read as words). ``model`` is ``"default"``, a
    saved predictor's folder or a predictor object (see :func:`affectlab.openstates.predictors.resolve_predictor`).
    ``states`` are candidate states added to the default's lexicon (``states_only``: ranked alone), e.g. from
    :func:`affectlab.openstates.lexicon.read_states_file`, checked by
    :func:`~affectlab.openstates.lexicon.check_states` (a list of short feeling words or phrases, no masks, no table
    rows). ``progress(done, total)`` follows the embedding of the states the predictor has not embedded yet."""
    items = as_texts(texts)
    k = check_count("k", k) or 5
    if states is not None:
        states = check_states(states)  # before anything loads: a bad list costs no model
    given = check_lang(lang)
    if given is not None and normalise(given) not in OPEN_LANGS:
        raise InputError(f"open affective states cover {' and '.join(OPEN_LANGS)}, not {given!r}")
    for text in items:
        count_masks(text)  # a bad mask is said before the language is asked about
    identified = detect_language_batch([SENTINEL.sub(" ", text) for text in items])  # also read for the notes
    langs = [normalise(given) if given else text_lang for text_lang in identified]
    for number, text_lang in enumerate(langs, start=1):
        if text_lang not in OPEN_LANGS:  # identified, since a given language was checked above
            raise InputError(f"text {number} reads as {text_lang!r}, and open affective states cover {_COVERED}")
    predictor = _with_states(resolve_predictor(model), sorted(set(langs)), states, states_only, progress)
    prepared = [prepare(text, text_lang) for text, text_lang in zip(items, langs, strict=True)]
    ranked = predictor.predict(prepared, langs, k=k)
    return [
        OpenDetection(text, text_lang, [[t.to_dict() for t in mask] for mask in masks], _notes(text_lang, read_as))
        for text, text_lang, read_as, masks in zip(items, langs, identified, ranked, strict=True)
    ]


def _with_states(
    predictor: Any, langs: Sequence[str], states: Sequence[str] | None, only: bool,
    progress: Callable[[int, int], None] | None,
) -> Any:  # fmt: skip
    """The predictor with the user's candidate states (refused for a predictor that cannot rank any state)."""
    if states is None:
        if only:
            raise InputError("states_only needs states (--states-only needs --states FILE)")
        return predictor
    if not hasattr(predictor, "with_states"):
        raise InputError(f"the {predictor.kind!r} predictor ranks its own words only; --states needs the default")
    for lang in langs:
        predictor = predictor.with_states(lang, states, only=only, progress=progress)
    return predictor


def _notes(lang: str, read_as: str) -> list[str]:
    """A note when the text reads as another covered language than the one it was ranked in."""
    if read_as != lang and read_as in OPEN_LANGS:
        return [f"the text reads as {read_as!r}; ranked {lang!r} states as asked"]
    return []
