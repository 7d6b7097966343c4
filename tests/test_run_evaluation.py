"""``affectlab eval`` as one library call (issue 22: the Python API does what the command does)."""

import json

import pytest

from affectlab.errors import InputError
from affectlab.evaluation.run import run_evaluation
from affectlab.evaluation.store import RunStore
from fuzz_support import check_exit, invoke


def test_one_call_trains_scores_and_records_a_run_as_the_command_does(data_dir, tmp_path):
    db = tmp_path / "runs.sqlite"
    record = run_evaluation("keywords", "emobench-ua", data_dir=data_dir, limit=50, n_bootstrap=10, runs_db=db)
    assert record["model"] == "keywords" and record["n"] == 50 and record["training"]["n_train"] > 0
    assert [run["id"] for run in RunStore(db).list()] == [record["run_id"]]
    outcome = invoke(["eval", "--model", "keywords", "--dataset", "emobench-ua", "--data-dir", data_dir,
                      "--limit", "50", "--bootstrap", "10", "--json", "--no-record"])  # fmt: skip
    check_exit(outcome)
    assert json.loads(outcome.out)["metrics"] == record["metrics"]


def test_parameters_for_a_model_that_is_not_trained_here_are_refused(data_dir):
    with pytest.raises(InputError, match="--param applies to a model kind"):
        run_evaluation("default", "emobench-ua", params={"C": 2}, data_dir=data_dir, record=False)
