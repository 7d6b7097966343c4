"""The same text gets the same scores, bit for bit, alone and in any batch, by the API, ``detect --input`` and the
service (issue 22): the shipped default's three heads and its fast profile, over real test texts in uk, en and es
in shuffled batches of different sizes."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import affectlab
from affectlab.cli import main
from affectlab.datasets import resolve_dataset
from affectlab.detectors.readings import read_texts
from affectlab.detectors.resolve import resolve_detector

HEADS = [("ekman", False), ("goemotions", False), ("emocontext", False), ("ekman", True)]
BATCH_SIZES = (1, 3, 16, 50, 120)


@pytest.fixture(scope="module")
def texts(data_dir):
    real = []
    for name in ("emobench-ua", "semeval2025-eng", "semeval2025-esp", "goemotions"):
        real += resolve_dataset(name, data_dir)[1]["test"].select(range(75))["text"]
    return real


def shuffled_batches(n: int, seed: int) -> list[list[int]]:
    """The indices ``0..n-1`` in a random order, cut into batches of random sizes."""
    rng = random.Random(seed)
    order = list(range(n))
    rng.shuffle(order)
    batches, start = [], 0
    while start < n:
        size = rng.choice(BATCH_SIZES)
        batches.append(order[start : start + size])
        start += size
    return batches


@pytest.mark.slow
@pytest.mark.parametrize(("taxonomy", "fast"), HEADS)
def test_scores_are_the_same_bit_for_bit_alone_and_in_any_batch(texts, taxonomy, fast):
    detector = resolve_detector("default", taxonomy, fast)
    done = read_texts(detector, texts)
    whole, labels = np.array([reading.scores for reading in done]), [reading.labels for reading in done]
    for seed in (0, 1):
        scores = np.full_like(whole, np.nan)
        for batch in shuffled_batches(len(texts), seed):
            scores[batch] = [reading.scores for reading in read_texts(detector, [texts[i] for i in batch])]
        np.testing.assert_array_equal(scores, whole)
    for i in range(0, len(texts), 10):
        alone = read_texts(detector, [texts[i]])[0]
        np.testing.assert_array_equal(alone.scores, whole[i])
        assert alone.labels == labels[i]


@pytest.mark.slow
def test_a_file_scored_by_the_command_line_agrees_with_the_api_text_by_text(texts, tmp_path, capsys):
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("".join(json.dumps({"text": text}) + "\n" for text in texts), encoding="utf-8")
    assert main(["detect", "--input", str(source), "--output", str(out)]) == 0
    capsys.readouterr()
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    for i in range(0, len(texts), 7):
        [alone] = affectlab.detect(texts[i])
        assert rows[i]["labels"] == alone.labels, texts[i]
        scores = {key[len("score_") :]: value for key, value in rows[i].items() if key.startswith("score_")}
        assert scores == alone.scores


@pytest.mark.slow
def test_the_service_answers_each_text_as_the_api_does(texts):
    pytest.importorskip("fastapi")
    httpx = pytest.importorskip("httpx")
    from affectlab.serve.app import create_app
    from serving import running

    sample = texts[::9]
    expected = [result.to_dict() for result in affectlab.detect(sample)]
    with running(create_app(max_batch=64)) as url:
        batch = httpx.post(f"{url}/v1/detect", json={"texts": sample}, timeout=120).json()["results"]
        alone = [httpx.post(f"{url}/v1/detect", json={"text": t}, timeout=60).json()["results"][0] for t in sample[:10]]
    assert [(r["labels"], r["scores"]) for r in batch] == [(r["labels"], r["scores"]) for r in expected]
    assert [(r["labels"], r["scores"]) for r in alone] == [(r["labels"], r["scores"]) for r in expected[:10]]
