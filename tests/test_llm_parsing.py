"""Reading labels out of LLM replies: a table of real-looking answers in English, Ukrainian and Spanish."""

from __future__ import annotations

import pytest

from affectlab.labels import EKMAN, EMOCONTEXT, GOEMOTIONS, LabelSpace
from affectlab.llm.parsing import parse_answer

EKMAN_REPLIES = [
    # bare answers, as the App. G prompts ask
    ("joy", "en", ["joy"]),
    ("Joy, Surprise", "en", ["joy", "surprise"]),
    ("sadness.", "en", ["sadness"]),
    ('"anger"', "en", ["anger"]),
    ("neutral", "en", ["none"]),
    ("радість", "uk", ["joy"]),
    ("Сум, страх.", "uk", ["sadness", "fear"]),
    ("нейтральна", "uk", ["none"]),
    ("«огида»", "uk", ["disgust"]),
    ("alegría", "uk", ["joy"]),
    # reasoning before the answer, as "think step by step" invites
    ("The author is happy to be home, nothing else.\nAnswer: joy", "en", ["joy"]),
    (
        "Step 1: the speaker confessed love and was rejected.\nStep 2: that hurts.\n\n**Answer:** sadness",
        "en",
        ["sadness"],
    ),
    ("Автор хвилюється за котика, це не злість.\nВідповідь: страх", "uk", ["fear"]),
    ("Текст виражає подив і трохи радості.\n\nВідповідь: здивування, радість", "uk", ["surprise", "joy"]),
    ("El texto muestra enojo.\nRespuesta: ira", "en", ["anger"]),
    ("Analizando el texto...\nRespuesta final: tristeza y miedo", "en", ["sadness", "fear"]),
    (
        "<think>The user hates the drunk girl. That is anger, maybe disgust.</think>\nanger, disgust",
        "en",
        [
            "anger",
            "disgust",
        ],
    ),
    (
        "Let me think. The speaker is not angry; they are mostly shocked.\nSo the emotion is surprise.",
        "en",
        ["surprise"],
    ),
    # markdown lists, capitals, quotes and trailing punctuation
    ("Answer:\n- Joy\n- Surprise", "en", ["joy", "surprise"]),
    ("Emotions present:\n* sadness\n* fear", "en", ["sadness", "fear"]),
    ("**ANSWER: DISGUST**", "en", ["disgust"]),
    ("Відповідь: **Злість**.", "uk", ["anger"]),
    ("Answer: 'fear'.", "en", ["fear"]),
    # inflected, adjectival and synonym forms
    ("Радісний", "uk", ["joy"]),
    ("смуток і гнів", "uk", ["sadness", "anger"]),
    ("Відповідь: огиди та страху", "uk", ["disgust", "fear"]),
    ("happiness", "en", ["joy"]),
    ("Answer: scared", "en", ["fear"]),
    ("Respuesta: asco, sorpresa", "en", ["disgust", "surprise"]),
    ("enojo", "en", ["anger"]),
    ("Respuesta: ninguna", "en", ["none"]),
    ("Відповідь: немає емоцій", "uk", ["none"]),
    ("нейтральний", "uk", ["none"]),
    ("None", "en", ["none"]),
    # mixed languages, and an emotion beside "neutral" (the exclusive none label gives way)
    ("Answer: радість and surprise", "en", ["joy", "surprise"]),
    ("sadness, нейтральна", "uk", ["sadness"]),
    ("annoyance", "en", ["anger"]),
]

INVALID_REPLIES = [
    "I'm sorry, but I can't help with that request.",
    "Вибачте, я не можу визначити емоції в цьому тексті.",
    "Lo siento, no puedo ayudar con eso.",
    "",
    "Answer:",
    "As an AI language model, I do not have feelings.",
]


@pytest.mark.parametrize(("reply", "lang", "expected"), EKMAN_REPLIES)
def test_replies_give_their_ekman_labels(reply: str, lang: str, expected: list[str]) -> None:
    assert parse_answer(reply, EKMAN, lang) == (expected, True)


@pytest.mark.parametrize("reply", INVALID_REPLIES)
def test_a_reply_naming_no_label_is_invalid_and_predicts_none(reply: str) -> None:
    assert parse_answer(reply, EKMAN, "en") == (["none"], False)


def test_a_reply_for_a_space_without_none_predicts_nothing_when_invalid() -> None:
    space = LabelSpace("five", ("anger", "fear", "joy", "sadness", "surprise"), multi_label=True)
    assert parse_answer("I cannot tell.", space) == ([], False)
    assert parse_answer("Answer: disgust", space) == ([], False)  # a label the space lacks is not an answer


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("happy", ["happy"]),
        ("Answer: joy", ["happy"]),
        ("Відповідь: сум", ["sad"]),
        ("злість", ["angry"]),
        ("others", ["others"]),
        ("neutral", ["others"]),
        ("Answer: sadness, anger", ["sad"]),  # one label per text: the first one named
    ],
)
def test_emocontext_replies_map_through_the_ekman_emotions(reply: str, expected: list[str]) -> None:
    assert parse_answer(reply, EMOCONTEXT) == (expected, True)


@pytest.mark.parametrize(
    ("reply", "lang", "expected"),
    [
        ("gratitude, admiration", "en", ["gratitude", "admiration"]),
        ("Відповідь: вдячність, захоплення", "uk", ["gratitude", "admiration"]),
        ("вдячності", "uk", ["gratitude"]),
        ("Respuesta: curiosidad", "en", ["curiosity"]),
        ("neutral", "en", ["neutral"]),
        ("нейтральна", "uk", ["neutral"]),
    ],
)
def test_goemotions_replies_use_its_own_words(reply: str, lang: str, expected: list[str]) -> None:
    assert parse_answer(reply, GOEMOTIONS, lang) == (expected, True)


def test_the_answer_after_the_last_marker_wins_over_the_reasoning() -> None:
    reply = "Answer: maybe anger?\nOn reflection the speaker is joking.\nAnswer: joy"
    assert parse_answer(reply, EKMAN) == (["joy"], True)
