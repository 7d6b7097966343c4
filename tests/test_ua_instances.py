"""The multiple-choice instance shape, the task registry and instance files."""

from __future__ import annotations

from pathlib import Path

import pytest

from affectlab.errors import InputError, UnknownNameError
from affectlab.uatasks.instance_files import read_instances, write_instances
from affectlab.uatasks.instances import TASKS, MCInstance


def test_an_instance_knows_its_answer_text() -> None:
    instance = MCInstance("lmes-cats-mc", "Визначте зайве слово: кіт, пес, лікар.", ("кіт", "пес", "лікар"), 2)
    assert instance.answer_text == "лікар"


@pytest.mark.parametrize(
    ("options", "answer", "message"),
    [
        (("кіт", "кіт", "пес"), 0, "appears twice"),
        (("кіт",), 0, "at least 2 options"),
        (("кіт", " "), 0, "empty"),
        (("кіт", "пес"), 2, "outside its 2 options"),
    ],
)
def test_bad_option_lists_are_clear_errors(options: tuple[str, ...], answer: int, message: str) -> None:
    with pytest.raises(InputError, match=message):
        MCInstance("ua-cbt", "question", options, answer, id="7")


def test_task_names_suggest_close_matches() -> None:
    assert TASKS.get("ua-cbt").human_baseline == pytest.approx(0.9394)
    with pytest.raises(UnknownNameError, match="did you mean 'lmes-low'"):
        TASKS.get("lmes-lw")


def test_instances_round_trip_through_json_lines(tmp_path: Path) -> None:
    instances = [
        MCInstance(
            "ua-cbt",
            "Лис побачив ______.",
            ("ворону", "зайця"),
            1,
            id="a",
            context="Жили-були.",
            few_shot=True,
            metadata={"task_type": "NAMED_ENTITY", "sources": ["story", "external"]},
        ),
        MCInstance("lmes-low", 'Яка перша літера y слові "кіт"?', ("к", "і", "т"), 0, template_id="3295"),
    ]
    path = write_instances(instances, tmp_path / "tasks.jsonl")
    assert read_instances(path) == instances


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 1: not JSON"),
        ('{"task": "ua-cbt", "question": "q", "options": ["a", "b"]}', "missing answer"),
        ('{"task": "ua-cbt", "question": "q", "options": ["a", "b"], "answer": 0, "colour": 1}', "unknown field"),
        ('{"task": "ua-cbt", "question": "q", "options": ["a", "a"], "answer": 0}', "appears twice"),
    ],
)
def test_bad_instance_files_name_the_problem(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_instances(path)
