"""The LLM open-state predictor: Table 11 prompts verbatim with <MASK>, the App. D.2 clean-up, invalid replies
counted, against a real loopback OpenAI-compatible server."""

import pytest

pytest.importorskip("openai")

from affectlab.errors import InputError
from affectlab.openstates.predictors.prompted import LLMStatePredictor, parse_reply, prompt_for
from chat_server import completion, send_json, serve


def test_prompt_is_table_11_with_masks():
    prompt = prompt_for("Now I feel <extra_id_0> and <extra_id_1>.", "en")
    assert prompt == (
        "Determine the most likely term reflecting a feeling to replace each <MASK> in the following text: "
        '"Now I feel <MASK> and <MASK>." Provide a single emotion term for each <MASK> token. Do not introduce the '
        "answer, respond ONLY with a comma-separated list of lowercase terms:"
    )
    assert prompt_for("Me siento <extra_id_0>.", "es").endswith("list of lowercase terms in Spanish:")
    with pytest.raises(InputError, match="no MASIVE prompt"):
        prompt_for("x", "uk")


@pytest.mark.parametrize(
    ("reply", "n", "expected"),
    [
        ("valued, seen", 2, ["valued", "seen"]),
        ("Here is a list of terms to fill each <MASK>: Valued, Seen.", 2, ["valued", "seen"]),
        ("The text describes relief.\nrelieved", 1, ["relieved"]),
        ("querido, aceptado", 2, ["querido", "aceptado"]),
        ("valued", 2, None),  # one term for two masks
        ("I can't help with that request because it involves drug use, sorry", 1, None),
        ("", 1, None),
    ],
)
def test_reply_parsing(reply, n, expected):
    assert parse_reply(reply, n) == expected


def test_against_a_loopback_server_with_an_invalid_reply(tmp_path, monkeypatch):
    monkeypatch.setenv("AFFECTLAB_CACHE_DIR", str(tmp_path / "cache"))
    replies = iter(["Here is a list of terms to fill each <MASK>: grateful", "I cannot answer that."])

    def respond(handler, body):
        send_json(handler, 200, completion(body["model"], next(replies)))

    with serve(respond) as (url, received):
        predictor = LLMStatePredictor("tiny-chat", base_url=url, concurrency=1)
        ranked = predictor.predict(["Thanks! I feel <extra_id_0>.", "I feel <extra_id_0>."], ["en", "en"])
    assert [[[t.term for t in m] for m in r] for r in ranked] == [[["grateful"]], [[]]]
    assert predictor.invalid_rate == 0.5
    assert "<MASK>" in received[0]["messages"][0]["content"] and received[0]["model"] == "tiny-chat"


def test_needs_an_endpoint():
    with pytest.raises(InputError, match="--llm-base-url"):
        LLMStatePredictor("x")


def test_a_local_causal_lm_answers_through_the_same_parsing(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from tiny_models import save_tiny_gpt2

    monkeypatch.setenv("AFFECTLAB_CACHE_DIR", str(tmp_path / "cache"))
    lm = save_tiny_gpt2(tmp_path / "gpt2", [prompt_for("I feel <extra_id_0>.", "en") + " happy, sad, calm"])
    texts = ["I feel <extra_id_0>.", "I feel <extra_id_0> and <extra_id_1>."]
    first = LLMStatePredictor(str(lm)).predict(texts, ["en", "en"])
    again = LLMStatePredictor(str(lm)).predict(texts, ["en", "en"])
    assert [len(masks) for masks in first] == [1, 2] and first == again  # greedy: the same answer twice
