"""Facts about languages said once (issue 42): the first three languages in :mod:`affectlab.languages`, and the
languages of open affective states with their "I feel {}." template in :mod:`affectlab.openstates.languages`,
which the predictors, their saved files, ``detect --open`` and the lexicons all read."""

from __future__ import annotations

import json

from affectlab.languages import BY_CODE, FIRST_CODES, FIRST_LANGUAGES, LANGUAGES
from affectlab.openstates.languages import OPEN_LANGS, OPEN_LANGUAGES, STATE_TEMPLATES
from affectlab.openstates.lexicon import default_states
from affectlab.openstates.predictors.base import prepare
from affectlab.openstates.predictors.embedded import NO_FEELING
from affectlab.openstates.predictors.open_vocabulary import HEADS_DIR


def test_the_first_three_languages_are_records_of_the_28() -> None:
    assert FIRST_LANGUAGES == ("uk", "en", "es")
    assert [BY_CODE[code].tag for code in FIRST_CODES] == list(FIRST_LANGUAGES)
    assert all(tag in LANGUAGES for tag in FIRST_LANGUAGES)


def test_open_states_cover_english_and_spanish_with_their_feeling_phrase() -> None:
    assert OPEN_LANGS == ("en", "es")
    assert STATE_TEMPLATES == {"en": "I feel {}.", "es": "Me siento {}."}
    assert [OPEN_LANGUAGES[lang].name for lang in OPEN_LANGS] == ["English", "Spanish"]
    assert NO_FEELING == {"en": "nothing", "es": "nada"}


def test_a_text_without_masks_gets_its_languages_phrase_appended() -> None:
    assert prepare("We lost the final.", "en") == "We lost the final. I feel <extra_id_0>."
    assert prepare("Perdimos la final.", "es") == "Perdimos la final. Me siento <extra_id_0>."


def test_the_shipped_predictor_was_built_with_the_same_templates() -> None:
    saved = json.loads((HEADS_DIR / "open_states.json").read_text(encoding="utf-8"))
    assert saved["state_template"] == STATE_TEMPLATES and set(saved["candidates"]) == set(OPEN_LANGS)


def test_every_open_language_has_a_shipped_lexicon() -> None:
    assert all(default_states(lang) for lang in OPEN_LANGS)
