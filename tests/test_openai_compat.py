"""Exact-match scoring through an OpenAI-compatible chat endpoint, against a real HTTP server on loopback."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

pytest.importorskip("openai")

from affectlab.uatasks.instances import MCInstance
from affectlab.uatasks.multiple_choice import evaluate_mc
from affectlab.uatasks.openai_compat import EndpointError, OpenAICompatibleScorer, match_reply
from affectlab.uatasks.prompts import format_prompt, sample_shots
from chat_server import completion, send_json, serve

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


def _canned(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
    question = body["messages"][-1]["content"].split("\n\n")[-1]  # the shots come first
    reply = next((text for key, text in REPLIES.items() if key in question), "?")
    send_json(handler, 200, completion(body["model"], reply))


def _failing(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
    send_json(handler, 500, {"error": {"message": "model crashed", "type": "server_error"}})


def _slow(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
    time.sleep(3)


@pytest.fixture
def canned_server() -> Iterator[tuple[str, list]]:
    with serve(_canned) as server:
        yield server


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
    with serve(_failing) as (url, received):
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
    with serve(_slow) as (url, _):
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
