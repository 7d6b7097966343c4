"""Languages, told honestly (issue 41, part 4): a document's sentences each have their language, the document the
language of most of its characters and a note naming its languages with their shares; a text too short or too
repetitive to tell is ``und`` (still scored, with a note saying why); Arabic in Latin letters is not claimed as an
African language; BCP 47 tags are read as the language of the 28 they name and shown as given."""

import json

import pytest

import affectlab
from affectlab.cli import main
from affectlab.errors import InputError
from affectlab.langid import SUPPORTED, detect_language, normalise

PARAGRAPHS = {
    "en": "I finally got the job I wanted, and I am so happy today. My whole family came over to celebrate with me. "
    "We laughed and talked until late at night, and nobody wanted to go home. It was the best evening we have had "
    "in years. My little brother made a cake, and my mother cried a little when she read the letter from the "
    "company. Tomorrow I will call my grandmother and tell her everything. I still cannot believe that it is true, "
    "and I keep reading the email again and again to be sure.",
    "fi": "Olen todella onnellinen tänään, koska sain vihdoin unelmieni työpaikan. Kissani nukkuu koko päivän "
    "sohvalla eikä välitä mistään. Huomenna menemme koko perheen kanssa mökille järven rannalle ja saunomme "
    "pitkään illalla.",
    "ja": "私の猫は一日中ソファで寝ています。今日はとても嬉しいです、やっと夢の仕事が見つかりました。"
    "明日は友達と一緒に映画を見に行きます。家族みんなでお祝いをしました。本当に素晴らしい一日でした。",
    "de": "Ich bin so wütend, sie haben meinen Flug schon wieder gestrichen! Niemand konnte mir sagen, wann der "
    "nächste geht.",
    "es": "¡Qué alegría verte de nuevo después de tantos años! Me da mucho miedo la oscuridad, pero contigo no tengo "
    "miedo.",
    "uk": "Я так чекала на цей день! Мені дуже страшно йти додому самій, але сьогодні я щаслива.",
    "sv": "Jag är så glad idag, vi vann matchen! Alla i laget firade hela kvällen tillsammans.",
}
SEVEN = "\n\n".join(PARAGRAPHS.values())
AFRICAN = {"sw", "ha", "ig", "so", "yo", "om", "rw", "am", "ti", "vmw", "pcm", "af"}


@pytest.fixture(scope="module")
def seven():
    (result,) = affectlab.detect(SEVEN, sentences=True, fast=True)
    return result


def test_each_sentence_of_a_document_has_its_own_language_and_support(seven):
    by_paragraph = {lang: [s for s in seven.sentences if s.text in paragraph] for lang, paragraph in PARAGRAPHS.items()}
    for lang, sentences in by_paragraph.items():
        assert sentences and {s.lang for s in sentences} == {lang}, lang
        assert {s.supported for s in sentences} == {lang in SUPPORTED}, lang
    assert all("supported" in s for s in seven.to_dict()["sentences"])


def test_a_document_is_in_the_language_of_most_of_its_characters_and_names_the_others(seven):
    assert len(SEVEN) > 1000 and (seven.lang, seven.supported) == ("en", True)
    assert list(seven.languages) == ["en", "fi", "de", "es", "ja", "uk", "sv"]
    assert seven.languages["en"] == pytest.approx(0.41, abs=0.01) and sum(seven.languages.values()) <= 1.0
    assert "languages: en 41 %, fi 18 %, de 10 %, es 9 %, ja 8 %, uk 7 %, sv 7 %" in seven.notes
    assert seven.to_dict()["languages"] == seven.languages


def test_a_document_in_one_language_names_none(seven):
    (result,) = affectlab.detect(PARAGRAPHS["en"] * 3, fast=True)
    assert result.lang == "en" and result.languages is None
    assert not [note for note in result.notes if note.startswith("languages:")]


SHORT_MIXED = (
    "I am so happy today, I got the job. Я дуже сумую за домом і мамою. Estoy muy cansada después del trabajo. "
    "Ich habe heute leider keine Zeit für dich. Olen todella väsynyt tänään illalla. Je suis très content de te "
    "voir. 今日はとても楽しかったです。 We should meet again soon."
)


def test_a_short_text_in_several_languages_is_told_as_a_long_one_is():
    assert len(SHORT_MIXED) < 1000
    (result,) = affectlab.detect(SHORT_MIXED, fast=True)
    assert result.languages is not None and {"en", "uk", "es", "de", "fi", "fr"} <= set(result.languages)
    assert result.lang == next(iter(result.languages)) == "en"
    assert any(note.startswith("languages: en ") for note in result.notes)


def test_a_short_text_in_one_language_or_with_its_language_given_names_none():
    (one,) = affectlab.detect(PARAGRAPHS["en"][:400], fast=True)
    (given,) = affectlab.detect(SHORT_MIXED, lang="en", fast=True)
    assert (one.lang, one.languages, given.lang, given.languages) == ("en", None, "en", None)


def test_the_terminal_and_a_file_run_show_the_languages(capsys, tmp_path):
    assert main(["detect", SEVEN, "--fast", "--sentences"]) == 0
    out = capsys.readouterr().out
    assert "languages: en 41 %, fi 18 %" in out and " fi " in out and " ja " in out
    source, output = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(json.dumps({"text": SEVEN}) + "\n" + json.dumps({"text": "Kiitos"}) + "\n", encoding="utf-8")
    assert main(["detect", "--input", str(source), "--output", str(output), "--fast", "--sentences"]) == 0
    document, word = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert document["lang"] == "en" and "languages: en 41 %" in document["notes"]
    assert {s["lang"] for s in document["sentences"]} == set(PARAGRAPHS)
    assert {(s["lang"], s["supported"]) for s in document["sentences"]} >= {("fi", False), ("uk", True)}
    assert (word["lang"], word["supported"]) == ("und", False) and "single word" in word["notes"]


@pytest.mark.parametrize("text", ["Kiitos", "Teşekkürler", "ok", "Ура!", "Merci!!!", "谢谢", "哈哈哈哈!"])
def test_a_single_word_has_no_language(text):
    assert detect_language(text) == "und"
    (result,) = affectlab.detect(text, fast=True)
    assert (result.lang, result.supported) == ("und", False) and result.labels
    assert result.notes == [
        "language not identified (a single word is too little to tell): scored as a text of any language; take "
        "these scores as a guess"
    ]


def test_short_sentences_are_still_told_and_three_han_characters_are_more_than_a_word():
    assert detect_language("好开心") == "zh" and detect_language("Я дуже злий на тебе") == "uk"
    assert detect_language("I am so happy today!") == "en" and detect_language("Aah me muero") == "es"
    assert detect_language("iPhone老用户谁没有几根掉了包皮的环保材料数据线呢") == "zh"  # a Latin word run into Han


def test_words_run_together_are_long_enough_to_tell():
    oromo = "GoootagaaafaxiiiqiiiitttimudddiiisanyiiiumriiidheeerinasiiifyaaakennnuqomoooKoooobsineeerrra"  # orm dev
    assert detect_language(oromo) == "om"


def test_one_letter_fifty_thousand_times_has_no_language_and_is_still_scored():
    (result,) = affectlab.detect("a" * 50_000, fast=True)
    assert (result.lang, result.supported) == ("und", False) and result.labels
    assert result.notes[0].startswith("language not identified (the text has only 1 different letter)")


@pytest.mark.parametrize("text", ["12345 678", "!!! ??? ...", "😡😡 100%", "2024-05-01 12:30"])
def test_digits_and_punctuation_have_no_language(text):
    (result,) = affectlab.detect(text, fast=True)
    assert result.lang == "und" and "(the text has no letters)" in result.notes[0]


@pytest.mark.parametrize(
    "text",
    [
        "wach nta mzyan? ana bikhir lhamdulillah",
        "3lach ma jitich lbare7? kan khassek tji m3ana",
        "rani m3ak f klamek li katbo ghalt w surment ykon sghir f 3a9lo",
        "inchallah ghadi nmchi l dar bzaf dyal nass kaynin",
        "khoya safi daba ghir sber, kolchi ghadi ykon mzyan",
    ],
)
def test_arabic_in_latin_letters_is_moroccan_arabic_with_a_note(text):
    assert detect_language(text) == "ary"
    (result,) = affectlab.detect(text, fast=True)
    assert result.lang == "ary" and result.lang not in AFRICAN
    assert any(note.startswith("Arabic in Latin letters (Arabizi)") for note in result.notes)


def test_swahili_hausa_and_somali_are_not_read_as_arabizi():
    assert detect_language("Nimefurahi sana leo kwa sababu nimepata kazi, safi sana.") == "sw"
    assert detect_language("Ina matukar farin ciki yau da safe.") == "ha"
    assert detect_language("Aad baan u faraxsanahay maanta.") == "so"


@pytest.mark.parametrize(
    ("tag", "base"),
    [("zh-Hant", "zh"), ("zh-Hans", "zh"), ("zh-Hant-TW", "zh"), ("pt-PT", "pt-MZ"), ("es-419", "es"),
     ("en-GB", "en"), ("uk-UA", "uk"), ("ar-DZ", "arq"), ("ar-MA", "ary"), ("ukr", "uk"), ("pt", "pt-BR")],
)  # fmt: skip
def test_a_bcp47_tag_is_read_as_the_language_of_the_28_it_names(tag, base):
    assert normalise(tag) == base


def test_a_neighbouring_language_is_not_read_as_one_of_the_28():
    assert [normalise(tag) for tag in ("gsw", "be", "wuu", "yue", "fr")] == ["gsw", "be", "wuu", "yue", "fr"]


def test_a_given_tag_is_shown_as_given_and_scored_as_its_language():
    text = "我今天很高兴，因为考试通过了"
    traditional = affectlab.detect([text, text], lang="zh-Hant", fast=True)[0]
    (simplified,) = affectlab.detect(text, lang="zh", fast=True)
    assert (traditional.lang, traditional.supported, traditional.notes) == ("zh-Hant", True, [])
    assert traditional.scores == simplified.scores
    for tag in ("pt-PT", "es-419"):
        (result,) = affectlab.detect("Estou muito feliz hoje, consegui o emprego!", lang=tag, fast=True)
        assert (result.lang, result.supported) == (tag, True)


def test_the_command_line_accepts_zh_hant_and_refuses_a_bad_tag_in_one_line(capsys):
    assert main(["detect", "我今天很高兴，因为考试通过了", "--lang", "zh-Hant", "--fast", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["lang"], shown["supported"]) == ("zh-Hant", True)
    assert main(["detect", "hello there", "--lang", "xx-yy", "--fast"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "'xx-yy' is not a BCP 47 language tag" in err
    with pytest.raises(InputError, match="not a BCP 47 language tag"):
        affectlab.detect("hello there", lang="en-US-US")


def test_the_service_names_a_documents_languages_and_refuses_a_bad_tag():
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    httpx = pytest.importorskip("httpx")
    from affectlab.serve.app import create_app
    from serving import running

    with running(create_app()) as url:
        body = {"text": SEVEN, "sentences": True}
        (result,) = httpx.post(f"{url}/v1/detect", json=body, timeout=120).json()["results"]
        assert (result["lang"], result["supported"]) == ("en", True) and list(result["languages"])[:2] == ["en", "fi"]
        assert any(note.startswith("languages: en ") for note in result["notes"])
        assert {(s["lang"], s["supported"]) for s in result["sentences"]} >= {("ja", False), ("de", True)}
        body = {"text": "我今天很高兴，因为考试通过了", "lang": "zh-Hant"}
        (chinese,) = httpx.post(f"{url}/v1/detect", json=body, timeout=60).json()["results"]
        assert (chinese["lang"], chinese["supported"]) == ("zh-Hant", True)
        refused = httpx.post(f"{url}/v1/detect", json={"text": "hello there", "lang": "xx"}, timeout=60)
        assert refused.status_code == 422 and "not a BCP 47 language tag" in refused.json()["error"]
