"""``tfidf-lr``'s ``coef_storage``: float16 weights in a saved model (the shipped heads' n-gram members, issue 54)
read back as float32, with probabilities within the stated tolerance of the float32 model's."""

import numpy as np
import pytest

from affectlab.detectors import read_detector
from affectlab.detectors.tfidf import TfidfLogisticRegression
from affectlab.errors import InputError
from affectlab.labels import EKMAN

TEXTS = [
    "I am so happy today, what a joy", "this makes me furious and angry", "I'm scared of the dark night",
    "so sad, I cried all day long", "ew, gross and disgusting food", "wow, I did not expect that at all",
    "the bus leaves at nine", "happy happy joy to everyone", "angry at the rude driver again",
    "afraid of losing my job", "my dog died and I miss him", "what a surprise party it was",
]  # fmt: skip
LABELS = [3, 0, 2, 4, 1, 5, 6, 3, 0, 2, 4, 5]
TOLERANCE = 5e-4
"""Stated in ``benchmarks/notes/issue54_package_size.md``: float16 weights moved the shipped members' dev
probabilities by at most 1.1e-4."""


def trained(storage: str) -> TfidfLogisticRegression:
    Y = np.eye(len(EKMAN), dtype=np.int8)[LABELS]
    return TfidfLogisticRegression(coef_storage=storage, min_df=1).fit(TEXTS, Y, EKMAN)


def test_float16_weights_are_read_back_as_float32_within_the_tolerance(tmp_path):
    full, half = trained("float32"), trained("float16")
    full.save(tmp_path / "full")
    half.save(tmp_path / "half")
    read_full, read_half = read_detector(tmp_path / "full"), read_detector(tmp_path / "half")
    assert read_half.coef_.dtype == np.float32
    with np.load(tmp_path / "half" / "arrays.npz") as arrays:
        assert arrays["coef"].dtype == np.float16
    expected = full.predict_proba(TEXTS)
    assert np.array_equal(read_full.predict_proba(TEXTS), expected)
    assert np.abs(read_half.predict_proba(TEXTS) - expected).max() < TOLERANCE


def test_an_unknown_storage_is_refused_in_one_line():
    with pytest.raises(InputError, match="coef_storage is one of float32, float16"):
        TfidfLogisticRegression(coef_storage="int4")
