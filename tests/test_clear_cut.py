"""The shipped default on clear-cut sentences written for affectlab (issue 23): one per emotion and a neutral one in
Ukrainian, English, Spanish, Russian, German and Brazilian Portuguese. Each must come out with its emotion among the
labels (a neutral one: `none` alone), read as its language, which the model says it was trained on.

Misses of the shipped default are listed in ``KNOWN_MISSES`` and expected to fail (strictly: a rebuilt default
that gets one right must take it off the list), so the list is the default's record on these sentences."""

import json
from pathlib import Path

import pytest

import affectlab

SENTENCES = json.loads((Path(__file__).parent / "fixtures" / "clear_cut_sentences.json").read_text(encoding="utf-8"))
KNOWN_MISSES: dict[tuple[str, str], str] = {
    ("en", "disgust"): "anger (0.69): English disgust is learned from GoEmotions alone (SemEval-2025 eng has no "
    "disgust column), where it is rare (under 2 % of the comments)",
}


def _marks(lang: str, emotion: str) -> list:
    if (lang, emotion) not in KNOWN_MISSES:
        return []
    return [pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[lang, emotion])]


CASES = [
    pytest.param(lang, emotion, text, id=f"{lang}-{emotion}", marks=_marks(lang, emotion))
    for lang, by_emotion in SENTENCES.items()
    if not lang.startswith("_")
    for emotion, text in by_emotion.items()
]


@pytest.mark.parametrize(("lang", "emotion", "text"), CASES)
def test_a_clear_cut_sentence_gets_its_emotion(lang, emotion, text):
    (detection,) = affectlab.detect(text)
    assert (detection.lang, detection.supported) == (lang, True)
    if emotion == "none":
        assert detection.labels == ["none"]
    else:
        assert emotion in detection.labels
