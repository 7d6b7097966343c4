"""A user's own CSV/TSV/JSONL files, with splits from a column, from a directory, or none (all test)."""

import json

import pytest

from affectlab.datasets import FileOptions, resolve_dataset
from affectlab.errors import DataNotFoundError, InputError
from affectlab.labels import EKMAN


def write_csv(path, rows, header="text,label"):
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def test_csv_with_ekman_labels_in_ukrainian_maps_to_the_ekman_space(tmp_path):
    path = write_csv(tmp_path / "mine.csv", ["Я так чекала на цей день!,радість", "Мені страшно,страх"])
    spec, data = resolve_dataset(str(path))
    assert spec.label_space is EKMAN
    assert list(data) == ["test"]
    assert data["test"]["labels"] == [["joy"], ["fear"]]


def test_split_column_and_label_separator(tmp_path):
    rows = ['"a, b",joy|surprise,train', "c,sadness,train", "d,,dev", "e,anger,test"]
    path = write_csv(tmp_path / "f.csv", rows, header="text,emotions,part")
    options = FileOptions(label_col="emotions", label_sep="|", split_col="part")
    spec, data = resolve_dataset(str(path), options=options)
    assert {s: len(d) for s, d in data.items()} == {"train": 2, "dev": 1, "test": 1}
    assert data["train"]["labels"][0] == ["joy", "surprise"]
    assert data["dev"]["labels"] == [["none"]]  # an empty cell means no emotion in a space with a none label
    assert spec.label_space.multi_label


def test_directory_of_split_files_with_custom_labels(tmp_path):
    (tmp_path / "train.jsonl").write_text(
        "\n".join(json.dumps({"text": t, "label": lab}) for t, lab in [("x", "calm"), ("y", "bored")]),
        encoding="utf-8",
    )
    (tmp_path / "validation.tsv").write_text("text\tlabel\nz\tcalm\n", encoding="utf-8")
    spec, data = resolve_dataset(str(tmp_path))
    assert set(data) == {"train", "dev"}
    assert spec.label_space.labels == ("bored", "calm") and not spec.label_space.multi_label


def test_model_label_space_is_enforced(tmp_path):
    path = write_csv(tmp_path / "f.csv", ["hi,love"])
    with pytest.raises(InputError, match="'love' is not in label space 'ekman'"):
        resolve_dataset(str(path), label_space=EKMAN)


@pytest.mark.parametrize(
    ("content", "options", "message"),
    [
        ("text,label\nhello,joy\n", FileOptions(text_col="tweet"), "no column 'tweet'"),
        ("text,label\n   ,joy\n", FileOptions(), "row 1: the text in column 'text' is empty"),
        ("text,label\nhello,joy,extra\n", FileOptions(), "3 fields, but the header has 2"),
        ("text\nhello\n", FileOptions(), "no label column"),
        ("text,label\n", FileOptions(), "has no rows"),
    ],
)
def test_bad_user_files_raise_one_clear_error(tmp_path, content, options, message):
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        resolve_dataset(str(path), options=options)


def test_non_utf8_file_is_refused(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("text,label\nniño feliz,joy\n".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        resolve_dataset(str(path))


def test_missing_file(tmp_path):
    with pytest.raises(DataNotFoundError, match="does not exist"):
        resolve_dataset(str(tmp_path / "nope.csv"))


# --- regressions found by fuzzing (tests/test_fuzz_readers.py) ---


def test_jsonl_record_without_the_split_field_is_an_input_error_not_a_key_error(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text('{"text": "I am happy", "label": "joy", "split": "test"}\n{"text": "sad", "label": "sadness"}\n')
    with pytest.raises(InputError, match=r"mine.jsonl row 2: split '' is not one of train, dev, test"):
        resolve_dataset(str(path), options=FileOptions(split_col="split"))


def test_jsonl_texts_with_unicode_line_separators_are_one_record_each(tmp_path):
    path = tmp_path / "mine.jsonl"  # json.dumps(ensure_ascii=False) leaves U+2028, U+0085 and \x1c unescaped
    rows = [{"text": "line\u2028separator", "label": "joy"}, {"text": "NEL\x85 and FS\x1c", "label": "fear"}]
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    _, data = resolve_dataset(str(path))
    assert data["test"]["text"] == ["line\u2028separator", "NEL\x85 and FS\x1c"]
