"""``affectlab eval`` as one library call (issue 22: the Python API does what the command does)."""

import json

import pytest

from affectlab.errors import InputError
from affectlab.evaluation.jobs import run_evaluation
from affectlab.evaluation.store import RunStore
from fuzz_support import check_exit, invoke


@pytest.mark.slow
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


def test_a_kind_that_never_rates_intensity_is_refused_on_track_b_before_training(data_dir):
    stages: list[str] = []
    with pytest.raises(InputError, match=r"^the keywords detector does not rate intensity, which semeval2025-ukr"):
        run_evaluation("keywords", "semeval2025-ukr-intensity", data_dir=data_dir, record=False,
                       progress=stages.append)  # fmt: skip
    assert not any(stage.startswith("training") for stage in stages)
    outcome = invoke(["eval", "--model", "keywords", "--dataset", "semeval2025-ukr-intensity", "--data-dir", data_dir])
    assert outcome.code == 2 and outcome.err.strip().splitlines() == [
        "error: the keywords detector does not rate intensity, which semeval2025-ukr-intensity is scored on (a model "
        "whose encoder was fine-tuned with an intensity head does: the default ekman head as `affectlab "
        "build-default --fine-tune` builds it)"
    ]


def test_training_on_intensity_data_tunes_the_decision_on_the_labels_not_on_pearsons_r(data_dir):
    from affectlab.datasets import resolve_dataset
    from affectlab.detectors import create_detector
    from affectlab.evaluation.evaluate import check_rates_intensity
    from affectlab.evaluation.training import train_detector

    spec, data = resolve_dataset("semeval2025-ukr-intensity", data_dir)
    detector = create_detector("keywords")
    summary = train_detector(detector, spec, data, cv_thresholds=False)
    assert summary["n_train"] > 0 and summary["decision"]["values"]  # tuned, not "unknown primary metric"
    with pytest.raises(InputError, match="does not rate intensity"):
        check_rates_intensity(detector, spec)
