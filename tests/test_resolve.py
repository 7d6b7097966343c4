"""One resolver of model references (issue 22): a saved model is loaded once per process (by ``detect``, the
command line and the service alike) and again only when its folder changes; detector objects are accepted wherever
a name is; the service holds what it serves, and answers concurrent requests in several languages exactly as one
thread does."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import affectlab
import affectlab.detectors.resolve as resolve
from affectlab.detectors import create_detector, read_detector
from affectlab.detectors.default import HEADS_DIR, load_default
from affectlab.errors import InputError
from affectlab.labels import EKMAN
from fuzz_support import check_exit, invoke

TEXTS = ["I am so happy today", "this is terrible and I am angry", "I am scared of the dark", "what a surprise"]


def train_keywords(directory: Path, texts: list[str] = TEXTS) -> Path:
    labels = np.eye(len(texts), len(EKMAN), dtype=np.int8)
    create_detector("keywords").fit(texts, labels, EKMAN).save(directory)
    return directory


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The folders the resolver read a saved detector from, in order (each entry one load from disk)."""
    seen: list[Path] = []

    def counting(folder):
        seen.append(Path(folder))
        return read_detector(folder)

    monkeypatch.setattr(resolve, "read_detector", counting)
    return seen


def test_detect_model_dir_on_the_command_line_loads_the_model_once(tmp_path, loads):
    model = train_keywords(tmp_path / "model")
    check_exit(invoke(["detect", "--model", model, "I am so happy", "so angry"]))
    assert loads == [model.resolve()]


def test_repeated_detect_calls_reuse_the_loaded_model_until_its_folder_changes(tmp_path, loads):
    model = train_keywords(tmp_path / "model")
    for _ in range(3):
        affectlab.detect("I am so happy", model=model)
    assert len(loads) == 1
    train_keywords(model, [*TEXTS[1:], TEXTS[0]])  # retrained in place: new content
    affectlab.detect("I am so happy", model=str(model))
    assert len(loads) == 2


def test_a_detector_object_is_used_as_it_is(tmp_path, loads):
    detector = affectlab.load_detector(train_keywords(tmp_path / "model"))
    assert affectlab.load_detector(detector) is detector
    assert affectlab.detect("I am so happy", model=detector)[0].labels
    assert len(loads) == 1
    with pytest.raises(InputError, match="fast applies"):
        affectlab.detect("x", model=detector, fast=True)


def test_the_service_loads_a_saved_model_once_for_a_hundred_requests(tmp_path, loads):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from affectlab.serve.app import create_app

    model = train_keywords(tmp_path / "model")
    client = TestClient(create_app(str(model)))
    answers = [client.post("/v1/detect", json={"text": f"I am so happy, {i}"}) for i in range(100)]
    assert {response.status_code for response in answers} == {200}
    assert loads == [model.resolve()]


def test_the_service_takes_a_detector_object(tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from affectlab.serve.app import create_app

    detector = read_detector(train_keywords(tmp_path / "model"))
    response = TestClient(create_app(detector)).post("/v1/detect", json={"text": "I am so happy"})
    assert response.status_code == 200 and response.json()["model"] == "keywords"


MIXED = [
    ("ekman", "Я так чекала на цей день!"),
    ("ekman", "Мені дуже страшно вночі"),
    ("ekman", "What a horrible, disgusting day"),
    ("ekman", "¡Qué alegría verte de nuevo!"),
    ("ekman", "Tengo mucho miedo de la oscuridad"),
    ("ekman", "I can't believe it, what a surprise"),
    ("goemotions", "thank you so much, this is wonderful"),
    ("emocontext", "i hate you"),
]


@pytest.mark.slow
def test_concurrent_requests_in_several_languages_get_the_single_threaded_answers():
    """A freshly loaded default (its language members not built yet) served at --concurrency 4 to 8 clients at
    once: the members are built while requests race for them, and every answer equals the one a separately loaded
    head gives in one thread."""
    pytest.importorskip("fastapi")
    httpx = pytest.importorskip("httpx")
    from affectlab.serve.app import create_app
    from serving import running

    expected = {}
    for taxonomy, text in MIXED:
        alone = read_detector(HEADS_DIR / taxonomy)  # its own object: shares nothing with the service's
        expected[(taxonomy, text)] = affectlab.detect(text, taxonomy=taxonomy, model=alone)[0].to_dict()
    load_default.clear()  # the service loads its own heads, every member pending
    requests = MIXED * 6
    try:
        with running(create_app(concurrency=4)) as base, ThreadPoolExecutor(8) as pool:

            def ask(item):
                taxonomy, text = item
                response = httpx.post(f"{base}/v1/detect", json={"text": text, "taxonomy": taxonomy}, timeout=120)
                return item, response.status_code, response.json()

            answers = list(pool.map(ask, requests))
    finally:
        load_default.clear()
    for item, status, body in answers:
        assert status == 200, body
        assert body["results"][0] == expected[item], item


def test_a_batch_in_three_languages_runs_the_shared_encoder_once(monkeypatch):
    from affectlab.encoders.onnx_encoder import OnnxEncoder

    calls: list[int] = []
    original = OnnxEncoder.encode

    def counting(self, texts):
        calls.append(len(texts))
        return original(self, texts)

    monkeypatch.setattr(OnnxEncoder, "encode", counting)
    texts = ["Я так чекала на цей день!", "What a horrible day", "¡Qué alegría verte!", "Мені страшно"]
    results = affectlab.detect(texts)
    assert calls == [4] and all(result.labels for result in results)
