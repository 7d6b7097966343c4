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


# --- regressions found by fuzzing (tests/test_fuzz_readers.py) ---

GOOD = '{"task": "lmes-wordlength", "question": "q", "options": ["a", "b"], "answer": 0, "id": "x"'


def test_instance_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + (GOOD + "}\n").encode())
    assert [instance.id for instance in read_instances(path)] == ["x"]


def test_instances_with_unicode_line_separators_round_trip(tmp_path: Path) -> None:
    instance = MCInstance("lmes-wordlength", "рядок\u2028другий NEL\x85 FS\x1c", ("a", "b"), 0, context="c\u2029d")
    path = write_instances([instance], tmp_path / "tasks.jsonl")  # written unescaped (ensure_ascii=False)
    assert read_instances(path) == [instance]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (GOOD + ', "metadata": ' + "1" * 5000 + "}", "line 1: not usable JSON"),
        (GOOD + ', "metadata": ' + "[" * 5000 + "]" * 5000 + "}", "line 1: not usable JSON"),
        (GOOD.replace('"q"', '"half \\ud83d"') + "}", r"line 1: a \\u escape makes half a character"),
        (GOOD.replace('"q"', "null") + "}", "line 1: question must be a string, not null"),
        (GOOD + ', "context": 5}', "line 1: context must be a string, not a number"),
        (GOOD + ', "few_shot": "no"}', "line 1: few_shot must be true or false, not a string"),
        (GOOD + ', "metadata": [1]}', "line 1: metadata must be a JSON object, not an array"),
    ],
    ids=[
        "5000-digit-number",
        "5000-deep-nesting",
        "lone-surrogate",
        "null-question",
        "number-context",
        "string-few-shot",
        "array-metadata",
    ],
)
def test_instance_fields_json_cannot_hold_as_text_are_input_errors_not_tracebacks(
    tmp_path: Path, line: str, message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_instances(path)
