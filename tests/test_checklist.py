"""The behavioural suite (issue 52): its data files in ten languages hold what the issue asks (every capability and
negation scope in dev and in test, by different templates), its expectations mean what they say, and
``affectlab checklist`` reports pass rates per language and capability with failing sentences, refusing bad input
in one line."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from affectlab.checklist import CAPABILITIES, EDITS, Case, run_checklist, suite_languages, written_cases
from affectlab.checklist.suite import SCOPES, check_language_file, language_file
from affectlab.detectors import create_detector
from affectlab.labels import EKMAN, GOEMOTIONS
from affectlab.metrics.thresholds import Decision
from fuzz_support import check_exit, invoke

LANGUAGES = ("am", "ar", "de", "en", "es", "hi", "pt", "ru", "uk", "zh")


def test_the_suite_has_ten_languages_each_with_every_capability_in_dev_and_test():
    assert suite_languages() == LANGUAGES
    for lang in LANGUAGES:
        counts = Counter((case.capability, case.split) for case in written_cases(lang))
        for capability in CAPABILITIES[:-1]:  # invariance is made from the written sentences
            assert counts[capability, "dev"] >= 6 and counts[capability, "test"] >= 6, (lang, capability, counts)
        scopes = Counter((t["scope"], t["split"]) for t in language_file(lang)["templates"] if "scope" in t)
        assert all(scopes[scope, split] for scope in SCOPES for split in ("dev", "test")), (lang, scopes)


def test_dev_and_test_never_share_a_template_or_a_sentence():
    for lang in LANGUAGES:
        dev, test = written_cases(lang, "dev"), written_cases(lang, "test")
        assert not {c.template for c in dev} & {c.template for c in test}
        assert not {c.text for c in dev} & {c.text for c in test}, lang


def test_a_template_naming_a_slot_its_fills_lack_is_refused():
    data = {
        "lang": "xx",
        "fills": {"adj": {"anger": ["angry"]}},
        "templates": [
            {"id": "t", "capability": "negation", "scope": "not X", "split": "dev", "text": "I'm not {X.adj}."}
        ],
    }
    with pytest.raises(ValueError, match="slot 'adj' has no words for disgust"):
        check_language_file(data)
    data["templates"][0]["emotions"] = ["anger"]
    check_language_file(data)
    data["templates"][0]["scope"] = "hardly X"
    with pytest.raises(ValueError, match="unknown scope"):
        check_language_file(data)


def test_templates_expand_per_emotion_and_per_pair_of_emotions():
    cases = [c for c in written_cases("en", "dev") if c.capability in ("negation", "not_a_but_b")]
    negation = [c for c in cases if c.capability == "negation"]
    assert {c.absent for c in negation} == {(e,) for e in EKMAN.emotion_labels}
    contrast = [c for c in cases if c.capability == "not_a_but_b"]
    assert {(c.absent[0], c.present[0]) for c in contrast} == {
        (a, b) for a in EKMAN.emotion_labels for b in EKMAN.emotion_labels if a != b
    }
    assert all("{" not in c.text for c in cases)


def test_each_expectation_passes_and_fails_as_it_says():
    def case(**expect: object) -> Case:
        return Case("en", "x", "t", "dev", "text", **expect)  # type: ignore[arg-type]

    assert case(absent=("anger",)).passes({"sadness"}) and not case(absent=("anger",)).passes({"anger", "sadness"})
    assert case(present=("fear",), absent=("sadness",)).passes({"fear"})
    assert not case(present=("fear",), absent=("sadness",)).passes({"fear", "sadness"})
    situation = case(any_of=("fear", "sadness"), absent=("joy",))
    assert situation.passes({"fear"}) and not situation.passes({"none"}) and not situation.passes({"sadness", "joy"})
    assert case(only=("none",)).passes({"none"}) and not case(only=("none",)).passes({"none", "joy"})


def test_every_edit_keeps_the_text_and_changes_it():
    text = "Found a long hair in my soup halfway through eating it."
    for edit in EDITS:
        changed = edit.apply(text)
        assert changed != text and changed == edit.apply(text), edit.name


@pytest.fixture(scope="module")
def none_detector():
    """A detector that gives only ``none``: its every text is a neutral statement."""
    texts = ["the bus leaves at seven", "the shop opens at nine", "i am so angry", "bread costs two euros"]
    targets = np.zeros((4, len(EKMAN)), dtype=np.int8)
    targets[:, EKMAN.labels.index("none")] = 1
    targets[2, EKMAN.labels.index("none")] = 0
    targets[2, EKMAN.labels.index("anger")] = 1
    model = create_detector("tfidf-lr").fit(texts, targets, EKMAN)
    model.decision_ = Decision("thresholds", np.ones(len(EKMAN)), none_gate=0.0)  # none alone, whatever the text
    return model


def test_a_detector_that_says_none_passes_negation_and_neutral_and_fails_the_rest(none_detector):
    report = run_checklist(none_detector, ["en", "uk"], split="dev")
    for lang in ("en", "uk"):
        assert report.result(lang, "negation").rate == 1.0 and report.result(lang, "neutral").rate == 1.0
        assert report.result(lang, "not_a_but_b").rate == 0.0 and report.result(lang, "clear").rate == 0.0
        assert report.result(lang, "invariance").rate == 1.0
        failure = report.result(lang, "clear").failures[0]
        assert failure["labels"] == ["none"] and failure["expected"].startswith("has ")
    assert set(report.to_dict()["results"][0]) == {"lang", "capability", "rate", "passed", "n", "by", "failures"}


@pytest.mark.slow
def test_the_command_prints_rates_per_language_and_json_for_scripts():
    outcome = invoke(["checklist", "--lang", "en", "--split", "dev", "--examples", "1", "--json"])
    check_exit(outcome)
    report = json.loads(outcome.out)
    assert report["split"] == "dev" and report["languages"] == ["en"]
    assert [r["capability"] for r in report["results"]] == list(CAPABILITIES)
    assert all(len(r["failures"]) <= 1 for r in report["results"])
    negation = next(r for r in report["results"] if r["capability"] == "negation")
    assert set(negation["by"]) == set(SCOPES) and negation["n"] == sum(d["n"] for d in negation["by"].values())
    shown = invoke(["checklist", "--lang", "uk", "--split", "test", "--examples", "0"])
    check_exit(shown)
    assert "not A but B" in shown.out and "uk" in shown.out and "said twice" in shown.out


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--lang", "xx"], "the suite has no language 'xx'"),
        (["--split", "train"], "unknown split 'train'"),
        (["--model", "no/such/folder"], "is not an affectlab model directory"),
        (["--examples", "-1"], "--examples"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, fragment):
    outcome = invoke(["checklist", *args])
    check_exit(outcome)
    assert outcome.code == 2 and fragment in outcome.err


def test_a_model_of_another_taxonomy_is_refused(tmp_path):
    texts = ["thanks a lot", "that is so funny", "i am sad", "wow"]
    targets = np.eye(4, len(GOEMOTIONS), dtype=np.int8)
    create_detector("tfidf-lr").fit(texts, targets, GOEMOTIONS).save(tmp_path / "go")
    outcome = invoke(["checklist", "--model", tmp_path / "go", "--lang", "en"])
    check_exit(outcome)
    assert outcome.code == 2 and "the suite reads the ekman labels" in outcome.err
