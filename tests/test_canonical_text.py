"""The spelling of a text the default's encoder and n-gram members read (issue 41): edits that keep the meaning
(capitals, the text said twice, an @mention and a link) leave it unchanged; "!!!" is taught by data instead."""

import pytest

from affectlab.text import canonical_text

TEXTS = [
    "I am so angry with them, they lied again.",
    "Мені так сумно без тебе.",
    "¡Estoy furioso, me volvieron a mentir!",
    "Ich bin heute so wütend",
    "What a horrible day 😩",
]
EDITS = [
    str.upper,
    lambda text: f"{text} {text}",
    lambda text: f"@user {text} https://t.co/x7Qp2Lm9Zk",
]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("edit", EDITS)
def test_edits_that_keep_the_meaning_keep_the_canonical_text(text, edit):
    assert canonical_text(edit(text)) == canonical_text(text)


def test_what_it_keeps():
    assert canonical_text("I am SO angry") == "I am SO angry"  # one shouted word is emphasis, not capitals
    assert canonical_text("ha ha ha ha") == "ha ha ha ha"  # a short unit repeated is laughter, not a repetition
    assert canonical_text("!!!") == "!!!"  # nothing would be left: read as it is
    assert canonical_text("Hey @anna, look") == "Hey @anna, look"  # only the mentions a text opens with go
    assert canonical_text("Is it? Really!!!") == "Is it? Really!!!"  # punctuation stays


def test_capitals_read_in_sentence_case():
    assert canonical_text("WHAT A DAY. ¡QUÉ RABIA! I HATE IT") == "What a day. ¡Qué rabia! I hate it"
    assert canonical_text("ICH HABE KEINE ZEIT") == "Ich habe keine zeit"  # a noun's capital is not recovered


def test_a_long_text_is_not_searched_for_repetitions():
    long = "word " * 400
    assert canonical_text(long) == long.strip()


@pytest.mark.slow
def test_an_encoder_that_reads_canonical_text_embeds_an_edit_as_its_text(tmp_path):
    import json
    import shutil

    import numpy as np

    from affectlab.encoders.onnx_encoder import CONFIG_FILE, READS, OnnxEncoder
    from affectlab.encoders.sentence import E5_AFFECT_DIR

    folders = {}
    for reads in ("canonical", "as typed"):
        folders[reads] = tmp_path / reads.replace(" ", "_")
        shutil.copytree(E5_AFFECT_DIR, folders[reads])
        config = json.loads((folders[reads] / CONFIG_FILE).read_text(encoding="utf-8"))
        config = {key: value for key, value in config.items() if key != READS}
        if reads == "canonical":
            config[READS] = reads
        (folders[reads] / CONFIG_FILE).write_text(json.dumps(config), encoding="utf-8")
    plain, canonical = OnnxEncoder(folders["as typed"]), OnnxEncoder(folders["canonical"])
    assert OnnxEncoder(E5_AFFECT_DIR).reads_canonical and not plain.reads_canonical
    text = "What a horrible day, everything went wrong."
    vectors = canonical.encode([text, text.upper(), f"{text} {text}", f"@user {text} https://t.co/x7Qp2Lm9Zk"])
    assert np.allclose(vectors, vectors[0], atol=1e-5)
    assert canonical.id != plain.id  # the embedding cache keeps them apart


def test_an_ngram_member_can_read_canonical_text():
    from affectlab.detectors.batch import Inputs
    from affectlab.detectors.ngrams import FEATURE_DEFAULTS, NgramFeatures

    features = NgramFeatures({**FEATURE_DEFAULTS, "canonical": True})
    texts = ["What a horrible day", "I love this song so much"]
    features.fit_transform(Inputs(texts, [[], []], ["", ""]))
    edited = features.transform(Inputs([texts[0].upper(), f"@user {texts[1]}"], [[], []], ["", ""]))
    assert (edited != features.transform(Inputs(texts, [[], []], ["", ""]))).nnz == 0
