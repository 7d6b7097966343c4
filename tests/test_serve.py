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
    assert httpx.get(f"{url}/v1/models").json()["limits"] == {"max_batch": 8, "max_chars": 500, "concurrency": 1}
    page = httpx.get(f"{url}/")
    script = httpx.get(f"{url}/static/page.js")
    assert page.status_code == 200 and "<textarea" in page.text and "/v1/detect" in script.text
    assert "<script>" not in page.text and "unsafe-inline" not in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY" and httpx.get(f"{url}/static/app.py").status_code == 404
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


def test_open_ranks_the_requests_states(url):
    body = {"text": "We lost. I feel <extra_id_0>.", "states": ["Gutted", "over the moon"], "states_only": True}
    response = httpx.post(f"{url}/v1/open", json=body, timeout=60)
    assert response.status_code == 200
    assert sorted(t["term"] for t in response.json()["results"][0]["terms"]) == ["gutted", "over the moon"]
    refused = (([], "at least 1 item"), (["<extra_id_0>"], "mask"), (["\U00013000"], "cannot read"),
               (["happy,0.5"], "table's row"), ("elated", "valid list"))  # fmt: skip
    for states, message in refused:
        response = httpx.post(f"{url}/v1/open", json={"text": "I feel <extra_id_0>.", "states": states}, timeout=60)
        assert response.status_code == 422 and message in response.json()["error"], response.json()


def test_open_refuses_an_unknown_language(url):
    response = httpx.post(f"{url}/v1/open", json={"text": "hola", "lang": "fr"}, timeout=60)
    assert response.status_code == 422 and "not 'fr'" in response.json()["error"]


# Regressions for bugs found by schema fuzzing (tests/test_serve_fuzz.py, benchmarks/robustness/serve_fuzz.py).


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/detect", b'{"text": "hi \\ud800 there"}'),
        ("/v1/detect", b'{"texts": ["ok", "\\udfff"]}'),
        ("/v1/detect", b'{"text": "hi", "taxonomy": "emocontext", "context": ["\\ud83d"]}'),
        ("/v1/open", b'{"text": "hi \\ud800 there", "lang": "en"}'),
    ],
)
def test_lone_surrogate_in_a_text_is_a_422_not_a_500(url, path, body):
    response = httpx.post(f"{url}{path}", content=body, headers={"Content-Type": "application/json"}, timeout=60)
    assert response.status_code == 422
    assert "not Unicode text (a lone surrogate" in response.json()["error"]


@pytest.mark.parametrize("mask", ["<extra_id_00>", "<extra_id_\u0660>", "<extra_id_\uff10>"])
def test_sentinel_not_written_as_ascii_0_is_a_422_not_a_500(url, mask):
    response = httpx.post(f"{url}/v1/open", json={"text": f"I feel {mask}.", "lang": "en"}, timeout=60)
    assert response.status_code == 422 and "numbered 0, 1, 2" in response.json()["error"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/detect", {"text": "hi", "top_k": "2"}),
        ("/v1/detect", {"text": "hi", "top_k": True}),
        ("/v1/open", {"text": "hi", "lang": "en", "k": "3"}),
        ("/v1/open", {"text": "hi", "lang": "en", "k": True}),
    ],
)
def test_number_given_as_a_string_or_a_boolean_is_a_422_not_taken(url, path, body):
    response = httpx.post(f"{url}{path}", json=body, timeout=60)
    assert response.status_code == 422 and response.json()["error"].endswith("Input should be a valid integer")
    whole = httpx.post(f"{url}{path}", json={**body, "top_k" if "top_k" in body else "k": 2.0}, timeout=60)
    assert whole.status_code == 200  # JSON Schema's integer: 2.0 is one


def test_unparseable_body_unknown_path_and_wrong_method_answer_an_error_body(url):
    not_utf8 = httpx.post(f"{url}/v1/detect", content=b'{"text": "\xff"}', headers={"Content-Type": "application/json"})
    assert not_utf8.status_code == 400 and not_utf8.json() == {"error": "There was an error parsing the body"}
    assert httpx.get(f"{url}/v1/nowhere").json() == {"error": "Not Found"}
    wrong_method = httpx.get(f"{url}/v1/detect")
    assert wrong_method.status_code == 405 and wrong_method.json() == {"error": "Method Not Allowed"}
    assert wrong_method.headers["allow"] == "POST"


def test_error_statuses_and_their_body_are_documented_in_the_openapi_schema(url):
    schema = httpx.get(f"{url}/openapi.json").json()
    for path in ("/v1/detect", "/v1/open"):
        responses = schema["paths"][path]["post"]["responses"]
        assert set(responses) == {"200", "400", "413", "422"}
        for status in ("400", "413", "422"):
            body = responses[status]["content"]["application/json"]["schema"]
            assert body == {"$ref": "#/components/schemas/ErrorBody"}
    assert schema["components"]["schemas"]["ErrorBody"]["required"] == ["error"]


@pytest.mark.slow
@pytest.mark.parametrize("concurrency", [1, 2])
def test_at_most_concurrency_detections_run_at_once(monkeypatch, concurrency):
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    import affectlab.detectors.detect as detect_module

    in_flight, most, lock = [0], [0], threading.Lock()

    def slow_detect(texts, **options):
        with lock:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
        time.sleep(0.2)
        with lock:
            in_flight[0] -= 1
        return []

    monkeypatch.setattr(detect_module, "detect", slow_detect)
    with running(create_app(preload=False, concurrency=concurrency)) as base, ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda i: httpx.post(f"{base}/v1/detect", json={"text": f"t{i}"}).status_code,
                                 range(8)))  # fmt: skip
    assert statuses == [200] * 8 and most[0] == concurrency


def test_an_open_request_with_its_own_states_never_holds_the_detection_slot(monkeypatch):
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import affectlab.detectors.detect as detect_module
    import affectlab.openstates.detect as open_module

    embedding, released, open_done = threading.Event(), threading.Event(), threading.Event()

    def held_open(texts, model=None, **options):  # embedding 2,000 new states takes seconds: held until released
        embedding.set()
        released.wait(20)
        open_done.set()
        return []

    # events, not timings: a detection queued behind the states request could only answer once that is released
    # (CI failed a 1.0 s line on a loaded machine while the service resolved the real detector)
    monkeypatch.setattr(open_module, "detect_open", held_open)
    monkeypatch.setattr(detect_module, "detect", lambda texts, **options: [])
    monkeypatch.setattr("affectlab.serve.app.ServedModels.open_predictor", lambda self: None)
    monkeypatch.setattr("affectlab.serve.app.ServedModels.detector", lambda self, taxonomy: None)
    with running(create_app(preload=False, concurrency=1)) as base, ThreadPoolExecutor(2) as pool:
        states = pool.submit(httpx.post, f"{base}/v1/open", json={"text": "I feel <extra_id_0>", "states": ["calm"]},
                             timeout=120)  # fmt: skip
        assert embedding.wait(30)
        try:
            detected = httpx.post(f"{base}/v1/detect", json={"text": "t"}, timeout=120)
            answered_while_held = not open_done.is_set()
        finally:
            released.set()
        assert detected.status_code == 200 and states.result().status_code == 200
    assert answered_while_held


@pytest.mark.parametrize("lang", ["en\u0000", "en us", " en", "en\t", "англ", 5])
@pytest.mark.parametrize("path", ["/v1/detect", "/v1/open"])
def test_a_lang_that_is_not_a_language_tag_is_422_in_one_line(url, path, lang):
    response = httpx.post(f"{url}{path}", json={"text": "I feel <extra_id_0>", "lang": lang}, timeout=60)
    assert response.status_code == 422
    assert response.json()["error"].startswith("lang: ") and "\n" not in response.json()["error"]


def test_the_app_resolves_each_taxonomy_once_however_many_requests_ask_at_once(monkeypatch):
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    import affectlab.serve.app as app_module

    resolved, lock = [], threading.Lock()

    def slow_resolve(model, taxonomy):
        time.sleep(0.1)
        with lock:
            resolved.append(taxonomy)
        return taxonomy

    monkeypatch.setattr(app_module, "resolve_detector", slow_resolve)
    served = app_module.ServedModels("default")
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(served.detector, ["ekman", "goemotions"] * 8))
    assert answers == ["ekman", "goemotions"] * 8 and sorted(resolved) == ["ekman", "goemotions"]
    saved = app_module.ServedModels("a-saved-folder")  # one detector, whatever the taxonomy asked
    assert saved.detector("goemotions") == saved.detector("ekman") == "ekman"
