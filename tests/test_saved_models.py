"""Model directories saved by an earlier affectlab (0.1.0 before issue 14 moved the modules; see
``fixtures/save_models.py``) load and give the probabilities and labels they gave then; so does the shipped
open-state predictor, and the shipped heads give what they gave when they were last rebuilt (issue 15)."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import affectlab
from affectlab.detectors import read_detector
from affectlab.detectors.resolve import resolve_detector

SAVED = Path(__file__).parent / "fixtures" / "saved_models_0.1.0"
EXPECTED = json.loads((SAVED / "expected.json").read_text(encoding="utf-8"))
NEEDS_TORCH = {"hf"}
HAS_TORCH = importlib.util.find_spec("torch") is not None


def skip_without_torch(name: str) -> None:
    if name in NEEDS_TORCH and not HAS_TORCH:
        pytest.skip("needs the hf extra (torch)")


@pytest.mark.parametrize("kind", sorted(EXPECTED["probabilities"]))
def test_a_saved_model_gives_what_it_gave_when_saved(kind):
    skip_without_torch(kind)
    model = read_detector(SAVED / kind)
    assert model.name == kind
    np.testing.assert_allclose(model.predict_proba(EXPECTED["probes"]), EXPECTED["probabilities"][kind], atol=1e-6)
    assert model.predict_labels(EXPECTED["probes"]) == EXPECTED["labels"][kind]


def test_a_saved_llm_detector_loads_with_its_endpoint_settings():
    model = read_detector(SAVED / "llm")
    assert (model.params["model"], model.params["base_url"]) == ("some-model", "http://127.0.0.1:9/v1")


@pytest.mark.parametrize("head", sorted(EXPECTED["shipped_heads"]))
def test_a_shipped_head_gives_what_it_gave_when_recorded(head):
    taxonomy, _, profile = head.partition("-")
    if not profile:
        skip_without_torch(taxonomy)
    detector = resolve_detector("default", taxonomy, fast=profile == "fast")
    np.testing.assert_allclose(detector.predict_proba(EXPECTED["probes"]), EXPECTED["shipped_heads"][head], atol=1e-6)


def test_the_shipped_open_state_predictor_ranks_as_before():
    results = affectlab.detect_open(EXPECTED["open_probes"], k=5)
    assert [r.to_dict() for r in results] == EXPECTED["shipped_open"]
