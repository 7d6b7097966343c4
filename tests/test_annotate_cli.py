"""``affectlab annotate``: aggregated files that read back, agreement and comparison output, the report, and bad
input giving one line and exit code 2 with nothing written."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from affectlab.annotation import aggregate, binarize, read_aggregation, read_long, read_wide, write_aggregation
from affectlab.errors import InputError

LABELS = ("joy", "fear", "anger")
WIDE = ["--item-col", "text_id", "--label-col", "emotion", "--text-col", "text"]


def _ratings(n_items: int = 30, seed: int = 0) -> list[tuple[str, str, str, str, int]]:
    """(item, text, label, annotator, 0/1) rows: three annotators who agree with a hidden truth 85 % of the time."""
    rng = np.random.default_rng(seed)
    rows = []
    for item in range(n_items):
        for label in LABELS:
            truth = rng.random() < 0.3
            for annotator in ("Annotator-1", "Annotator-2", "Annotator-3"):
                rows.append((str(item), f"text number {item}", label, annotator, int(truth ^ (rng.random() > 0.85))))
    return rows


@pytest.fixture
def wide_file(tmp_path: Path) -> Path:
    """The SemEval-2025 per-annotator layout: one row per (text, emotion), one column per annotator."""
    lines = ["text_id,text,emotion,Annotator-1,Annotator-2,Annotator-3"]
    rows = _ratings()
    for start in range(0, len(rows), 3):
        item, text, label = rows[start][:3]
        lines.append(f"{item},{text},{label}," + ",".join(str(r[4]) for r in rows[start : start + 3]))
    path = tmp_path / "ratings.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def long_file(tmp_path: Path) -> Path:
    """One row per (item, annotator, label) with a value column, as JSON Lines."""
    keys = ("item", "text", "label", "annotator", "value")
    path = tmp_path / "ratings.jsonl"
    path.write_text("".join(json.dumps(dict(zip(keys, row, strict=True))) + "\n" for row in _ratings()), "utf-8")
    return path


@pytest.fixture
def gold_file(tmp_path: Path) -> Path:
    """Released labels keyed by other ids than the ratings, so only the texts link them (as in EmoBench-UA)."""
    truth = aggregate(read_long(_long_frame(), value_col="value"), "majority")
    lines = ["id,text,Joy,Fear,Anger"]
    for i, (item, labels) in enumerate(zip(truth.items["item"], truth.items["labels"], strict=True)):
        flags = [int(label in labels) for label in LABELS]
        flags[0] = flags[0] if i % 10 else 1 - flags[0]  # disagree on joy for every tenth text
        lines.append(f"gold_{i},text number {item}," + ",".join(map(str, flags)))
    path = tmp_path / "gold.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _long_frame() -> pd.DataFrame:
    return pd.DataFrame(_ratings(), columns=["item", "text", "label", "annotator", "value"])


# --- aggregate ---


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".jsonl"])
def test_aggregate_writes_one_row_per_item_that_reads_back(cli, wide_file: Path, tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"aggregated{suffix}"
    code, _, err = cli("annotate", "aggregate", wide_file, *WIDE, "--method", "majority", "--out", out)
    assert code == 0, err
    expected = aggregate(read_wide(wide_file, "text_id", "emotion", text_col="text"), "majority", min_confidence=0.9)
    back = read_aggregation(out)
    assert back.labels == ("anger", "fear", "joy")
    assert back.items["item"].tolist() == expected.items["item"].tolist()
    assert back.items["labels"].tolist() == expected.items["labels"].tolist()
    assert back.items["passes"].tolist() == expected.items["passes"].tolist()
    assert back.questions["confidence"].to_numpy() == pytest.approx(expected.questions["confidence"].to_numpy())
    assert back.texts == expected.texts


def test_aggregate_csv_columns(cli, wide_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "aggregated.csv"
    cli("annotate", "aggregate", wide_file, *WIDE, "--method", "majority", "--out", out)
    header = out.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header[:5] == ["item", "text", "labels", "confidence", "passes"]
    assert header[5:7] == ["value_anger", "confidence_anger"] and len(header) == 11


@pytest.mark.slow
def test_aggregate_json_summary(cli, long_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "aggregated.jsonl"
    code, stdout, _ = cli("annotate", "aggregate", long_file, "--value-col", "value", "--out", out, "--json")
    assert code == 0
    summary = json.loads(stdout)
    assert summary["method"] == "dawid-skene" and summary["min_confidence"] == 0.9
    assert summary["n_items"] == 30 and summary["out"] == str(out)
    assert set(summary["label_counts"]) == set(LABELS)
    assert 0.0 < summary["share_passing"] <= 1.0
    assert len(out.read_text(encoding="utf-8").splitlines()) == 30


def test_aggregate_without_out_prints_a_summary_table(cli, wide_file: Path) -> None:
    code, stdout, _ = cli("annotate", "aggregate", wide_file, *WIDE, "--method", "wawa")
    assert code == 0
    assert "wawa: 30 items" in stdout and "passing items with it" in stdout


def test_aggregate_reads_long_presence_rows_with_declared_labels(cli, tmp_path: Path) -> None:
    path = tmp_path / "chosen.csv"
    path.write_text("item,annotator,label\nt1,x,joy\nt1,y,joy\nt2,x,\nt2,y,fear\n", encoding="utf-8")
    code, stdout, _ = cli("annotate", "aggregate", path, "--labels", "joy,fear,anger", "--json")
    assert code == 0
    summary = json.loads(stdout)
    assert list(summary["label_counts"]) == ["joy", "fear", "anger"]
    assert summary["label_counts"]["joy"]["all"] == 1


# --- agreement ---


def test_agreement_json_is_the_agreement_report(cli, wide_file: Path) -> None:
    code, stdout, _ = cli("annotate", "agreement", wide_file, *WIDE, "--bootstrap", "50", "--json")
    assert code == 0
    report = json.loads(stdout)
    assert set(report) == {"overall", "per_label"}
    assert set(report["per_label"]) == {"anger", "fear", "joy"}
    overall = report["overall"]
    for key in ("krippendorff_alpha", "fleiss_kappa", "cohen_kappa_mean", "interrater_correlation"):
        low, high = overall[f"{key}_ci95"]
        assert low <= overall[key] <= high
    assert overall["n_items"] == 30 and overall["n_annotators"] == 3


def test_agreement_table_shows_undefined_statistics_as_na_with_the_reason(cli, tmp_path: Path) -> None:
    path = tmp_path / "same.csv"
    rows = [f"t{i},{label},{1 if label == 'joy' else i % 2},{1 if label == 'joy' else 0}" for i in range(6)
            for label in ("joy", "fear")]  # fmt: skip
    path.write_text("item,label,Annotator-1,Annotator-2\n" + "\n".join(rows) + "\n", encoding="utf-8")
    code, stdout, _ = cli("annotate", "agreement", path, "--bootstrap", "20")
    assert code == 0
    assert "n/a (1)" in stdout and "expected disagreement is 0" in stdout


def test_agreement_level_ordinal_on_intensities(cli, tmp_path: Path) -> None:
    path = tmp_path / "intensity.csv"
    rows = [f"t{i},joy,{i % 4},{(i + i // 4) % 4}" for i in range(12)]
    path.write_text("item,label,Annotator-1,Annotator-2\n" + "\n".join(rows) + "\n", encoding="utf-8")
    _, nominal, _ = cli("annotate", "agreement", path, "--level", "nominal", "--bootstrap", "0", "--json")
    _, ordinal, _ = cli("annotate", "agreement", path, "--bootstrap", "0", "--json")
    alpha = {name: json.loads(text)["overall"]["krippendorff_alpha"] for name, text in [("n", nominal), ("o", ordinal)]}
    assert alpha["n"] != pytest.approx(alpha["o"])


# --- compare ---


def test_compare_an_aggregated_file_with_gold_joined_on_text(cli, wide_file, gold_file, tmp_path) -> None:
    out = tmp_path / "aggregated.csv"
    cli("annotate", "aggregate", wide_file, *WIDE, "--method", "majority", "--out", out)
    code, stdout, _ = cli("annotate", "compare", out, gold_file, "--json")
    assert code == 0
    comparison = json.loads(stdout)
    assert comparison["joined_on"] == "text" and comparison["n_matched"] == 30
    assert comparison["per_label"]["fear"]["accuracy"] == 1.0
    assert comparison["per_label"]["joy"]["accuracy"] == pytest.approx(0.9)
    code, stdout, _ = cli("annotate", "compare", out, gold_file, "--only-passing")
    assert code == 0 and "Cohen's kappa" in stdout and "aggregated items matched" in stdout
    assert "by text (none left out)" in stdout


# --- report ---


@pytest.mark.slow
def test_report_writes_markdown_and_chart(cli, wide_file: Path, gold_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    code, _, err = cli(
        "annotate", "report", wide_file, *WIDE, "--out", out, "--gold", gold_file, "--method", "majority"
    )
    assert code == 0, err
    markdown = (out / "report.md").read_text(encoding="utf-8")
    for heading in ("## Data", "## Agreement", "## Aggregation", "## Comparison with released labels", "## Reproduce"):
        assert heading in markdown
    assert "| all labels |" in markdown and "crowd-kit" in markdown and "krippendorff" in markdown
    assert (out / "agreement.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in out.iterdir()) == ["agreement.png", "report.md"]


def test_the_reports_command_reproduces_it(cli, long_file: Path, tmp_path: Path) -> None:
    first = tmp_path / "first"
    cli("annotate", "report", long_file, "--value-col", "value", "--out", first, "--method", "majority")
    markdown = (first / "report.md").read_text(encoding="utf-8")
    command = markdown.split("```\n")[1].strip()
    assert command.startswith("affectlab annotate report") and "--min-confidence 0.9 " in command  # defaults too
    second = tmp_path / "second"
    code, _, _ = cli(*shlex.split(command.replace(str(first), str(second)))[1:])
    assert code == 0
    assert (second / "report.md").read_text(encoding="utf-8") == markdown.replace(str(first), str(second))


# --- bad input: one line on stderr, exit code 2, nothing written ---

GOOD = "text_id,text,emotion,Annotator-1,Annotator-2\n1,a,Joy,1,0\n1,a,Sad,0,0\n2,b,Joy,1,1\n2,b,Sad,0,1\n"
BAD_INPUT = [
    ("unknown annotator column", GOOD, ["--annotator-cols", "Annotator-1,Rater-9"], "no column 'Rater-9'"),
    ("label outside --labels", GOOD, ["--labels", "Joy"], "label 'Sad' is not among the declared labels (Joy)"),
    ("item without ratings", GOOD + "3,c,Joy,,\n3,c,Sad,,\n", [], "item '3' has no rating at all"),
    ("unknown method", GOOD, ["--method", "vote"], "--method must be one of majority, dawid-skene"),
    ("unknown layout", GOOD, ["--layout", "tall"], "--layout must be one of auto, long, wide"),
    ("option of the other layout", GOOD, ["--layout", "wide", "--value-col", "v"], "--value-col is for the long"),
    ("not a number", GOOD.replace("1,a,Joy,1,0", "1,a,Joy,high,0"), [], "'high' in column 'Annotator-1'"),
]


@pytest.mark.parametrize(
    ("content", "args", "message"), [case[1:] for case in BAD_INPUT], ids=[c[0] for c in BAD_INPUT]
)
def test_bad_ratings_give_one_line_and_write_nothing(cli, tmp_path: Path, content, args, message) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text(content, encoding="utf-8")
    out = tmp_path / "aggregated.csv"
    code, stdout, err = cli("annotate", "aggregate", path, "--item-col", "text_id", "--label-col", "emotion",
                            *args, "--out", out)  # fmt: skip
    assert code == 2
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err
    assert stdout == "" and not out.exists()


def test_a_missing_file_is_one_line(cli, tmp_path: Path) -> None:
    out = tmp_path / "aggregated.csv"
    code, _, err = cli("annotate", "aggregate", tmp_path / "nope.csv", "--out", out)
    assert code == 2 and err == f"error: file '{tmp_path / 'nope.csv'}' does not exist\n"
    assert not out.exists()


def test_a_non_utf8_file_is_one_line(cli, tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    path.write_bytes("item,annotator,label\nt1,Оля,радість\n".encode("cp1251"))
    code, _, err = cli("annotate", "agreement", path)
    assert code == 2 and "is not UTF-8 text" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "agreement needs ratings from at least 2 annotators; found 1"),
        (["--level", "ratio"], "--level must be one of nominal, ordinal, interval, not 'ratio'"),
        (["--bootstrap", "-5"], "--bootstrap must be 0 (no intervals) or more"),
    ],
)
def test_report_refusals_write_no_report(cli, tmp_path: Path, args: list[str], message: str) -> None:
    path = tmp_path / "one.csv"
    path.write_text("item,label,Annotator-1\nt1,joy,1\nt2,joy,0\n", encoding="utf-8")
    out = tmp_path / "report"
    code, _, err = cli("annotate", "report", path, "--out", out, *args)
    assert code == 2 and message in err and err.count("\n") == 1
    assert not out.exists()


def test_agreement_on_one_annotator_is_one_line(cli, tmp_path: Path) -> None:
    path = tmp_path / "one.csv"
    path.write_text("item,label,Annotator-1\nt1,joy,1\nt2,joy,0\n", encoding="utf-8")
    code, _, err = cli("annotate", "agreement", path)
    assert code == 2 and err == "error: agreement needs ratings from at least 2 annotators; found 1\n"


@pytest.mark.parametrize(
    ("value", "why"),
    [("1" * 5000, "Exceeds the limit"), ("[" * 5000 + "]" * 5000, "nested")],
    ids=["5000-digit-number", "5000-deep-nesting"],
)
def test_guessing_the_layout_from_a_first_record_json_cannot_hold_is_one_line(
    cli, tmp_path: Path, value: str, why: str
) -> None:  # regression found by fuzzing (tests/test_fuzz_readers.py): a ValueError/RecursionError traceback
    path = tmp_path / "ratings.jsonl"
    path.write_text('{"item": ' + value + ', "annotator": "A", "label": "joy"}\n', encoding="utf-8")
    code, _, err = cli("annotate", "agreement", path)
    assert code == 2 and err.startswith("error: ratings.jsonl line 1: not usable JSON") and why in err
    assert err.count("\n") == 1


def test_compare_rejects_a_file_that_is_not_an_aggregation(cli, wide_file: Path, gold_file: Path) -> None:
    code, _, err = cli("annotate", "compare", wide_file, gold_file)
    assert code == 2 and "has no column 'item'" in err


def test_aggregate_refuses_an_output_type_before_reading(cli, wide_file: Path, tmp_path: Path) -> None:
    code, _, err = cli("annotate", "aggregate", wide_file, "--out", tmp_path / "out.parquet")
    assert code == 2 and "unsupported output file type '.parquet'" in err


# --- the aggregation file ---


def test_write_aggregation_replaces_a_file_only_when_complete(wide_file: Path, tmp_path: Path, monkeypatch) -> None:
    aggregation = aggregate(binarize(read_wide(wide_file, "text_id", "emotion")), "majority")
    out = tmp_path / "aggregated.csv"
    out.write_text("earlier\n", encoding="utf-8")

    def fail(*_args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(InputError, match="No space left on device"):
        write_aggregation(aggregation, out)
    assert out.read_text(encoding="utf-8") == "earlier\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_written_files_get_the_usual_permissions_not_tempfiles_0600(wide_file: Path, tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        out = write_aggregation(aggregate(read_wide(wide_file, "text_id", "emotion"), "majority"), tmp_path / "a.csv")
    finally:
        os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o644


def test_read_aggregation_names_a_bad_passes_cell(tmp_path: Path) -> None:
    path = tmp_path / "aggregated.csv"
    path.write_text("item,labels,confidence,passes,value_joy,confidence_joy\nt1,joy,1.0,maybe,1,1.0\n", "utf-8")
    with pytest.raises(InputError, match="data row 1: 'maybe' in column 'passes' is not true or false"):
        read_aggregation(path)


def test_the_released_per_annotator_layout_is_read_as_it_comes(cli, wide_file: Path) -> None:
    code, plain, _ = cli("annotate", "agreement", wide_file, "--json")
    assert code == 0
    _, named, _ = cli("annotate", "agreement", wide_file, *WIDE, "--json")
    assert json.loads(plain)["overall"] == json.loads(named)["overall"]


def test_a_wrong_column_option_suggests_the_file_s_column(cli, wide_file: Path) -> None:
    code, _, err = cli("annotate", "agreement", wide_file, "--item-col", "item")
    assert code == 2 and err.strip().endswith("did you mean --item-col text_id?") and len(err.strip().splitlines()) == 1


# --- the real SemEval-2025 Task 11 per-annotator file ---


@pytest.mark.slow
def test_ukr_individuals_end_to_end(cli, data_dir: Path, tmp_path: Path) -> None:
    ratings = data_dir / "semeval2025_task11" / "individual_labels" / "ukr" / "ukr_individuals.csv"
    released = [data_dir / "semeval2025_task11" / "track_a" / split / "ukr.csv" for split in ("train", "dev", "test")]
    if not ratings.is_file() or not all(path.is_file() for path in released):
        pytest.skip("no SemEval-2025 Task 11 per-annotator file or track A ukr splits in the data directory")
    code, stdout, _ = cli("annotate", "agreement", ratings, *WIDE, "--binarize", "--bootstrap", "50", "--json")
    assert code == 0
    assert json.loads(stdout)["overall"]["krippendorff_alpha"] == pytest.approx(0.4588, abs=1e-4)
    code, stdout, _ = cli("annotate", "agreement", ratings, "--binarize", "--bootstrap", "0", "--json")
    assert code == 0  # the file as it comes: text_id and emotion are found by name
    assert json.loads(stdout)["overall"]["krippendorff_alpha"] == pytest.approx(0.4588, abs=1e-4)
    out = tmp_path / "ukr_majority.csv"
    code, _, _ = cli("annotate", "aggregate", ratings, *WIDE, "--binarize", "--method", "majority", "--out", out)
    assert code == 0
    code, stdout, _ = cli("annotate", "compare", out, *released, "--json")
    assert code == 0
    comparison = json.loads(stdout)
    assert comparison["joined_on"] == "text" and comparison["n_matched"] > 4200
    assert all(scores["cohen_kappa"] > 0.7 for scores in comparison["per_label"].values())


def test_the_python_api_writes_the_report_the_command_writes(cli, wide_file: Path, tmp_path: Path) -> None:
    from affectlab.annotation import RatingsSource, write_report

    out = tmp_path / "cli"
    code, _, err = cli("annotate", "report", wide_file, *WIDE, "--out", out, "--method", "majority")
    assert code == 0, err
    source = RatingsSource(wide_file, item_col="text_id", label_col="emotion", text_col="text")
    report, chart = write_report(source, tmp_path / "api", "majority")
    cli = (tmp_path / "cli" / "report.md").read_text(encoding="utf-8")
    api = report.read_text(encoding="utf-8")
    assert api.split("## Reproduce")[0] == cli.split("## Reproduce")[0] and chart.is_file()


@pytest.mark.slow
def test_aggregate_takes_control_answers_as_known_truths(cli, long_file: Path, tmp_path: Path) -> None:
    controls = tmp_path / "controls.csv"
    truth = {(r[0], r[2]): r[4] for r in _ratings() if r[3] == "Annotator-1"}
    controls.write_text("item,label,value\n" + "".join(f"0,{label},{truth[('0', label)]}\n" for label in LABELS))
    args = ["annotate", "aggregate", long_file, "--value-col", "value", "--controls", controls]
    code, stdout, _ = cli(*args, "--json")
    assert code == 0 and json.loads(stdout)["n_control_questions"] == len(LABELS)
    code, stdout, _ = cli(*args)
    assert code == 0 and f"{len(LABELS)} control questions held at their known answers" in " ".join(stdout.split())


@pytest.mark.parametrize(
    ("content", "extra", "message"),
    [
        ("item,label,value\n0,joy,1\n", ["--method", "majority"], "dawid-skene only, not majority"),
        ("item,label,value\n999,joy,1\n", [], "control item '999' has no ratings"),
        ("item,label\n0,joy\n", [], "no column 'value'"),
    ],
)
def test_bad_controls_are_one_line(cli, long_file: Path, tmp_path: Path, content, extra, message) -> None:
    controls = tmp_path / "controls.csv"
    controls.write_text(content, encoding="utf-8")
    args = ["annotate", "aggregate", long_file, "--value-col", "value", "--controls", controls, *extra]
    code, _, stderr = cli(*args)
    assert code == 2 and message in stderr and len(stderr.strip().splitlines()) == 1
