"""Applying a fitted TF-IDF vocabulary without scikit-learn gives scikit-learn's own features, on real texts in
three languages and on awkward ones."""

import numpy as np
import pytest

from affectlab.datasets import resolve_dataset
from affectlab.detectors.ngrams import FEATURE_DEFAULTS, FittedBlock, _vectorizer
from affectlab.text import normalise

AWKWARD = [
    "a",
    "I",
    "ok ok ok ok",
    "😀😀 🎉",
    "Мені   страшно\tі\r\nсумно!!!",
    "¡¿Qué?! ÑANDÚ straße İstanbul",
    "x" * 300,
    "http://example.com @user #tag",
    "don't won't can't",
    "   ",
]


@pytest.fixture(scope="module")
def texts(data_dir):
    train, test = [], []
    for name in ("emobench-ua", "semeval2025-eng", "semeval2025-esp"):
        data = resolve_dataset(name, data_dir)[1]
        train += data["train"].select(range(400))["text"]
        test += data["test"].select(range(100))["text"]
    return [normalise(t) for t in train], [normalise(t) for t in [*test, *AWKWARD]]


@pytest.mark.parametrize("kind", ["word", "char"])
@pytest.mark.parametrize("max_features", [300_000, 2_000])
def test_fitted_block_gives_the_vectorizers_features(texts, kind, max_features):
    train, test = texts
    vectorizer = _vectorizer(kind, {**FEATURE_DEFAULTS, "max_features": max_features})
    vectorizer.fit(train)
    ngrams = FEATURE_DEFAULTS["char_ngrams" if kind == "char" else "word_ngrams"]
    block = FittedBlock(kind, tuple(ngrams), dict(vectorizer.vocabulary_), vectorizer.idf_)
    expected = vectorizer.transform(test).toarray()
    actual = block.transform(test)
    assert actual.shape == expected.shape and actual.dtype == np.float32
    np.testing.assert_allclose(actual.toarray(), expected, atol=1e-6)


def test_a_short_word_gives_itself_once_as_a_character_ngram():
    block = FittedBlock("char", (1, 5), {}, np.zeros(0))
    assert block.ngrams("ab").count(" ab ") == 1 and " ab " in block.ngrams("ab")
    assert block.ngrams("a") == [" ", "a", " ", " a", "a ", " a "]
