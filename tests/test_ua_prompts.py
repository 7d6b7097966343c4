"""Eval-UA-tion multiple-choice prompts (section 4.1) in the wording of the authors' lm-evaluation-harness tasks."""

from __future__ import annotations

import pytest

from affectlab.errors import InputError
from affectlab.uatasks.instances import MCInstance
from affectlab.uatasks.prompts import answer_targets, format_prompt, question_prompt, sample_shots

CBT = MCInstance(
    task="ua-cbt",
    id="cbt-1",
    context="Жила спритна ластівка Орися.\nБув серед них мудрий пугач, Орест.",
    question="Вона кинулася на ______ , клюючи його.\nВедмідь заревів.",
    options=("ведмедя", "ореста", "мешканця", "жителя", "їжака", "жирафа"),
    answer=0,
)
UP = MCInstance(
    task="up-titles",
    id="up-1",
    question="В МЗС РФ заявили, що договір New START може припинити дію.\nПро це заявив Рябков.",
    options=("Блінкен: Не видно, що Путін готовий зупинитися", "В РФ допустили припинення дії ядерного договору"),
    answer=1,
)
LOW = MCInstance(
    task="lmes-low",
    id="low-0",
    question='Яка перша літера y слові "пускати"?',
    options=("п", "у", "с", "к", "а", "т", "и"),
    answer=0,
)


def _low(i: int, word: str) -> MCInstance:
    letters = tuple(dict.fromkeys(word))
    return MCInstance(
        task="lmes-low", id=f"low-{i}", question=f'Яка перша літера y слові "{word}"?', options=letters, answer=0
    )


POOL = [_low(i, word) for i, word in enumerate(["кіт", "ніжно", "прикро", "сум", "віра", "гай", "орел", "мишка"])]


def test_ua_cbt_enumerates_options_with_letters_and_puts_the_story_on_one_line() -> None:
    assert question_prompt(CBT) == (
        "Жила спритна ластівка Орися. Був серед них мудрий пугач, Орест. "
        "Вона кинулася на ______ , клюючи його. Ведмідь заревів.\n"
        "ПИТАННЯ: Яке слово має бути замість ______? "
        "A: ведмедя; B: ореста; C: мешканця; D: жителя; E: їжака; F: жирафа\n"
        "ВІДПОВІДЬ:"
    )
    assert answer_targets(CBT) == ["A", "B", "C", "D", "E", "F"]


def test_up_titles_numbers_titles_in_parentheses_one_per_line() -> None:
    assert question_prompt(UP) == (
        "В МЗС РФ заявили, що договір New START може припинити дію. Про це заявив Рябков.\n"
        "ПИТАННЯ: Який з наведених заголовків найбільше підходить для цієї статті?\n"
        "0) Блінкен: Не видно, що Путін готовий зупинитися\n"
        "1) В РФ допустили припинення дії ядерного договору\n"
        "ВІДПОВІДЬ:"
    )
    assert answer_targets(UP) == ["0", "1"]


def test_lmes_asks_the_question_and_expects_the_option_itself() -> None:
    assert question_prompt(LOW) == 'Питання: Яка перша літера y слові "пускати"?\nВідповідь:'
    assert answer_targets(LOW) == list(LOW.options)


@pytest.mark.parametrize(("options", "expected"), [(("так", "ні"), ["так", "ні"]), (("False", "True"), ["ні", "так"])])
def test_cats_bin_targets_are_tak_and_ni(options: tuple[str, str], expected: list[str]) -> None:
    instance = MCInstance(
        task="lmes-cats-bin",
        question="Чи належать слова 'сум, віра' всі до категорії 'почуття'?",
        options=options,
        answer=0,
    )
    assert answer_targets(instance) == expected


def test_cats_bin_rejects_options_that_are_not_yes_or_no() -> None:
    instance = MCInstance(task="lmes-cats-bin", question="Чи належать?", options=("сум", "віра"), answer=0)
    with pytest.raises(InputError, match="not a yes/no answer"):
        answer_targets(instance)


def test_windows_line_breaks_become_single_spaces() -> None:
    instance = MCInstance(task="up-titles", question="перший рядок\r\nдругий\rтретій", options=("a", "b"), answer=0)
    assert question_prompt(instance).startswith("перший рядок другий третій\nПИТАННЯ:")


def test_shots_precede_the_question_with_their_answers_as_lm_eval_joins_them() -> None:
    prompt = format_prompt(LOW, POOL[:2])
    assert prompt == (
        'Питання: Яка перша літера y слові "кіт"?\nВідповідь: к\n\n'
        'Питання: Яка перша літера y слові "ніжно"?\nВідповідь: н\n\n'
        'Питання: Яка перша літера y слові "пускати"?\nВідповідь:'
    )


def test_a_shot_from_another_task_family_is_refused() -> None:
    with pytest.raises(InputError, match="cannot precede"):
        format_prompt(CBT, [LOW])


def test_shots_are_deterministic_given_the_seed_and_vary_with_it() -> None:
    first = sample_shots(LOW, POOL, k=3, seed=0)
    assert sample_shots(LOW, POOL, k=3, seed=0) == first
    assert len(first) == 3
    draws = {tuple(s.id for s in sample_shots(LOW, POOL, k=3, seed=seed)) for seed in range(10)}
    assert len(draws) > 1


def test_shots_never_include_the_instance_itself() -> None:
    for instance in POOL:
        for seed in range(20):
            assert instance not in sample_shots(instance, POOL, k=7, seed=seed)


def test_asking_for_more_shots_than_the_pool_holds_is_an_input_error() -> None:
    with pytest.raises(InputError, match="only 7 other instances"):
        sample_shots(POOL[0], POOL, k=8)
