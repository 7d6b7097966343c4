"""One reader of a user's table (``affectlab.io.tables``, issue 22): every place that reads a user's file reads it
the same way (byte-order marks, encodings, long fields, suffixes, one-line errors)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import affectlab
from affectlab.annotation.readers import read_table
from affectlab.datasets.userfile import FileOptions, read_user_rows
from affectlab.errors import AffectlabError, InputError
from affectlab.io.tables import open_table, read_records, table_format
from affectlab.openstates.collect.corpus import read_posts
from affectlab.uatasks.cbt import read_stories

SOURCE = Path(affectlab.__file__).parent
LONG = "слово " * 40_000  # 240,000 characters: beyond csv's default field limit of 128 KiB


def readers(path: Path) -> dict[str, object]:
    """What each reader of a user's table makes of ``path`` (its rows, or its error)."""
    calls = {
        "read_records": lambda: read_records(path),
        "user file": lambda: read_user_rows(path, FileOptions())["test"],
        "ratings": lambda: read_table(path)[0].to_dict("records"),
        "corpus": lambda: list(read_posts([path])),
    }
    out: dict[str, object] = {}
    for name, call in calls.items():
        try:
            out[name] = call()
        except AffectlabError as exc:
            out[name] = exc
    return out


def test_csv_field_size_limit_is_set_in_one_place():
    modules = SOURCE.rglob("*.py")
    setters = [str(path.relative_to(SOURCE)) for path in modules if "field_size_limit(" in path.read_text()]
    assert setters == ["io/tables.py"]


def test_a_byte_order_mark_is_no_part_of_the_first_column_for_any_reader(tmp_path):
    path = tmp_path / "posts.csv"
    path.write_bytes("\ufefftext,item,annotator,label,value\nРадію,1,a,joy,1\n".encode())
    for name, result in readers(path).items():
        assert not isinstance(result, Exception), (name, result)
    assert read_records(path)[0]["text"] == "Радію"
    assert read_user_rows(path, FileOptions())["test"][0]["text"] == "Радію"
    assert list(read_posts([path])) == [("posts.csv:1", "Радію")]


def test_a_file_in_another_encoding_is_one_error_in_every_reader(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("text,item,annotator,label,value\nAlegría,1,a,joy,1\n".encode("latin-1"))
    for name, result in readers(path).items():
        assert isinstance(result, InputError) and "not UTF-8" in str(result), name
        assert "\n" not in str(result)


def test_a_long_field_reads_in_every_reader(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text(f'text,item,annotator,label,value,fixed_story\n"{LONG}",1,a,joy,1,"{LONG}"\n', encoding="utf-8")
    for name, result in readers(path).items():
        assert not isinstance(result, Exception), (name, result)
    assert read_stories(path) == [("0", LONG)]


def test_suffixes_are_checked_against_the_callers_list_and_json_lines_has_its_other_names(tmp_path):
    path = tmp_path / "rows.ndjson"
    path.write_text(json.dumps({"text": "hi"}) + "\n", encoding="utf-8")
    assert read_records(path) == [{"text": "hi"}]
    assert table_format(tmp_path / "x.JSON", (".json",)) == ".jsonl"
    with pytest.raises(InputError, match=r"unsupported input file type '\.xlsx' \(use \.csv, \.tsv"):
        read_records(tmp_path / "rows.xlsx")


def test_a_row_that_does_not_fit_the_header_is_named_when_a_table_is_read_whole_and_reported_when_streamed(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("text,label\nok,joy\ntoo,many,cells\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"rows\.csv row 2: 3 fields, but the header has 2"):
        read_records(path)
    with open_table(path) as table:
        assert [problem for _, problem in table.rows] == ["", "3 fields, but the header has 2"]
