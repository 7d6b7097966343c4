"""The service under concurrent load, over real HTTP on loopback: a burst of first requests at a freshly started
service gets the answers of one request at a time, and ``/healthz`` answers while detections wait for their turn
(issue 30)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from affectlab.build.heads import ENCODER  # noqa: E402
from affectlab.detectors import create_detector  # noqa: E402
from affectlab.detectors.default import load_default  # noqa: E402
from affectlab.encoders.sentence import forget_encoder  # noqa: E402
from affectlab.serve.app import create_app  # noqa: E402
from serving import running  # noqa: E402
from tiny_models import TOY_SPACE, TOY_TEXTS, TOY_Y  # noqa: E402

TEXTS = ["Я так чекала на цей день!", "Мені страшно", "What a horrible day", "thank you so much!",
         "¡Qué alegría verte!", "Tengo miedo de la noche"]  # fmt: skip
"""Two texts in each of uk, en and es."""
CLIENTS = 12
ROUNDS = 3


def fresh_service() -> Any:
    """An app over the default heads with nothing loaded yet: no head, no language member, no encoder session."""
    load_default.clear()
    forget_encoder(ENCODER)
    return create_app(preload=False, concurrency=4)


def ask(base: str, text: str) -> tuple[int, Any]:
    """The status and body of detecting ``text`` (a 500 answers plain text)."""
    response = httpx.post(f"{base}/v1/detect", json={"text": text}, timeout=120)
    is_json = response.headers.get("content-type") == "application/json"
    return response.status_code, response.json() if is_json else response.text


@pytest.mark.slow
def test_a_burst_of_first_requests_at_a_fresh_service_gets_the_answers_of_one_request_at_a_time():
    with running(fresh_service()) as base:
        started = time.perf_counter()
        expected = {text: ask(base, text) for text in TEXTS}
        loading = time.perf_counter() - started  # the clients start spread over it: some come while it loads
    assert all(status == 200 for status, _ in expected.values()), expected
    requests = [TEXTS[i % len(TEXTS)] for i in range(CLIENTS)]
    for _ in range(ROUNDS):
        with running(fresh_service()) as base, ThreadPoolExecutor(CLIENTS) as pool:

            def first_request(i: int, base: str = base) -> tuple[int, Any]:
                time.sleep(i * loading / CLIENTS)
                return ask(base, requests[i])

            answers = list(pool.map(first_request, range(CLIENTS)))
        for text, answer in zip(requests, answers, strict=True):
            assert answer == expected[text], text


def held_detector(released: threading.Event, entered: threading.Event) -> Any:
    """A tiny keyword detector whose predictions wait until ``released`` (a slow model), ``entered`` set by the
    first one."""
    model = create_detector("keywords", min_count=1).fit(TOY_TEXTS, TOY_Y, TOY_SPACE)
    predict_proba = model._predict_proba

    def held(inputs: Any) -> Any:
        entered.set()
        released.wait(timeout=60)
        return predict_proba(inputs)

    model._predict_proba = held
    return model


def test_healthz_answers_get_and_head_while_fifty_detections_wait_for_their_turn():
    released, entered = threading.Event(), threading.Event()
    app = create_app(model=held_detector(released, entered), preload=False, concurrency=1)
    client = httpx.Client(limits=httpx.Limits(max_connections=60), timeout=60)
    with running(app) as base, client, ThreadPoolExecutor(50) as pool:
        try:
            detections = [pool.submit(client.post, f"{base}/v1/detect", json={"text": TOY_TEXTS[i % 8]})
                          for i in range(50)]  # fmt: skip
            assert entered.wait(timeout=30)
            time.sleep(0.5)  # the other 49 reach the server and queue for their turn
            health = [client.get(f"{base}/healthz", timeout=2), client.head(f"{base}/healthz", timeout=2)]
            models = client.get(f"{base}/v1/models", timeout=2)
            assert not any(future.done() for future in detections)  # all of them still in flight
        finally:
            released.set()
        statuses = [future.result().status_code for future in detections]
    assert [response.status_code for response in health] == [200, 200]
    assert health[0].json()["status"] == "ok" and health[1].content == b""
    assert models.status_code == 200
    assert statuses == [200] * 50
