"""Applying a fitted TF-IDF vocabulary without scikit-learn gives scikit-learn's own features, on real texts in
three languages and on awkward ones."""

import numpy as np
import pytest

from affectlab.datasets import resolve_dataset
from affectlab.detectors import ngrams
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
    "nul\x00inside and a lone \udc80 surrogate",
    "\ufeffbom at the start",
]


@pytest.fixture(scope="module")
def texts(data_dir):
    train, test = [], []
    for name in ("emobench-ua", "semeval2025-eng", "semeval2025-esp"):
        data = resolve_dataset(name, data_dir)[1]
        train += data["train"].select(range(400))["text"]
        test += data["test"].select(range(100))["text"]
    return [normalise(t) for t in train], [normalise(t) for t in [*test, *AWKWARD]]


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.parametrize("char_ngrams", [(1, 1), (2, 3), (3, 5), (4, 5), (5, 5)])
def test_hashed_character_ngrams_match_the_vectorizer_for_every_range(texts, char_ngrams):
    """Words shorter than the smallest n count once, whole; the hashed lookup must agree with scikit-learn."""
    train, test = texts
    vectorizer = _vectorizer("char", {**FEATURE_DEFAULTS, "char_ngrams": char_ngrams})
    vectorizer.fit(train)
    block = FittedBlock("char", char_ngrams, dict(vectorizer.vocabulary_), vectorizer.idf_)
    np.testing.assert_allclose(block.transform(test).toarray(), vectorizer.transform(test).toarray(), atol=1e-6)


def test_a_vocabulary_whose_hashes_collide_falls_back_to_exact_lookups(texts, monkeypatch):
    train, test = texts
    vectorizer = _vectorizer("char", FEATURE_DEFAULTS).fit(train)

    def colliding(*args):
        raise ValueError("two vocabulary n-grams share a hash")

    monkeypatch.setattr(ngrams, "CharNgramIndex", colliding)
    block = FittedBlock("char", (1, 5), dict(vectorizer.vocabulary_), vectorizer.idf_)
    np.testing.assert_allclose(block.transform(test).toarray(), vectorizer.transform(test).toarray(), atol=1e-6)


def test_the_index_refuses_a_vocabulary_with_two_terms_of_one_hash(monkeypatch):
    monkeypatch.setattr(ngrams.CharNgramIndex, "_fnv", staticmethod(lambda points: np.zeros(len(points), np.uint64)))
    with pytest.raises(ValueError, match="share a hash"):
        ngrams.CharNgramIndex({"ab": 0, "cd": 1}, (1, 5))


def test_texts_without_words_give_empty_rows():
    block = FittedBlock("char", (1, 5), {" a": 0, "a ": 1}, np.ones(2))
    matrix = block.transform(["", "   ", "a"])
    assert matrix.shape == (3, 2) and matrix[:2].nnz == 0 and matrix[2].nnz == 2
