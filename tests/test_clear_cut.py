"""The shipped default on clear-cut sentences written for affectlab (issues 23 and 32): four phrasings of each
emotion and four neutral ones in Ukrainian, English, Spanish, Russian, German and Brazilian Portuguese, and in
English four of disgust beside anger. Each must come out with its emotions among the labels (a neutral one: `none`
alone), read as its language, which the model says it was trained on. A fixture key is ``<labels>-<n>``, its labels
joined by ``+``.

Misses of the shipped default are listed in ``KNOWN_MISSES`` and expected to fail (strictly: a rebuilt default
that gets one right must take it off the list), so the list is the default's record on these sentences: 14 of
172 since ``affectlab-models`` 2026.11.30.1 (issue 52's fifth candidate: six new misses, one fewer), 9 before it
and 14 before issue 41 rebuilt the ekman head (``benchmarks/quality/decision_transfer.py``, ``clear_cut``)."""

import json
from pathlib import Path

import pytest

import affectlab
from affectlab.labels import EKMAN

SENTENCES = json.loads((Path(__file__).parent / "fixtures" / "clear_cut_sentences.json").read_text(encoding="utf-8"))
_ENGLISH_DISGUST = (
    "English disgust is learned from GoEmotions alone (SemEval-2025 eng has no disgust column): the encoder reads "
    'this English sentence as anger, and no decision rule tuned on dev gets it (BENCHMARKS.md, "English disgust, '
    "and decisions beyond BRIGHTER's label rates\")"
)
KNOWN_MISSES: dict[tuple[str, str], str] = {
    ("uk", "anger-2"): "surprise: 'як ти смієш' read as surprise",
    ("uk", "disgust-4"): "none: 'це бридко' after a plain description",
    ("uk", "fear-4"): "none: 'я в жаху' in a call for help",
    ("en", "disgust-1"): f"anger. {_ENGLISH_DISGUST}",
    ("en", "anger+disgust-2"): f"anger alone. {_ENGLISH_DISGUST}",
    ("en", "anger+disgust-3"): f"anger alone. {_ENGLISH_DISGUST}",
    ("es", "anger-3"): "fear: 'me da muchísima rabia'",
    ("es", "anger-4"): "fear: '¡qué rabia!'",
    # since affectlab-models 2026.11.30.1 (issue 52's fifth candidate encoder):
    ("uk", "anger-1"): "fear: 'страшенно злий' (terribly angry) read by the fear in 'страшенно'",
    ("ru", "sadness-2"): "fear: a night of crying over a dog that died",
    ("ru", "sadness-3"): "fear: 'разбито сердце ... очень одиноко'",
    ("ru", "surprise-3"): "joy alone: a parcel a week early",
    ("de", "anger-2"): "disgust alone: 'Ich bin stinksauer!'",
    ("pt-BR", "disgust-4"): "anger: 'que nojento' after a plain description",
}


def _marks(lang: str, key: str) -> list:
    if (lang, key) not in KNOWN_MISSES:
        return []
    return [pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[lang, key])]


def _labels(key: str) -> list[str]:
    return key.rsplit("-", 1)[0].split("+")


CASES = [
    pytest.param(lang, _labels(key), text, id=f"{lang}-{key}", marks=_marks(lang, key))
    for lang, by_key in SENTENCES.items()
    if not lang.startswith("_")
    for key, text in by_key.items()
]


@pytest.mark.slow
@pytest.mark.parametrize(("lang", "labels", "text"), CASES)
def test_a_clear_cut_sentence_gets_its_emotions(lang, labels, text):
    (detection,) = affectlab.detect(text)
    assert (detection.lang, detection.supported) == (lang, True)
    if labels == ["none"]:
        assert detection.labels == ["none"]
    else:
        assert set(labels) <= set(detection.labels)


def test_every_language_has_several_phrasings_of_each_emotion_and_of_none():
    for lang, by_key in SENTENCES.items():
        if not lang.startswith("_"):
            counts = {label: sum(label in _labels(key) for key in by_key) for label in EKMAN.labels}
            assert min(counts.values()) >= 3, (lang, counts)


def test_known_misses_name_sentences_that_exist():
    assert all(key in SENTENCES[lang] for lang, key in KNOWN_MISSES)
