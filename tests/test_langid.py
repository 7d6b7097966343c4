"""Language identification (:mod:`affectlab.langid`): open-set (issue 32: the n-gram model of
:class:`~affectlab.langid.NgramModel` behind a margin, letters for Cyrillic, CLD3 for the names of other
languages), the tags of the 28 training languages, and what a detection says about a language the model was not
trained on."""

import json
from pathlib import Path

import pytest

import affectlab
from affectlab.cli import main
from affectlab.detectors.batch import Inputs
from affectlab.detectors.identify import read_languages
from affectlab.langid import SUPPORTED, detect_language, detect_language_batch, is_supported, normalise

CLEAR_CUT = {
    "uk": ["Я так чекала на цей день!", "Мені дуже страшно йти додому самій", "Я дуже злий на тебе"],
    "ru": ["Я очень зол на тебя, ты опять всё испортил", "Мне страшно выходить на улицу ночью"],
    "tt": ["Мин бүген бик шат, чөнки әнием кайтты"],
    "en": ["I am so happy today!", "I had been AWAKE.", "What a horrible day, I am furious."],
    "es": ["¡Qué alegría verte de nuevo!", "Me da mucho miedo la oscuridad", "Aah me muero"],
    "de": ["Ich bin so wütend, sie haben meinen Flug schon wieder gestrichen!"],
    "pt-BR": ["Estou com muito medo do escuro, não consigo dormir."],
    "zh": ["我今天非常高兴，因为我考试通过了"],
    "hi": ["मुझे आज बहुत खुशी हो रही है"],
    "am": ["ዛሬ በጣም ደስተኛ ነኝ"],
    "yo": ["Inú mi dùn gan-an lónìí, ẹ ṣé o"],
    "pcm": ["Wetin dey happen? I dey vex well well, abeg leave me."],
    "rw": ["Ndishimye cyane uyu munsi kuko nabonye akazi."],
    "om": ["Har'a baay'ee gammadeera, hojii argadheen jira."],
    "ti": ["ሎሚ ብጣዕሚ ሕጉስ እየ።"],
    "af": ["Ek is so bly om jou weer te sien!"],
    "sv": ["Jag är så glad idag, vi vann matchen!"],
    "ro": ["Sunt foarte fericit astăzi, am luat examenul!"],
    "sw": ["Nimefurahi sana leo kwa sababu nimepata kazi."],
    "ha": ["Ina matukar farin ciki yau da safe."],
    "so": ["Aad baan u faraxsanahay maanta."],
    "su": ["Abdi bungah pisan dinten ieu."],
    "mr": ["मला आज खूप आनंद झाला आहे."],
    "ig": ["Obi dị m ụtọ taa nke ukwuu."],
}


@pytest.mark.parametrize("lang", sorted(CLEAR_CUT))
def test_clear_cut_texts_are_read_as_their_language(lang):
    assert [detect_language(text) for text in CLEAR_CUT[lang]] == [lang] * len(CLEAR_CUT[lang])


def test_a_text_without_letters_has_no_language_and_a_given_language_wins():
    assert detect_language("😡😡 !!! 123") == "und"
    inputs = Inputs(["I am so happy", "I am so happy", "x"], [[], [], []], ["", "ukr", "pt"])
    assert read_languages(inputs.texts, inputs.langs) == ["en", "uk", "pt-BR"]


def test_a_batch_is_read_as_each_of_its_texts_alone():
    texts = [text for examples in CLEAR_CUT.values() for text in examples]
    texts += ["", "ok", "@user https://x.y", "Kiitos paljon", "Днес съм много щастлив", "wach nta m3ak daba"]
    assert detect_language_batch(texts) == [detect_language(text) for text in texts]
    assert detect_language_batch([]) == []


def test_codes_are_normalised_to_the_tags_of_the_training_languages():
    assert len(SUPPORTED) == 28 and {"uk", "en", "es", "de", "pt-BR", "pt-MZ", "arq", "ary", "om", "vmw"} <= SUPPORTED
    assert [normalise(code) for code in ("UKR", "esp", "deu", "pt-br", "ar", "orm", "fr")] == [
        "uk", "es", "de", "pt-BR", "ary", "om", "fr",
    ]  # fmt: skip
    assert is_supported("Tir") and not is_supported("fr")


def test_a_detection_says_its_language_and_whether_the_model_knows_it():
    english, french = affectlab.detect(["What a wonderful day!", "Je suis très en colère contre toi, vraiment."])
    assert (english.lang, english.supported, english.notes) == ("en", True, [])
    assert french.lang == "fr" and french.supported is False and "not trained on 'fr'" in french.notes[0]
    (given,) = affectlab.detect("What a wonderful day!", lang="fra")
    assert given.lang == "fra" and given.supported is False


def test_the_command_line_prints_the_language_and_a_one_line_note(capsys):
    assert main(["detect", "Je suis très en colère contre toi, vraiment.", "--lang", "fr"]) == 0
    out = capsys.readouterr().out
    assert "(fr)" in out and "note:" in out and "not trained on 'fr'" in out


SIBLINGS = {"pt-MZ": "pt-BR", "arq": "ary"}
"""The two sets of one language: either is right (the model tells them apart where it can)."""
CLEAR_CUT_FILE = Path(__file__).parent / "fixtures" / "clear_cut_sentences.json"


def test_the_clear_cut_sentences_are_read_as_their_languages():
    sentences = json.loads(CLEAR_CUT_FILE.read_text(encoding="utf-8"))
    for lang, by_emotion in sentences.items():
        if not lang.startswith("_"):
            texts = list(by_emotion.values())
            read = {text: SIBLINGS.get(detect_language(text), detect_language(text)) for text in texts}
            assert read == dict.fromkeys(texts, SIBLINGS.get(lang, lang))


def test_the_english_heads_say_a_german_text_is_not_what_they_were_trained_on():
    for taxonomy in ("goemotions", "emocontext"):
        (detection,) = affectlab.detect("Ich bin so wütend, sie haben meinen Flug gestrichen!", taxonomy=taxonomy)
        assert (detection.lang, detection.supported) == ("de", False)
        assert "not trained on 'de'" in detection.notes[0]
