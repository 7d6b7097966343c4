"""``affectlab score``: the local engine streams files into a folder of Parquet files with the columns ``detect
--input`` writes; the Ray engine (a local Ray instance with 2 CPUs) gives identical rows on the same input; bad input
is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import affectlab
from affectlab.io.resume import FOLDER_RECORD

TEXTS = ["I love this so much", "Я дуже злий", "¡Qué miedo!", "", "what a sad day", "thank you!"]


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    pd.DataFrame({"id": range(2500), "text": [TEXTS[i % len(TEXTS)] + f" {i}" * (i % 3 > 0) for i in range(2500)]}
                 ).to_parquet(folder / "a.parquet")  # fmt: skip
    pd.DataFrame({"id": range(40), "text": TEXTS * 6 + TEXTS[:4]}).to_csv(folder / "b.csv", index=False)
    return folder


def test_local_engine_scores_a_folder(inputs: Path, tmp_path: Path, cli) -> None:
    code, out, err = cli("score", "--input", inputs, "--output", tmp_path / "out", "--fast",
                         "--batch-size", "64", "--json")  # fmt: skip
    assert code == 0, err
    report = json.loads(out)
    assert [f["rows"] for f in report["files"]] == [2500, 40]
    scored = pd.read_parquet(tmp_path / "out" / "b.parquet")
    assert (
        list(scored.columns[:2]) == ["id", "text"] and "score_joy" in scored and scored["error"].iloc[3] == "empty text"
    )
    assert scored.loc[0, "labels"] and pd.isna(scored.loc[3, "score_joy"])


def test_score_writes_the_columns_and_values_detect_input_writes(inputs: Path, tmp_path: Path, cli) -> None:
    code, _, err = cli("score", "--input", inputs / "b.csv", "--output", tmp_path / "out", "--fast")
    assert code == 0, err
    affectlab.detect_file(inputs / "b.csv", tmp_path / "detected.parquet", fast=True)

    scored, detected = pd.read_parquet(tmp_path / "out" / "b.parquet"), pd.read_parquet(tmp_path / "detected.parquet")

    assert list(scored.columns[-4:]) == ["lang", "supported", "notes", "error"]
    pd.testing.assert_frame_equal(scored, detected)


def test_score_into_a_folder_scored_with_other_columns_is_refused(inputs: Path, tmp_path: Path, cli) -> None:
    command = ["score", "--input", inputs, "--output", tmp_path / "out", "--fast", "--batch-size", "512"]
    assert cli(*command)[0] == 0
    record = tmp_path / "out" / FOLDER_RECORD
    saved = json.loads(record.read_text(encoding="utf-8"))
    del saved["details"]["extra columns"]  # as an earlier version recorded it: its files had no lang, notes
    record.write_text(json.dumps(saved), encoding="utf-8")
    (tmp_path / "out" / "b.parquet").unlink()

    code, _, err = cli(*command)

    assert code == 2 and "holds files scored without extra columns (this run: with extra columns lang," in err


def test_bad_input(tmp_path: Path, cli) -> None:
    code, _, err = cli("score", "--input", tmp_path / "nope.parquet", "--output", tmp_path / "o")
    assert code == 2 and "does not exist" in err
    (tmp_path / "x.json").write_text("{}")
    code, _, err = cli("score", "--input", tmp_path / "x.json", "--output", tmp_path / "o")
    assert code == 2 and "reads .parquet and .csv" in err
    (tmp_path / "y.csv").write_text("a\n1\n")
    code, _, err = cli("score", "--input", tmp_path / "y.csv", "--output", tmp_path / "o", "--engine", "spark")
    assert code == 2 and "local or ray" in err


@pytest.mark.slow
def test_ray_engine_gives_the_local_scores(inputs: Path, tmp_path: Path, cli) -> None:
    pytest.importorskip("ray")
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    try:
        for engine in ("local", "ray"):
            extra = ["--workers", "2"] if engine == "ray" else []
            code, _, err = cli("score", "--input", inputs, "--output", tmp_path / engine, "--fast",
                               "--batch-size", "64", "--engine", engine, *extra)  # fmt: skip
            assert code == 0, err
    finally:
        ray.shutdown()
    for name in ("a.parquet", "b.parquet"):
        local = pd.read_parquet(tmp_path / "local" / name)
        distributed = pd.read_parquet(tmp_path / "ray" / name)
        assert len(local) == len(distributed)
        assert list(local.columns) == list(distributed.columns)
        pd.testing.assert_frame_equal(local.reset_index(drop=True), distributed.reset_index(drop=True))
