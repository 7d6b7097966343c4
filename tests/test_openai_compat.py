"""Exact-match scoring through an OpenAI-compatible chat endpoint, against a real HTTP server on loopback."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

pytest.importorskip("openai")

from affectlab.harness.multiple_choice import evaluate_mc
from affectlab.harness.openai_compat import EndpointError, OpenAICompatibleScorer, match_reply
from affectlab.harness.prompts import format_prompt, sample_shots
from affectlab.uatasks.instances import MCInstance

OPTIONS = ("ведмедя", "ореста", "мешканця", "жителя", "їжака", "жирафа")


def _cbt(i: int, sentence: str, answer: int, few_shot: bool = False) -> MCInstance:
    return MCInstance(
        task="ua-cbt",
        id=f"{'fs' if few_shot else 'test'}-{i}",
        context="Жила спритна ластівка Орися.\nБув серед них мудрий пугач, Орест.",
        question=sentence,
        options=OPTIONS,
        answer=answer,
        few_shot=few_shot,
    )


FEW_SHOT = [_cbt(i, f"Приклад {i}: ______ заревів.", i % 6, few_shot=True) for i in range(4)]
TEST = [
    _cbt(0, "Вона кинулася на ______ , клюючи його.", 1),
    _cbt(1, "Спочатку ______ сміявся.", 0),
    _cbt(2, "Та ______ не здавалася.", 3),
    _cbt(3, "Білочка кидала в ______ шишками.", 2),
]
REPLIES = {  # the server's canned reply to each test question: right, right, wrong letter, no letter at all
    "клюючи його": "B: ореста",
    "сміявся": "«A».",
    "не здавалася": "ВІДПОВІДЬ: C",
    "шишками": "Не знаю",
}
EXPECTED_ACCURACY = 2 / 4


def _completion(model: str, content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _serve(respond: Callable[[BaseHTTPRequestHandler, dict[str, Any]], None]) -> Iterator[tuple[str, list]]:
    """A threaded HTTP server on 127.0.0.1 (a free port) whose POSTs go to ``respond``; yields its base URL
    and the list of request bodies it received."""
    received: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            received.append({"path": self.path, **body})
            respond(self, body)

        def log_message(self, *args: Any) -> None:  # keep pytest's output clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", received
    finally:
        server.shutdown()
        server.server_close()


def _send_json(handler: BaseHTTPRequestHandler, status: int, payload: dict[str, Any]) -> None:
    data = json.dumps(payload, ensure_ascii=False).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def _canned(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
    question = body["messages"][-1]["content"].split("\n\n")[-1]  # the shots come first
    reply = next((text for key, text in REPLIES.items() if key in question), "?")
    _send_json(handler, 200, _completion(body["model"], reply))


def _failing(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
    _send_json(handler, 500, {"error": {"message": "model crashed", "type": "server_error"}})


def _slow(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
    time.sleep(3)


@pytest.fixture
def canned_server() -> Iterator[tuple[str, list]]:
    yield from _serve(_canned)


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback requests must not be sent to a proxy configured on the developer's machine."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)


def test_exact_match_accuracy_from_a_real_server(canned_server) -> None:
    url, _ = canned_server
    scorer = OpenAICompatibleScorer(url, "tiny-chat", max_tokens=8, timeout=5, max_retries=0)
    result = evaluate_mc(TEST, scorer, shots_pool=FEW_SHOT, k_shots=3, seed=7)
    assert result["accuracy"] == EXPECTED_ACCURACY
    assert [row["predicted"] for row in result["predictions"]] == [1, 0, 2, -1]
    assert result["record"]["model"] == "tiny-chat"
    assert result["record"]["shots_source"] == "few-shot split"


def test_requests_carry_the_formatted_prompt_and_greedy_settings(canned_server) -> None:
    url, received = canned_server
    scorer = OpenAICompatibleScorer(url, "tiny-chat", max_tokens=8, timeout=5, max_retries=0)
    evaluate_mc(TEST, scorer, shots_pool=FEW_SHOT, k_shots=3, seed=7)
    assert [request["path"] for request in received] == ["/v1/chat/completions"] * len(TEST)
    for instance, request in zip(TEST, received, strict=True):
        assert request["messages"] == [
            {"role": "user", "content": format_prompt(instance, sample_shots(instance, FEW_SHOT, 3, seed=7))}
        ]
        assert (request["model"], request["temperature"], request["max_tokens"]) == ("tiny-chat", 0.0, 8)


def test_a_server_error_becomes_one_clear_line_after_limited_retries() -> None:
    for url, received in _serve(_failing):
        scorer = OpenAICompatibleScorer(url, "tiny-chat", timeout=2, max_retries=1)
        with pytest.raises(EndpointError) as caught:
            scorer.complete("Питання: ?\nВідповідь:")
        message = str(caught.value)
        assert "HTTP 500" in message and "model crashed" in message and "\n" not in message
        assert len(received) == 2  # the first try and one retry


def test_an_unreachable_endpoint_is_a_clear_error_not_a_hang() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago and has nobody listening on it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    scorer = OpenAICompatibleScorer(f"http://127.0.0.1:{port}/v1", "tiny-chat", timeout=2, max_retries=0)
    started = time.perf_counter()
    with pytest.raises(EndpointError, match="APIConnectionError"):
        scorer.complete("Питання: ?\nВідповідь:")
    assert time.perf_counter() - started < 5


def test_a_server_slower_than_the_timeout_is_a_clear_error() -> None:
    for url, _ in _serve(_slow):
        scorer = OpenAICompatibleScorer(url, "tiny-chat", timeout=0.5, max_retries=0)
        started = time.perf_counter()
        with pytest.raises(EndpointError, match="Timeout"):
            scorer.complete("Питання: ?\nВідповідь:")
        assert time.perf_counter() - started < 2.5


@pytest.mark.parametrize(
    ("reply", "targets", "expected"),
    [
        ("B", ["A", "B"], 1),
        (" b) ведмедя\nі ще щось", ["A", "B"], 1),
        ("(3) Путін призупинив участь", [str(i) for i in range(10)], 3),
        ("Так.", ["так", "ні"], 0),
        ('"по-шосте"', ["щотижневий", "по-шосте"], 1),
        ("Відповідь: ні", ["так", "ні"], 1),
        ("пошосте", ["щотижневий", "по-шосте"], -1),
        ("", ["A", "B"], -1),
    ],
)
def test_replies_are_normalised_before_the_exact_match(reply: str, targets: list[str], expected: int) -> None:
    assert match_reply(reply, targets) == expected
