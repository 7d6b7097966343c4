"""Each language of SemEval-2025 Task 11 is one record (:mod:`affectlab.languages`); every other table of
languages is derived from it and reads as it did when each was written out by hand."""

from __future__ import annotations

from affectlab import langid
from affectlab.datasets import semeval2025
from affectlab.detectors import default, keywords
from affectlab.languages import BRIGHTER_LANGS, BY_CODE, LANGUAGES, tags_by_code

TRACK_B = ("amh", "arq", "chn", "deu", "eng", "esp", "hau", "ptbr", "ron", "rus", "ukr")


def test_there_is_one_record_per_track_a_language_with_a_unique_tag_and_code():
    assert len(BRIGHTER_LANGS) == len(set(BRIGHTER_LANGS.values())) == 28
    assert list(BY_CODE) == sorted(BY_CODE) and LANGUAGES.get("uk").code == "ukr"


def test_the_identifier_accepts_every_code_it_accepted_when_they_were_listed_by_hand():
    spelled_out = {
        "ukr": "uk", "eng": "en", "spa": "es", "deu": "de", "ger": "de", "rus": "ru", "por": "pt-BR", "pt": "pt-BR",
        "ar": "ary", "ara": "ary", "zho": "zh", "cmn": "zh", "zh-latn": "zh", "amh": "am", "tir": "ti", "hin": "hi",
        "mar": "mr", "ron": "ro", "swe": "sv", "afr": "af", "hau": "ha", "ibo": "ig", "kin": "rw", "orm": "om",
        "som": "so", "sun": "su", "swa": "sw", "tat": "tt", "yor": "yo", "pt-br": "pt-BR", "esp": "es",
    }  # fmt: skip
    assert spelled_out.items() <= langid.ALIASES.items()
    assert set(langid.ALIASES.values()) == langid.SUPPORTED == set(BRIGHTER_LANGS.values())
    assert langid.normalise("PT") == "pt-BR" and langid.normalise("cmn") == "zh"


def test_the_keyword_detector_reads_the_codes_of_its_three_languages():
    spelled_out = {"uk": "uk", "ukr": "uk", "en": "en", "eng": "en", "es": "es", "esp": "es", "spa": "es"}
    assert spelled_out == keywords.LANG_CODES
    assert tags_by_code(("uk",)) == {"uk": "uk", "ukr": "uk"}


def test_the_dataset_tables_say_what_each_record_annotates():
    assert set(semeval2025.EMOTIONS["eng"]) == {"anger", "fear", "joy", "sadness", "surprise"}
    assert "surprise" not in semeval2025.EMOTIONS["afr"] and semeval2025.WITHOUT_NEUTRAL == ("esp",)
    assert list(semeval2025.INTENSITY_SPLITS) == [*(code for code in TRACK_B if code != "ron"), "ron"]
    assert semeval2025.INTENSITY_SPLITS["ron"] == ("dev", "test")
    assert semeval2025.label_space("esp").labels == ("anger", "disgust", "fear", "joy", "sadness", "surprise")


def test_the_default_routes_and_model_card_derive_from_the_records():
    assert tuple(f"semeval2025-{code}-intensity" for code in TRACK_B) == default.EKMAN_INTENSITY_SCORED_ON
    pooled = default.EKMAN_ROUTES[default.FALLBACK]
    assert pooled[0] == "emobench-ua" and len(pooled) == 25
    assert not {"semeval2025-eng", "semeval2025-esp", "semeval2025-afr"} & set(pooled)
    assert set(default.EKMAN_ROUTES) - {default.FALLBACK} == set(BRIGHTER_LANGS.values())
