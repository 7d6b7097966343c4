"""The REST service over real HTTP on loopback: detection, open states, models, health, the page, and the status
codes and messages for bad requests (after which the server keeps serving)."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("httpx")

import httpx

from affectlab.serve.app import create_app
from serving import running


@pytest.fixture(scope="module")
def url():
    with running(create_app(max_batch=8, max_chars=500)) as base:
        yield base


def test_detect_one_and_several_texts(url):
    response = httpx.post(f"{url}/v1/detect", json={"text": "Я так чекала на цей день!"}, timeout=60)
    assert response.status_code == 200
    [result] = response.json()["results"]
    assert "joy" in result["labels"] and set(result["scores"]) >= {"joy", "fear", "none"}
    body = {"texts": ["thank you so much!", "this is awful"], "taxonomy": "goemotions", "top_k": 1}
    results = httpx.post(f"{url}/v1/detect", json=body, timeout=60).json()["results"]
    assert results[0]["labels"] == ["gratitude"] and len(results) == 2
    body = {"text": "i hate you", "taxonomy": "emocontext", "context": ["you are stupid", "what did you say"]}
    assert httpx.post(f"{url}/v1/detect", json=body, timeout=60).json()["results"][0]["labels"] == ["angry"]


def test_open_states_models_health_and_page(url):
    response = httpx.post(f"{url}/v1/open", json={"text": "Now I feel <extra_id_0>.", "k": 3}, timeout=60)
    assert response.status_code == 200 and len(response.json()["results"][0]["terms"]) == 3
    assert httpx.get(f"{url}/healthz").json()["status"] == "ok"
    assert httpx.get(f"{url}/v1/models").json()["limits"] == {"max_batch": 8, "max_chars": 500}
    page = httpx.get(f"{url}/")
    assert page.status_code == 200 and "<textarea" in page.text and "/v1/detect" in page.text
    assert httpx.get(f"{url}/openapi.json").json()["info"]["title"] == "affectlab"


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b'{"texts": ["unclosed"', 422, "JSON decode error"),
        (b'{"texts": 5}', 422, "texts: Input should be a valid list"),
        (b'{"texts": []}', 422, '"texts" is empty'),
        (b'{"texts": ["a"], "text": "b"}', 422, 'either "texts"'),
        (b'{"texts": ["   "]}', 422, "text 1 is empty"),
        (b'{"text": "hi", "taxonomy": "plutchik"}', 422, "unknown taxonomy 'plutchik'"),
        (b'{"text": "hi", "colour": "red"}', 422, "colour: Extra inputs are not permitted"),
        (b'{"texts": ["a", "b", "c", "d", "e", "f", "g", "h", "i"]}', 413, "9 texts in one request; the limit is 8"),
        (('{"text": "' + "a" * 501 + '"}').encode(), 413, "text 1 has 501 characters; the limit is 500"),
    ],
)
def test_bad_requests_get_a_status_and_a_message(url, body, status, message):
    response = httpx.post(f"{url}/v1/detect", content=body, headers={"Content-Type": "application/json"}, timeout=60)
    assert response.status_code == status
    assert message in response.json()["error"]
    assert httpx.get(f"{url}/healthz").status_code == 200  # still serving


def test_open_refuses_an_unknown_language(url):
    response = httpx.post(f"{url}/v1/open", json={"text": "hola", "lang": "fr"}, timeout=60)
    assert response.status_code == 422 and "not 'fr'" in response.json()["error"]
