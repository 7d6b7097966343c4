"""The English rule of the language identifier (:func:`affectlab.langid._clearly_english`) asks simplemma's English
dictionary only about texts the cheaper rules leave open: never about a text the model already reads as English,
whose answer it could not change (issue 42: the dictionary took 1.8 s of a 10,000-text run)."""

from __future__ import annotations

import numpy as np
import pytest

from affectlab import langid


def _refuse(text: str) -> float:
    raise AssertionError(f"simplemma was asked about {text!r}")


def test_a_text_the_model_reads_as_english_never_asks_simplemma(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(langid, "_known_english", _refuse)
    assert langid.detect_language("What a horrible day, I just want to go home and sleep") == "en"


def test_a_text_the_model_reads_as_another_language_is_still_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "In between my toes."  # English dev text of SemEval-2025 that the n-gram model reads as Afrikaans
    model = langid.ngram_model()
    scores, n_grams = model.log_likelihoods(text)
    assert model.tags[int(np.argmax(scores))] == "af" and n_grams and langid.detect_language(text) == "en"
    asked: list[str] = []
    monkeypatch.setattr(langid, "_known_english", lambda text: asked.append(text) or 0.0)
    assert langid.detect_language(text) == "af" and asked == [text]
