"""One scoring door (issue 42): evaluation and ``detect`` score through ``Detector.score``, so that a row of a
dataset gets the same labels from ``evaluate()`` as from ``detect()`` (and from ``detect --input``), and the
router scores only through ``route`` and ``score``."""

from __future__ import annotations

import numpy as np
import pytest
from datasets import DatasetDict

import affectlab
from affectlab.datasets import resolve_dataset
from affectlab.detectors.resolve import resolve_detector
from affectlab.detectors.routed import LanguageRoutedDetector
from affectlab.evaluation.evaluate import evaluate

ROWS = 60


@pytest.mark.slow
@pytest.mark.parametrize(("dataset", "lang"), [("emobench-ua", "uk"), ("semeval2025-deu", "de")])
def test_evaluate_and_detect_give_the_same_labels_on_the_same_rows(data_dir, dataset, lang):
    spec, data = resolve_dataset(dataset, data_dir)
    rows = data["test"].select(range(ROWS))
    model = resolve_detector("default", "ekman")
    record = evaluate(model, spec, DatasetDict({"test": rows}), n_bootstrap=10)
    found = affectlab.detect(list(rows["text"]), lang=lang)
    assert all(len(text) <= 1000 for text in rows["text"])  # read whole by both
    detected = spec.label_space.encode([[label for label in d.labels if label in spec.label_space.labels]
                                        for d in found])  # fmt: skip
    np.testing.assert_array_equal(record.outputs["pred"], detected)


def test_the_router_scores_only_through_route_and_score():
    own = {name for name, value in vars(LanguageRoutedDetector).items() if callable(value)}
    scoring = {"predict_proba", "_predict_proba", "predict", "decide", "decision_scores", "intensities", "_intensities"}
    assert not own & scoring, f"the router scores outside score(): {sorted(own & scoring)}"
    assert {"route", "score"} <= own
