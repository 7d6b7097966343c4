"""Lazily loaded models used from many threads at once: every first call gets the answer one thread alone gets
(issue 30: a burst of first requests failed with ``'NoneType' object has no attribute 'encode'`` while the
encoder was half loaded)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from affectlab.encoders.onnx_encoder import OnnxEncoder
from affectlab.encoders.sentence import E5_AFFECT_DIR

TEXTS = ["Я так чекала на цей день!", "Мені страшно", "What a horrible day", "thank you so much!",
         "¡Qué alegría verte!", "Tengo miedo de la noche"]  # fmt: skip
THREADS = 12
ROUNDS = 3


@pytest.mark.slow
def test_a_fresh_onnx_encoder_called_from_many_threads_gives_each_the_vectors_of_one_thread_alone():
    started = time.perf_counter()
    alone = OnnxEncoder(E5_AFFECT_DIR).encode(TEXTS)
    loading = time.perf_counter() - started  # the threads start spread over it: some come while it loads
    for _ in range(ROUNDS):
        encoder = OnnxEncoder(E5_AFFECT_DIR)

        def first_call(i: int, encoder: OnnxEncoder = encoder) -> np.ndarray:
            time.sleep(i * loading / THREADS)
            return encoder.encode(TEXTS)

        with ThreadPoolExecutor(THREADS) as pool:
            answers = list(pool.map(first_call, range(THREADS)))
        for answer in answers:
            np.testing.assert_array_equal(answer, alone)
