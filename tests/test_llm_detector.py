"""The LLM detector against a real OpenAI-compatible HTTP server on loopback with scripted replies, and against a
tiny local causal LM."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("openai")

from affectlab.datasets import DatasetSpec
from affectlab.detectors.llm import LLMDetector
from affectlab.detectors.serialization import read_model_dir
from affectlab.errors import InputError
from affectlab.evaluation.evaluate import evaluate
from affectlab.evaluation.training import train_detector
from affectlab.labels import EKMAN, EMOCONTEXT
from affectlab.llm.backends import EndpointError
from affectlab.llm.prompts import prompt_template
from chat_server import completion, send_json, serve

SECRET = "sk-test-secret-0123456789"
TEST = [  # (text, gold labels, the scripted model's reply)
    ("Нарешті відпустка, я така щаслива!", ["joy"], "The author is glad to be on holiday.\nAnswer: joy"),
    ("Мені страшно йти додому самій.", ["fear"], "страх"),
    ("Знову вертоліт над #lviv", ["none"], "I'm sorry, but I can't help with that."),
    ("Оце так новина, не чекала!", ["surprise"], "**Answer:** surprise, joy"),
    ("Гуляю собі селом тихою дорогою.", ["none"], "Відповідь: нейтральна."),
    ("Фу, як тут смердить.", ["disgust"], "Respuesta: asco"),
]
TRAIN = [
    ("Який чудовий день!", ["joy"]),
    ("Я боюся темряви.", ["fear"]),
    ("Як ти міг так зі мною вчинити?!", ["anger"]),
    ("Сьогодні звичайний вівторок.", ["none"]),
]
DEV = [("Дуже сумно без тебе.", ["sadness"]), ("Все як завжди.", ["none"])]
REPLIES = {text: reply for text, _, reply in TEST}


def _query_text(body: dict[str, Any]) -> str:
    """The text a prompt asks about: its next-to-last line is ``Text: <text>`` (``Текст:`` in Ukrainian)."""
    return body["messages"][-1]["content"].split("\n")[-2].split(": ", 1)[1]


def _scripted(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
    send_json(handler, 200, completion(body["model"], REPLIES.get(_query_text(body), "joy")))


@pytest.fixture
def server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    with serve(_scripted) as running:
        yield running


def _rows(items: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    return [{"id": str(i), "text": t[0], "context": [], "labels": t[1], "lang": "uk"} for i, t in enumerate(items)]


@pytest.fixture
def emobench() -> tuple[DatasetSpec, Any]:
    datasets = pytest.importorskip("datasets")
    data = datasets.DatasetDict(
        {
            name: datasets.Dataset.from_list(_rows(items))
            for name, items in (("train", TRAIN), ("dev", DEV), ("test", TEST))
        }
    )
    spec = DatasetSpec(
        name="tiny-emobench",
        title="six EmoBench-UA-like texts",
        label_space=EKMAN,
        primary_metric="macro_f1",
        languages=("uk",),
        splits=("train", "dev", "test"),
        loader=lambda _: data,
        source="tests",
        license="CC0",
        citation="",
    )
    return spec, data


def _detector(url: str, **params: Any) -> LLMDetector:
    params = {"model": "tiny-chat", "base_url": url, "timeout": 5, "max_retries": 0, **params}
    return LLMDetector(**params).fit([], np.zeros((0, len(EKMAN))), EKMAN)


def test_each_text_is_asked_with_the_papers_prompt_greedily(server) -> None:
    url, received = server
    _detector(url, prompt="uk", max_tokens=64).predict_proba([TEST[0][0]])
    [request] = received
    assert request["path"] == "/v1/chat/completions"
    assert request["messages"] == [{"role": "user", "content": prompt_template(EKMAN, "uk").render(TEST[0][0])}]
    assert (request["model"], request["temperature"], request["max_tokens"]) == ("tiny-chat", 0.0, 64)


def test_replies_become_labels_and_a_reply_naming_none_is_counted_invalid(server) -> None:
    url, _ = server
    model = _detector(url)
    labels = model.predict_labels([text for text, _, _ in TEST])
    assert labels == [["joy"], ["fear"], ["none"], ["joy", "surprise"], ["none"], ["disgust"]]
    assert model.diagnostics() == {"n_invalid": 1, "invalid_answer_rate": pytest.approx(1 / 6)}
    assert model.last_replies()[2] == REPLIES[TEST[2][0]]


def test_fit_asks_nothing_and_draws_its_shots_from_train(server, emobench) -> None:
    url, received = server
    _, data = emobench
    model = LLMDetector(model="tiny-chat", base_url=url, shots=2, seed=3)
    model.fit(data["train"], EKMAN.encode(data["train"]["labels"]), EKMAN)
    assert received == []
    assert len(model.shots_) == 2 and all(shot.text in dict(TRAIN) for shot in model.shots_)
    first_test = data["test"].select([0])
    [prompt] = model.prompts(first_test)
    assert model.shots_[0].text in prompt and "котика" not in prompt  # drawn shots replace the paper's
    same_seed = LLMDetector(**model.params).fit(data["train"], EKMAN.encode(data["train"]["labels"]), EKMAN)
    assert same_seed.prompts(first_test) == [prompt]


def test_several_requests_are_in_flight_at_once_but_no_more_than_asked() -> None:
    lock, in_flight, peak = threading.Lock(), [0], [0]

    def slow(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.3)
        with lock:
            in_flight[0] -= 1
        send_json(handler, 200, completion(body["model"], "joy"))

    with serve(slow) as (url, received):
        started = time.perf_counter()
        probs = _detector(url, concurrency=4).predict_proba([f"текст {i}" for i in range(8)])
        elapsed = time.perf_counter() - started
    assert len(received) == 8 and probs[:, EKMAN.labels.index("joy")].tolist() == [1.0] * 8
    assert 2 <= peak[0] <= 4
    assert elapsed < 8 * 0.3  # one at a time would take 2.4 s


def test_a_server_slower_than_the_timeout_is_one_clear_line_fast() -> None:
    with serve(lambda handler, body: time.sleep(2)) as (url, _):
        started = time.perf_counter()
        with pytest.raises(EndpointError, match="Timeout") as caught:
            _detector(url, timeout=0.3).predict_proba(["текст"])
        assert time.perf_counter() - started < 1.5
    assert url in str(caught.value) and "tiny-chat" in str(caught.value) and "\n" not in str(caught.value)


def test_a_rate_limit_is_retried_after_the_wait_the_server_asks() -> None:
    arrivals: list[float] = []

    def limited(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        arrivals.append(time.perf_counter())
        if len(arrivals) == 1:
            error = {"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}
            send_json(handler, 429, error, headers={"Retry-After": "1"})
        else:
            send_json(handler, 200, completion(body["model"], "Answer: fear"))

    with serve(limited) as (url, received):
        assert _detector(url, max_retries=2).predict_labels(["Мені страшно."]) == [["fear"]]
    assert len(received) == 2
    assert arrivals[1] - arrivals[0] >= 0.9  # the client's own first backoff is at most 0.5 s


def test_a_server_error_fails_after_the_allowed_retries() -> None:
    def failing(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        send_json(handler, 500, {"error": {"message": "model crashed", "type": "server_error"}})

    with serve(failing) as (url, received):
        with pytest.raises(EndpointError, match=r"HTTP 500.*model crashed"):
            _detector(url, max_retries=1).predict_proba(["текст"])
        assert len(received) == 2


def test_the_api_key_comes_from_the_environment_and_never_shows_in_errors(monkeypatch) -> None:
    def unauthorised(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        key = handler.headers["Authorization"].removeprefix("Bearer ")
        send_json(handler, 401, {"error": {"message": f"Incorrect API key provided: {key}.", "type": "auth"}})

    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-fallback")
    monkeypatch.setenv("AFFECTLAB_LLM_API_KEY", SECRET)
    with serve(unauthorised) as (url, received), pytest.raises(EndpointError, match="HTTP 401") as caught:
        _detector(url).predict_proba(["текст"])
    assert received[0]["authorization"] == f"Bearer {SECRET}"
    assert SECRET not in str(caught.value) and "***" in str(caught.value)
    monkeypatch.delenv("AFFECTLAB_LLM_API_KEY")
    with serve(_scripted) as (url, received):
        _detector(url).predict_proba(["текст"])
    assert received[0]["authorization"] == "Bearer sk-openai-fallback"


def test_a_second_run_is_answered_from_the_cache(server) -> None:
    url, received = server
    texts = [text for text, _, _ in TEST] + [TEST[0][0]]  # a repeated text is asked once
    first = _detector(url).predict_proba(texts)
    assert len(received) == len(TEST)
    again = _detector(url)
    assert np.array_equal(again.predict_proba(texts), first) and len(received) == len(TEST)
    assert again.diagnostics()["n_invalid"] == 1  # the invalid reply counts in a cached run as well
    _detector(url, max_tokens=32).predict_proba(texts[:1])  # other generation settings: not the same question
    assert len(received) == len(TEST) + 1
    _detector(url, cache=False).predict_proba(texts[:1])
    assert len(received) == len(TEST) + 2


def test_saving_keeps_the_config_and_shots_but_never_the_key(server, emobench, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("AFFECTLAB_LLM_API_KEY", SECRET)
    url, _ = server
    _, data = emobench
    model = LLMDetector(model="tiny-chat", base_url=url, shots=2, prompt="uk", timeout=5)
    model.fit(data["train"], EKMAN.encode(data["train"]["labels"]), EKMAN)
    model.save(tmp_path / "llm")
    assert not any(SECRET in path.read_text(errors="ignore") for path in (tmp_path / "llm").iterdir())
    config, arrays = read_model_dir(tmp_path / "llm")
    loaded = LLMDetector.from_saved(config, arrays)
    assert loaded.params == model.params and loaded.shots_ == model.shots_
    assert loaded.prompts(data["test"]) == model.prompts(data["test"])
    assert np.array_equal(loaded.predict_proba(data["test"]), model.predict_proba(data["test"]))


def test_training_skips_dev_tuning_and_the_record_reports_invalid_answers(server, emobench) -> None:
    url, received = server
    spec, data = emobench
    model = LLMDetector(model="tiny-chat", base_url=url, timeout=5, max_retries=0)
    summary = train_detector(model, spec, data)
    assert received == []  # neither dev nor out-of-fold predictions were asked for
    assert summary["decision"]["values"] == [0.5] * len(EKMAN) and summary["n_tuning"] == 0
    record = evaluate(model, spec, data, "test", n_bootstrap=10)
    assert len(received) == len(TEST)
    assert record.metrics["invalid_answer_rate"] == pytest.approx(1 / 6) and record.metrics["n_invalid"] == 1
    assert record.model == "llm" and record.model_config["params"]["base_url"] == url
    json.dumps(record.to_dict())


def test_dialogue_context_reaches_the_prompt_and_one_label_is_kept(server) -> None:
    url, received = server
    model = LLMDetector(model="tiny-chat", base_url=url, timeout=5).fit([], np.zeros((0, 4)), EMOCONTEXT)
    example = {"text": "Оце так новина, не чекала!", "context": ["you won", "really?"], "lang": "en"}
    assert model.predict_labels([example]) == [["happy"]]  # "surprise, joy": EmoContext has only happy
    assert "Context:\nyou won\nreally?\nText: Оце так новина" in received[0]["messages"][0]["content"]


def test_a_missing_model_or_endpoint_is_a_clear_error() -> None:
    model = LLMDetector(base_url="http://127.0.0.1:9/v1").fit([], np.zeros((0, len(EKMAN))), EKMAN)
    with pytest.raises(InputError, match="needs a model name"):
        model.predict_proba(["текст"])
    model = LLMDetector(model="gpt-4o-mini").fit([], np.zeros((0, len(EKMAN))), EKMAN)
    with pytest.raises(InputError, match=r"not a local model directory.*--llm-base-url"):
        model.predict_proba(["текст"])
    with pytest.raises(InputError, match="choose one of en, uk"):
        LLMDetector(model="m", prompt="es")


# --- a local causal LM ----------------------------------------------------------------------------------------


def _tiny_causal_lm(directory: Path, chat_template: str | None = None) -> Path:
    """A random 2-layer GPT-2 with a byte-level BPE trained here on the prompts, saved as a model directory."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    tokenizers = pytest.importorskip("tokenizers")
    corpus = [prompt_template(EKMAN, lang).render(text) + " радість, сум" for lang in ("en", "uk") for text, *_ in TEST]
    bpe = tokenizers.Tokenizer(tokenizers.models.BPE())
    bpe.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=600, initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(), special_tokens=["<eos>"]
    )
    bpe.train_from_iterator(corpus, trainer=trainer)
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<eos>")
    if chat_template:
        tokenizer.chat_template = chat_template
    torch.manual_seed(0)
    config = transformers.GPT2Config(
        vocab_size=len(tokenizer), n_positions=1024, n_embd=32, n_layer=2, n_head=2, bos_token_id=0, eos_token_id=0
    )
    transformers.GPT2LMHeadModel(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


@pytest.mark.parametrize("chat_template", [None, "{% for m in messages %}<user>{{ m['content'] }}{% endfor %}<bot>"])
def test_a_local_causal_lm_generates_parsable_deterministic_replies(tmp_path, chat_template) -> None:
    directory = _tiny_causal_lm(tmp_path / "tiny-gpt2", chat_template)
    texts = [text for text, _, _ in TEST[:3]]
    runs = []
    for _ in range(2):
        model = LLMDetector(model=str(directory), max_tokens=6, cache=False).fit([], np.zeros((0, 7)), EKMAN)
        probs = model.predict_proba(texts)
        runs.append((probs, model.last_replies()))
    (probs, replies), (again, replies_again) = runs
    assert replies == replies_again and np.array_equal(probs, again)
    assert probs.shape == (3, len(EKMAN)) and set(np.unique(probs)) <= {0.0, 1.0}
    assert (probs.sum(axis=1) >= 1).all()  # a label or, for an invalid reply, none
    if chat_template is None:  # a raw continuation is cut where it starts an example of its own
        assert not any("\nText:" in reply[1:] for reply in replies)
    assert 0 <= model.diagnostics()["n_invalid"] <= 3
