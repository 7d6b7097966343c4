"""The batch scorer (:class:`affectlab.scale.batch.BatchScorer`), through ``affectlab.detect_file`` with a small
deterministic detector: every table format in and out, bad rows, errors, and resuming an interrupted run."""

import csv
import json
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from affectlab.detectors import Detector
from affectlab.errors import ArgumentTypeError, DataNotFoundError, InputError, Interrupted
from affectlab.io.resume import other_options
from affectlab.labels import LabelSpace
from affectlab.scale.batch import ScoreProgress, ScoreSummary
from affectlab.scale.jobs import detect_file

LABELS = ("excited", "curious")
SCORE_COLUMNS = ["score_excited", "score_curious"]
ADDED_COLUMNS = [*SCORE_COLUMNS, "labels", "lang", "notes", "error"]
TEXTS = ["What a day!!", "Is it raining?", 'He said "no", then left.', "Так чекала!", "Why?! Really?!", "calm"]


class PunctuationDetector(Detector):
    """A real, deterministic detector: excitement from '!' and curiosity from '?'; records what it was asked. Its
    labels are decided by the shared decision step (thresholds 0.5; the top label when none passes)."""

    name = "punctuation"

    def __init__(self, fail_on_call: int | None = None, failure: type[BaseException] = RuntimeError) -> None:
        super().__init__()
        self.fail_on_call, self.failure = fail_on_call, failure
        self.batch_sizes: list[int] = []
        self.texts: list[str] = []

    def _fit(self, inputs, Y) -> None:
        """Nothing to learn."""

    def _predict_proba(self, inputs) -> np.ndarray:
        if len(self.batch_sizes) + 1 == self.fail_on_call:
            raise self.failure("the model server went away")
        self.batch_sizes.append(len(inputs))
        self.texts += inputs.texts
        return np.array([expected_scores(text) for text in inputs.texts]).reshape(len(inputs), len(LABELS))


def punctuation(labels: tuple[str, ...] = LABELS, **failing) -> PunctuationDetector:
    space = LabelSpace("punctuation", labels, multi_label=True)
    return PunctuationDetector(**failing).fit(["a"], np.zeros((1, len(labels)), dtype=np.int8), space)


def score(source: Path, output: Path, detector: PunctuationDetector | None = None, **options) -> ScoreSummary:
    """``affectlab.detect_file`` with the punctuation detector; every text read as English unless ``lang`` says."""
    options.setdefault("lang", "en")
    return detect_file(source, output, model=detector or punctuation(), **options)


def expected_scores(text: str) -> list[float]:
    bangs, questions = text.count("!"), text.count("?")
    return [bangs / (bangs + 1), questions / (questions + 2)]


def write_input(path: Path, rows: list[dict[str, str]]) -> Path:
    """Write rows of strings in the format of the path's extension (.txt: the text column only)."""
    suffix = path.suffix
    if suffix == ".txt":
        path.write_text("".join(row["text"] + "\n" for row in rows), encoding="utf-8")
    elif suffix == ".jsonl":
        path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    elif suffix == ".parquet":
        pq.write_table(pa.Table.from_pylist(rows), path)
    else:
        with open(path, "w", encoding="utf-8", newline="") as file:
            writer = csv.DictWriter(file, fieldnames=list(rows[0]), delimiter="\t" if suffix == ".tsv" else ",")
            writer.writeheader()
            writer.writerows(rows)
    return path


def read_output(path: Path) -> list[dict]:
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    if path.suffix == ".parquet":
        return pq.read_table(path).to_pylist()
    with open(path, encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file, delimiter="\t" if path.suffix == ".tsv" else ","))


def sample_rows(n: int = len(TEXTS)) -> list[dict[str, str]]:
    return [{"id": f"r{i}", "text": TEXTS[i % len(TEXTS)] + " #" * (i // len(TEXTS)), "topic": "t"} for i in range(n)]


@pytest.mark.parametrize("output_suffix", [".csv", ".tsv", ".jsonl", ".parquet"])
@pytest.mark.parametrize("input_suffix", [".csv", ".tsv", ".jsonl", ".txt", ".parquet"])
def test_every_input_format_to_every_output_format_keeps_columns_and_adds_scores(tmp_path, input_suffix, output_suffix):
    rows = sample_rows()
    if input_suffix == ".txt":
        rows = [{"text": row["text"]} for row in rows]
    source = write_input(tmp_path / f"in{input_suffix}", rows)
    output = tmp_path / f"out{output_suffix}"

    summary = score(source, output, batch_size=4)

    written = read_output(output)
    assert list(written[0]) == [*rows[0], *ADDED_COLUMNS]
    assert [{key: row[key] for key in rows[0]} for row in written] == rows
    for row in written:
        assert [float(row[column]) for column in SCORE_COLUMNS] == pytest.approx(expected_scores(row["text"]), abs=5e-5)
        assert (row["lang"], row["notes"], row["error"]) == ("en", "", "")
    labels = [row["labels"] for row in written]
    if output_suffix == ".jsonl":
        assert labels[:2] == [["excited"], ["curious"]]  # the top label when none reaches its threshold
    else:
        assert labels[:2] == ["excited", "curious"]
    assert labels[4] == (["excited", "curious"] if output_suffix == ".jsonl" else "excited,curious")
    assert (summary.rows_written, summary.rows_skipped_resumed, summary.bad_rows) == (len(rows), 0, [])
    assert not (tmp_path / f"out{output_suffix}.progress.json").exists()
    assert not (tmp_path / f".out{output_suffix}.parts").exists()


def test_csv_scores_are_rounded_as_the_api_rounds_them(tmp_path):
    source = write_input(tmp_path / "in.csv", [{"text": "Sure?"}])
    score(source, tmp_path / "out.csv")
    assert read_output(tmp_path / "out.csv")[0]["score_curious"] == "0.3333"


def test_empty_and_whitespace_rows_are_reported_by_number_and_the_rest_scored(tmp_path):
    texts = ["Hi!", "", "Why?", "   ", "\t", "ok"]
    source = write_input(tmp_path / "in.csv", [{"id": str(i), "text": text} for i, text in enumerate(texts)])
    detector = punctuation()

    summary = score(source, tmp_path / "out.csv", detector, batch_size=2)

    assert summary.bad_rows == [(2, "empty text"), (4, "empty text"), (5, "empty text")]
    assert detector.texts == ["Hi!", "Why?", "ok"]
    assert detector.batch_sizes == [1, 1, 1]  # the all-bad batch (rows 4-5) never reached predict
    written = read_output(tmp_path / "out.csv")
    assert [row["error"] for row in written] == ["", "empty text", "", "empty text", "empty text", ""]
    assert written[1]["score_excited"] == "" and written[1]["labels"] == "" and written[1]["lang"] == ""
    assert written[2]["labels"] == "curious" and written[2]["score_curious"] == "0.3333"


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_texts_with_line_breaks_and_delimiters_survive_a_delimited_round_trip(tmp_path, suffix):
    rows = [{"text": "two\nlines!", "note": "a,b\tc"}, {"text": "old mac\rbreak?", "note": '"quoted"'}]
    source = write_input(tmp_path / f"in{suffix}", rows)
    score(source, tmp_path / f"out{suffix}")
    written = read_output(tmp_path / f"out{suffix}")
    assert [{"text": row["text"], "note": row["note"]} for row in written] == rows
    assert [row["labels"] for row in written] == ["excited", "curious"]


def test_blank_lines_of_a_txt_file_are_rows(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("Hello!\n\nAnyone?\r\n", encoding="utf-8")
    summary = score(source, tmp_path / "out.jsonl")
    assert [row["text"] for row in read_output(tmp_path / "out.jsonl")] == ["Hello!", "", "Anyone?"]
    assert summary.bad_rows == [(2, "empty text")]


def test_missing_null_and_non_string_texts_in_json_lines_are_bad_rows(tmp_path):
    source = tmp_path / "in.jsonl"
    records = [{"id": 1, "text": "Yes!"}, {"id": 2}, {"id": 3, "text": None}, {"id": 4, "text": 42}]
    source.write_text("\n".join(json.dumps(record) for record in records) + "\n\n", encoding="utf-8")

    summary = score(source, tmp_path / "out.jsonl")

    assert summary.bad_rows == [(2, "missing text"), (3, "missing text"), (4, "text is a int, not a string")]
    written = read_output(tmp_path / "out.jsonl")
    assert [row["id"] for row in written] == [1, 2, 3, 4]  # JSON types are kept in a JSON Lines output
    assert written[1]["score_excited"] is None and written[1]["labels"] == []


def test_csv_row_with_the_wrong_number_of_fields_is_a_bad_row(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("id,text\n1,Hi!\n2,Oh, no!\n3\n4,Fine\n", encoding="utf-8")
    summary = score(source, tmp_path / "out.csv")
    assert summary.bad_rows == [(2, "3 fields, but the header has 2"), (3, "1 fields, but the header has 2")]
    assert [row["text"] for row in read_output(tmp_path / "out.csv")] == ["Hi!", "Oh", "", "Fine"]


def test_parquet_output_keeps_a_parquet_input_s_column_types(tmp_path):
    source = tmp_path / "in.parquet"
    pq.write_table(pa.table({"id": pa.array([7, 8], pa.int64()), "text": ["a!", " "]}), source)
    score(source, tmp_path / "out.parquet")
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.schema.field("id").type == pa.int64()
    assert table.column("score_excited").to_pylist() == [0.5, None]


def test_json_records_with_new_fields_need_a_json_lines_output(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text('{"text": "a"}\n{"text": "b", "topic": "x"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"record 2 has fields the first record lacks \(topic\)"):
        score(source, tmp_path / "out.csv")
    score(source, tmp_path / "out.jsonl")
    assert read_output(tmp_path / "out.jsonl")[1]["topic"] == "x"


def test_missing_text_column_is_refused_before_anything_is_written(tmp_path):
    source = write_input(tmp_path / "in.csv", [{"a": "1", "b": "Hi!"}])
    with pytest.raises(InputError, match=r"in.csv has no column 'text' \(columns: a, b\)"):
        score(source, tmp_path / "out.csv")
    assert list(tmp_path.iterdir()) == [source]


def test_input_columns_that_the_output_would_add_are_refused(tmp_path):
    source = write_input(tmp_path / "in.csv", [{"text": "Hi!", "labels": "joy"}])
    with pytest.raises(InputError, match=r"already has column\(s\) labels"):
        score(source, tmp_path / "out.csv")


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".txt"])
def test_non_utf8_input_is_refused_in_one_line(tmp_path, suffix):
    source = tmp_path / f"in{suffix}"
    source.write_bytes("text\nCafé crème!\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"not UTF-8 text \(bad byte at offset 8\)") as caught:
        score(source, tmp_path / "out.csv")
    assert "\n" not in str(caught.value)
    assert not (tmp_path / "out.csv").exists()


def test_non_utf8_byte_past_the_first_64_kib_names_the_row(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes(b"fine line\n" * 10_000 + "Café\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"in.txt line 10001 is not UTF-8 text \(bad byte at column 4\)"):
        score(source, tmp_path / "out.csv", batch_size=256)


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".jsonl", ".txt", ".parquet"])
def test_binary_input_is_refused_without_a_traceback(tmp_path, suffix):
    binary = Path("/bin/ls").read_bytes() if Path("/bin/ls").is_file() else bytes(range(256)) * 512
    source = tmp_path / f"in{suffix}"
    source.write_bytes(binary)
    with pytest.raises(InputError, match=r"not UTF-8 text|not a readable Parquet file"):
        score(source, tmp_path / "out.csv")


@pytest.mark.parametrize(("input_name", "output_name"), [("in.xlsx", "out.csv"), ("in.csv", "out.xml")])
def test_unsupported_extensions_are_refused(tmp_path, input_name, output_name):
    source = tmp_path / input_name
    source.write_text("text\nhi\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"unsupported (input|output) file type"):
        score(source, tmp_path / output_name)


def test_extensions_are_case_insensitive(tmp_path):
    source = write_input(tmp_path / "in.csv", [{"text": "Hi!"}]).rename(tmp_path / "IN.CSV")
    score(source, tmp_path / "OUT.JSONL")
    assert json.loads((tmp_path / "OUT.JSONL").read_text(encoding="utf-8"))["labels"] == ["excited"]


def test_missing_input_file(tmp_path):
    with pytest.raises(DataNotFoundError, match="does not exist"):
        score(tmp_path / "nope.csv", tmp_path / "out.csv")


def run_interrupted(source: Path, output: Path, batch_size: int = 4, **options) -> None:
    """A run whose detector fails on its 3rd batch, leaving two batches written."""
    with pytest.raises(RuntimeError, match="went away"):
        score(source, output, punctuation(fail_on_call=3), batch_size=batch_size, **options)


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".jsonl", ".parquet"])
def test_rerun_after_a_failed_batch_resumes_and_equals_a_clean_run(tmp_path, suffix):
    source = write_input(tmp_path / "in.csv", sample_rows(19))
    clean = tmp_path / "clean" / f"out{suffix}"
    clean.parent.mkdir()
    score(source, clean, batch_size=4)
    output = tmp_path / f"out{suffix}"

    run_interrupted(source, output)
    sidecar = json.loads((tmp_path / f"out{suffix}.progress.json").read_text(encoding="utf-8"))
    assert sidecar["rows_done"] == 8
    detector = punctuation()
    summary = score(source, output, detector, batch_size=4)

    assert (summary.rows_skipped_resumed, summary.rows_written) == (8, 11)
    assert detector.texts == [row["text"] for row in sample_rows(19)[8:]]
    assert output.read_bytes() == clean.read_bytes()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["clean", "in.csv", f"out{suffix}"]


def test_interrupted_parquet_run_keeps_its_batches_as_hidden_parts(tmp_path):
    source = write_input(tmp_path / "in.csv", sample_rows(19))
    run_interrupted(source, tmp_path / "out.parquet")
    assert not (tmp_path / "out.parquet").exists()
    parts = sorted(path.name for path in (tmp_path / ".out.parquet.parts").iterdir())
    assert parts == ["part-000000.parquet", "part-000001.parquet"]


def test_resume_with_another_batch_size_still_equals_a_clean_run(tmp_path):
    source = write_input(tmp_path / "in.csv", sample_rows(19))
    score(source, tmp_path / "clean.parquet", batch_size=4)
    run_interrupted(source, tmp_path / "out.parquet", batch_size=3)
    score(source, tmp_path / "out.parquet", batch_size=5)
    assert (tmp_path / "out.parquet").read_bytes() == (tmp_path / "clean.parquet").read_bytes()


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_a_half_written_last_line_is_cut_off_on_resume(tmp_path, suffix):
    source = write_input(tmp_path / "in.csv", sample_rows(19))
    score(source, tmp_path / f"clean{suffix}", batch_size=4)
    output = tmp_path / f"out{suffix}"
    run_interrupted(source, output)
    with open(output, "ab") as file:  # what a crash in the middle of writing the 3rd batch leaves
        file.write(b'r8,"half a ro')

    score(source, output, batch_size=4)

    assert output.read_bytes() == (tmp_path / f"clean{suffix}").read_bytes()


def test_existing_output_without_a_sidecar_is_refused_and_left_untouched(tmp_path):
    source = write_input(tmp_path / "in.csv", sample_rows())
    output = tmp_path / "out.csv"
    output.write_text("my precious results\n", encoding="utf-8")
    with pytest.raises(InputError, match="already exists and was not written by an unfinished run"):
        score(source, output)
    assert output.read_text(encoding="utf-8") == "my precious results\n"
    assert not (tmp_path / "out.csv.progress.json").exists()


def test_unfinished_output_for_other_labels_is_refused(tmp_path):
    source = write_input(tmp_path / "in.csv", sample_rows(19))
    run_interrupted(source, tmp_path / "out.csv")
    before = (tmp_path / "out.csv").read_bytes()
    with pytest.raises(InputError, match=r"made with labels excited,curious \(this run: with labels excited,puzzled\)"):
        score(source, tmp_path / "out.csv", punctuation(("excited", "puzzled")))
    assert (tmp_path / "out.csv").read_bytes() == before


def test_unfinished_output_with_other_options_is_refused_naming_each_with_both_values(tmp_path):
    source = write_input(tmp_path / "in.csv", sample_rows(19))
    run_interrupted(source, tmp_path / "out.csv", lang="uk")
    before = (tmp_path / "out.csv").read_bytes()
    with pytest.raises(InputError) as caught:
        score(source, tmp_path / "out.csv", lang=None, text_col="topic")
    assert str(caught.value) == (
        "out.csv is an unfinished run made with --lang uk and with --text-col text (this run: without --lang and "
        "with --text-col topic); run it again with the same options to resume it, or delete out.csv and "
        "out.csv.progress.json to start over"
    )
    assert (tmp_path / "out.csv").read_bytes() == before


def test_an_option_only_one_run_has_is_named_when_no_shared_one_differs():
    saved = {"options": {"--model": "default", "--taxonomy": "ekman"}, "details": {}}
    assert other_options(saved, {"options": {"--model": "/m"}}) == "with --model default (this run: with --model /m)"
    assert other_options(saved, {"options": {"--model": "default"}}) == (
        "with --taxonomy ekman (this run: without --taxonomy)"
    )


def test_resume_with_the_same_options_continues(tmp_path):
    source = write_input(tmp_path / "in.csv", sample_rows(19))
    run_interrupted(source, tmp_path / "out.csv", lang="uk")
    summary = score(source, tmp_path / "out.csv", lang="uk")
    assert (summary.rows_skipped_resumed, summary.rows_written) == (8, 11)


def test_a_sidecar_that_recorded_no_options_is_refused_as_an_earlier_version_s(tmp_path):
    source = write_input(tmp_path / "in.csv", sample_rows(19))
    run_interrupted(source, tmp_path / "out.csv")
    sidecar = tmp_path / "out.csv.progress.json"
    stat = source.stat()
    earlier = {"input": str(source.resolve()), "input_bytes": stat.st_size, "input_mtime_ns": stat.st_mtime_ns,
               "text_col": "text", "label_names": list(LABELS), "rows_done": 8, "output_bytes": 100}  # fmt: skip
    sidecar.write_text(json.dumps(earlier), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        score(source, tmp_path / "out.csv")
    assert str(caught.value) == (
        "out.csv is an unfinished run of an earlier version of affectlab, which did not record the options it was "
        "made with, so it cannot be resumed safely; delete out.csv and out.csv.progress.json to start over"
    )


def test_unfinished_output_for_a_changed_input_is_refused(tmp_path):
    source = write_input(tmp_path / "in.csv", sample_rows(19))
    run_interrupted(source, tmp_path / "out.csv")
    write_input(source, sample_rows(25))
    with pytest.raises(InputError, match=r"^out.csv is an unfinished run for in.csv as it was before it changed; "):
        score(source, tmp_path / "out.csv")


def test_unfinished_output_for_another_input_file_is_refused_naming_it(tmp_path):
    source = write_input(tmp_path / "in.csv", sample_rows(19))
    run_interrupted(source, tmp_path / "out.csv")
    other = write_input(tmp_path / "other.csv", sample_rows(19))
    refusal = f"^out.csv is an unfinished run for another input, {re.escape(str(source.resolve()))}; "
    with pytest.raises(InputError, match=refusal):
        score(other, tmp_path / "out.csv")


def test_sidecar_without_its_output_starts_afresh(tmp_path):
    source = write_input(tmp_path / "in.csv", sample_rows(19))
    run_interrupted(source, tmp_path / "out.csv")
    (tmp_path / "out.csv").unlink()
    summary = score(source, tmp_path / "out.csv", batch_size=4)
    assert (summary.rows_skipped_resumed, summary.rows_written) == (0, 19)
    assert len(read_output(tmp_path / "out.csv")) == 19


def test_large_file_streams_in_batches_with_progress(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("".join(f"line {i}{'!' * (i % 3)}\n" for i in range(20_000)), encoding="utf-8")
    detector = punctuation()
    reports: list[ScoreProgress] = []

    summary = score(source, tmp_path / "out.csv", detector, batch_size=256, progress=reports.append)

    assert max(detector.batch_sizes) == 256 and sum(detector.batch_sizes) == 20_000
    assert summary.rows_written == 20_000
    fractions = [report.fraction for report in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert [report.rows_done for report in reports][-1] == 20_000
    assert reports[-1].eta_seconds == pytest.approx(0.0, abs=1e-6)
    with open(tmp_path / "out.csv", encoding="utf-8") as file:
        assert sum(1 for _ in file) == 20_001


def test_parquet_progress_counts_rows(tmp_path):
    source = write_input(tmp_path / "in.parquet", sample_rows(10))
    reports: list[ScoreProgress] = []
    score(source, tmp_path / "out.jsonl", batch_size=4, progress=reports.append)
    assert [report.fraction for report in reports] == [0.4, 0.8, 1.0]


# --- regressions found by fuzzing (tests/test_fuzz_readers.py) ---


@pytest.mark.parametrize(
    ("value", "message"),
    [("1" * 5000, r"line 2: not usable JSON \(Exceeds the limit"), ("[" * 5000 + "]" * 5000, "nested too deeply")],
    ids=["5000-digit-number", "5000-deep-nesting"],
)
def test_jsonl_number_too_long_or_nesting_too_deep_is_an_input_error_not_a_traceback(tmp_path, value, message):
    source = tmp_path / "in.jsonl"
    source.write_text('{"text": "fine"}\n{"text": "hi", "n": ' + value + "}\n", encoding="utf-8")
    with pytest.raises(InputError, match=message):
        score(source, tmp_path / "out.jsonl")


def test_jsonl_escaped_lone_surrogate_is_an_input_error_not_a_traceback(tmp_path):
    source = tmp_path / "in.jsonl"  # a tweet cut in the middle of an emoji: valid JSON, but half a character
    source.write_text('{"text": "fine \\ud83d\\ude00"}\n{"text": "cut \\ud83d"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"in.jsonl line 2: a \\u escape makes half a character"):
        score(source, tmp_path / "out.jsonl")


def test_parquet_with_a_damaged_page_is_an_input_error_not_a_traceback(tmp_path):
    valid = write_input(tmp_path / "valid.parquet", sample_rows())
    source = tmp_path / "in.parquet"
    source.write_bytes(b"xx" + valid.read_bytes())  # the footer still reads; every page offset is now wrong
    with pytest.raises(InputError, match=r"in\.parquet: unreadable Parquet data"):
        score(source, tmp_path / "out.csv")


def test_parquet_text_that_is_not_utf8_is_an_input_error_not_a_traceback(tmp_path):
    source = tmp_path / "in.parquet"  # a broken writer's string column: Arrow does not check it on reading
    pq.write_table(pa.table({"text": pa.array([b"\xff\xfe", b"ok"], pa.binary()).view(pa.string())}), source)
    with pytest.raises(InputError, match=r"in\.parquet: a text column holds bytes that are not UTF-8"):
        score(source, tmp_path / "out.csv")


def test_txt_file_of_only_a_byte_order_mark_has_no_rows(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes(b"\xef\xbb\xbf")
    summary = score(source, tmp_path / "out.csv")
    assert summary.rows_written == 0 and read_output(tmp_path / "out.csv") == []


def test_a_bad_line_part_way_says_what_was_kept_and_how_to_start_over(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text('{"text": "a!"}\n{"text": "b?"}\nnot json\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    with pytest.raises(InputError) as caught:
        score(source, out, batch_size=1)
    message = str(caught.value)
    assert message.startswith("in.jsonl line 3: not valid JSON")
    assert "the 2 rows before its batch are kept in out.jsonl" in message
    assert "delete out.jsonl and out.jsonl.progress.json to start over" in message
    assert len(read_output(out)) == 2 and "\n" not in message


def test_a_bad_line_in_the_first_batch_says_nothing_was_written_and_leaves_nothing(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text('{"text": "a!"}\nnot json\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2: .*\(nothing was written\)$"):
        score(source, tmp_path / "out.jsonl", batch_size=2)
    assert list(tmp_path.iterdir()) == [source]


def test_a_bad_first_line_leaves_no_output(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text('not json\n{"text": "a!"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"^in.jsonl line 1: not valid JSON \(Expecting value\)$"):
        score(source, tmp_path / "out.jsonl", batch_size=1)
    assert list(tmp_path.iterdir()) == [source]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_ctrl_c_before_the_first_batch_is_written_leaves_nothing_and_says_so(tmp_path, suffix):
    source = write_input(tmp_path / "in.csv", sample_rows(19))
    detector = punctuation(fail_on_call=1, failure=KeyboardInterrupt)
    with pytest.raises(Interrupted) as caught:
        score(source, tmp_path / f"int{suffix}", detector, batch_size=4)
    assert str(caught.value) == (
        f"stopped before the first batch was scored: nothing was written, and no int{suffix} or "
        f"int{suffix}.progress.json is left behind"
    )
    assert list(tmp_path.iterdir()) == [source]


def test_ctrl_c_after_a_parquet_batch_says_the_rows_are_in_the_hidden_parts(tmp_path):
    source = write_input(tmp_path / "in.csv", sample_rows(19))
    detector = punctuation(fail_on_call=3, failure=KeyboardInterrupt)
    with pytest.raises(Interrupted) as caught:
        score(source, tmp_path / "int.parquet", detector, batch_size=4)
    assert str(caught.value) == (
        "8 rows are kept in .int.parquet.parts (combined into int.parquet when the run completes), and "
        "int.parquet.progress.json records how far the run got; run the same command again to resume"
    )
    assert len(list((tmp_path / ".int.parquet.parts").iterdir())) == 2


def test_ctrl_c_after_a_csv_batch_says_the_rows_are_kept_in_the_output(tmp_path):
    source = write_input(tmp_path / "in.csv", sample_rows(19))
    detector = punctuation(fail_on_call=2, failure=KeyboardInterrupt)
    with pytest.raises(Interrupted, match=r"^4 rows are kept in int.csv, and int.csv.progress.json records"):
        score(source, tmp_path / "int.csv", detector, batch_size=4)
    assert len(read_output(tmp_path / "int.csv")) == 4


@pytest.mark.parametrize("argument", ["input_path", "output_path"])
@pytest.mark.parametrize("value", [None, 3, b"out.csv"])
def test_a_path_that_is_not_a_str_or_path_like_is_an_argument_type_error(tmp_path, argument, value):
    paths = {"input_path": write_input(tmp_path / "in.csv", sample_rows()), "output_path": tmp_path / "out.csv"}
    with pytest.raises(ArgumentTypeError, match=f"^{argument} must be a file path \\(str or os.PathLike\\), not "):
        detect_file(**{**paths, argument: value}, model=punctuation())
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.csv"]
