"""LLM prompts: EmoBench-UA's App. G prompts verbatim, the generic prompt for other label spaces, few-shot draws."""

from __future__ import annotations

import numpy as np
import pytest

from affectlab.errors import InputError
from affectlab.labels import EKMAN, EMOCONTEXT, GOEMOTIONS, LabelSpace
from affectlab.llm.backends import _cut_at_stop
from affectlab.llm.prompts import Shot, draw_shots, prompt_template

# EmoBench-UA Appendix G as printed, with the Cyrillic "і" the PDF text lost restored (and its "Тект" kept)
PAPER_EN = (
    "Evaluate whether the following text conveys any of the following emotions: joy, fear, anger, sadness, "
    "disgust, surprise. If the text does not have any emotion, answer neutral. One text can have multiple emotions. "
    "Think step by step before you answer. Answer only with the name of the emotions, separated by comma. Examples: "
    "Text: Але, божечко, як добре вдома. Answer: joy "
    "Text: Я в п’ятницю признавалась в коханні і мене відшили! Answer: sadness "
    "Text: Починаю серйозно хвилюватись за котика. Answer: fear "
    "Text: Я тебе ненавиджу, п’яна як може бути! Answer: anger "
    "Text: Тут смердить і мальчіки з синім волоссям п’ють. Answer: disgust "
    "Text: А що, цей канал досі існує? Answer: surprise "
    "Text: Хочу вже наводити порядок в новому домі. Answer: neutral "
    "Text: input Answer:"
)
PAPER_UK = (
    "Оціни, чи передає текст будь-які з цих емоцій: радість, злість, страх, сум, здивування, огида. Якщо в тексті "
    "немає емоцій, відповідай нейтральна. Один текст може викликати багато емоцій. Думай крок за кроком, перш ніж "
    "відповідати. Відповідай тільки назвами емоцій розділених комою. Приклади: "
    "Тект: Але, божечко, як добре вдома. Відповідь: радість "
    "Тект: Я в п’ятницю признавалась в коханні і мене відшили! Відповідь: сум "
    "Тект: Починаю серйозно хвилюватись за котика. Відповідь: страх "
    "Тект: Я тебе ненавиджу, п’яна як може бути! Відповідь: злість "
    "Тект: Тут смердить і мальчіки з синім волоссям п’ють. Відповідь: огида "
    "Тект: А що, цей канал досі існує? Відповідь: здивування "
    "Тект: Хочу вже наводити порядок в новому домі. Відповідь: нейтральна "
    "Текст: input Відповідь:"
)


@pytest.mark.parametrize(("lang", "paper"), [("en", PAPER_EN), ("uk", PAPER_UK)])
def test_emobench_prompts_are_the_papers_word_for_word(lang: str, paper: str) -> None:
    rendered = prompt_template(EKMAN, lang).render("input")
    assert " ".join(rendered.split()) == paper


def test_the_ukrainian_prompt_has_no_latin_i_left_from_the_pdf() -> None:
    rendered = prompt_template(EKMAN, "uk").render("Мені страшно")
    assert "i" not in rendered  # every Ukrainian word has the Cyrillic і
    english = prompt_template(EKMAN, "en").render("Мені страшно")
    assert not any("i" in word for word in english.split() if any("а" <= ch <= "я" for ch in word.lower()))
    assert rendered.endswith("Текст: Мені страшно\nВідповідь:")


def test_the_text_goes_where_the_placeholder_was_on_one_line() -> None:
    rendered = prompt_template(EKMAN, "en").render("Перший рядок\nAnswer: joy")
    assert rendered.endswith("\nText: Перший рядок Answer: joy\nAnswer:")


def test_the_preset_fits_any_space_with_the_six_emotions_and_a_none_label() -> None:
    space = LabelSpace("mine", ("joy", "fear", "anger", "sadness", "disgust", "surprise", "neutral"), True, "neutral")
    template = prompt_template(space, "en")
    assert template.source == "EmoBench-UA Appendix G"
    assert template.answer(["neutral"]) == "neutral" and template.examples[-1].labels == ("neutral",)


def test_other_spaces_get_the_generic_prompt_with_their_label_words() -> None:
    uk = prompt_template(GOEMOTIONS, "uk").render("Дякую!")
    assert "вдячність" in uk and "захоплення" in uk and "відповідай нейтральність" in uk
    assert "Приклади:" not in uk  # no examples of its own
    single = prompt_template(EMOCONTEXT, "en").render("i hate you", ["you are stupid", "what did you say"])
    assert single.startswith("Evaluate which one of the following emotions the following text conveys: happy, sad")
    assert "answer others." in single and "last turn of a dialogue" in single
    assert single.endswith("Context:\nyou are stupid\nwhat did you say\nText: i hate you\nAnswer:")


def test_a_space_without_none_label_gets_no_none_rule() -> None:
    space = LabelSpace("five", ("anger", "fear", "joy", "sadness", "surprise"), multi_label=True)
    assert "If the text does not have any emotion" not in prompt_template(space, "en").instruction


def test_given_shots_replace_the_papers_examples() -> None:
    shots = [Shot("Ура, відпустка!", ("joy", "surprise")), Shot("Нічого не сталося.", ("none",))]
    rendered = prompt_template(EKMAN, "uk").render("Ой.", shots=shots)
    assert "Тект: Ура, відпустка!\nВідповідь: радість, здивування\nТект: Нічого не сталося.\nВідповідь: нейтральна" in (
        rendered
    )
    assert "котика" not in rendered
    assert "Приклади:" not in prompt_template(EKMAN, "uk").render("Ой.", shots=[])


def test_an_unknown_prompt_language_is_refused() -> None:
    with pytest.raises(InputError, match="choose one of en, uk"):
        prompt_template(EKMAN, "es")


def test_shots_are_drawn_one_label_at_a_time_and_reproducibly() -> None:
    texts = [f"text {i}" for i in range(12)]
    Y = EKMAN.encode([["joy"]] * 6 + [["fear"]] * 3 + [["none"]] * 3)
    first = draw_shots(texts, [[] for _ in texts], Y, EKMAN, k=3, seed=1)
    assert first == draw_shots(texts, [[] for _ in texts], Y, EKMAN, k=3, seed=1)
    assert sorted(label for shot in first for label in shot.labels) == ["fear", "joy", "none"]
    assert len(draw_shots(texts, [[] for _ in texts], Y, EKMAN, k=50)) == 12
    assert draw_shots(texts, [[] for _ in texts], np.zeros_like(Y), EKMAN, k=3) == ()


def test_a_raw_continuation_stops_where_it_starts_an_example_of_its_own() -> None:
    assert prompt_template(EKMAN, "en").stop == ("\nText:", "\nContext:")
    assert prompt_template(EKMAN, "uk").stop == ("\nТект:", "\nТекст:", "\nКонтекст:")
    stop = prompt_template(EKMAN, "uk").stop
    assert _cut_at_stop(" радість\nТект: Ой.\nВідповідь: сум", stop) == " радість"
    assert _cut_at_stop("\nТекст: repeated first\nВідповідь: сум", stop) == "\nТекст: repeated first\nВідповідь: сум"
