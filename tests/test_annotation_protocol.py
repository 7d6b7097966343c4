"""Annotation protocols as files (affectlab.annotation.protocol): the presets reproduce the papers' designs, a
protocol that breaks the schema or joins fields wrongly is one line naming the field, and ``annotate init|check``
write and check them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from affectlab.annotation.protocol import (
    PRESETS,
    duration_seconds,
    preset,
    preset_text,
    protocol_from_data,
    read_protocol,
)
from affectlab.cli.collect_cmds import PRESET_NAMES
from affectlab.errors import InputError
from affectlab.labels import GOEMOTIONS_TO_SENTIMENT


def test_the_cli_offers_every_preset():
    assert PRESET_NAMES == PRESETS


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_is_a_valid_protocol(name):
    protocol = preset(name)
    assert protocol.name == name and protocol.version == 1


def test_emobench_ua_preset_is_the_papers_design():
    protocol = preset("emobench-ua")
    first, second = protocol.stages
    assert (first.labels, second.labels) == (["fear", "surprise", "disgust"], ["anger", "joy", "sadness"])
    assert first.gate is None and second.gate is not None and second.gate.after == first.name
    assert protocol.merge == "emobench-ua" and protocol.overlap.per_item == 5
    assert protocol.none_choice is not None and protocol.intensity is not None and protocol.intensity.n_levels == 3
    assert (protocol.selection.min_words, protocol.selection.max_words) == (5, 49)
    rules = {rule.name: rule for rule in protocol.rules}
    assert (rules["fast-pages"].window, rules["fast-pages"].when.each_page_faster_than) == (3, "15s")
    assert rules["fast-pages"].then.ban == "permanent"
    assert (rules["skipped-pages"].window, rules["skipped-pages"].then.ban) == (3, "1d")
    assert (rules["break"].window, rules["break"].when.without_break, rules["break"].then.pause) == (25, "30m", "30m")
    assert (rules["control-accuracy"].window, rules["control-accuracy"].when.control_accuracy_below) == (10, 0.4)
    assert rules["control-accuracy"].then.retrain
    aggregation = protocol.aggregation
    assert (aggregation.method, aggregation.min_confidence, aggregation.controls_as_truth) == ("dawid-skene", 0.9, True)
    assert all(stage.training and stage.exam for stage in protocol.stages)


def test_emobench_ua_instructions_are_app_d_verbatim_in_ukrainian_letters():
    first = preset("emobench-ua").stages[0].instructions
    assert first["en"].startswith(
        "Select one or more emotions and their intensity in the text. If there are no emotions in the text or if "
        "there are emotions not represented in the list, select the No emotions / other emotions option."
    )
    assert first["uk"].startswith("Виберіть одну або кілька емоцій та їх інтенсивність у тексті.")
    for stage in preset("emobench-ua").stages:
        assert not re.search(r"[A-Za-z]", stage.instructions["uk"]), "a Latin letter in the Ukrainian text"


def test_goemotions_preset_groups_the_labels_by_sentiment_with_three_then_two_raters():
    protocol = preset("goemotions")
    groups = {choice.name: choice.group for choice in [*protocol.labels, protocol.none_choice] if choice}
    assert groups == GOEMOTIONS_TO_SENTIMENT
    assert all(choice.emoji and choice.description for choice in protocol.labels)
    assert (protocol.overlap.per_item, protocol.overlap.extra, protocol.overlap.min_votes) == (3, 2, 2)
    assert protocol.difficult_flag and protocol.aggregation.method == "votes"


def test_emocontext_and_brighter_presets():
    emocontext, brighter = preset("emocontext"), preset("brighter")
    assert emocontext.label_names == ["happy", "sad", "angry"] and emocontext.none_choice.name == "others"
    assert not emocontext.multi_label and emocontext.shows_context and emocontext.overlap.per_item == 7
    assert brighter.languages == ["any"] and brighter.intensity.n_levels == 3
    assert brighter.aggregation.method == "brighter"


def _emobench() -> dict:
    return yaml.safe_load(preset_text("emobench-ua"))


def _broken(edit) -> dict:
    data = _emobench()
    edit(data)
    return data


@pytest.mark.slow
@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["stages"][1]["gate"].update(after="nowhere"), "has a gate after 'nowhere', not an earlier stage"),
        (lambda d: d["stages"][0]["labels"].append("love"), "names an unknown label 'love'"),
        (lambda d: d.update(pool=3), "overlap 5 per item is above the annotator pool of 3"),
        (lambda d: d["intensity"].update(levels={}), "intensity.levels: an intensity needs a scale"),
        (
            lambda d: d["stages"][0]["exam"]["examples"][0]["intensities"].update(fear=4),
            "intensity 4 of 'fear' is off the scale 1-3",
        ),
        (lambda d: d["stages"][0]["exam"]["examples"][0]["intensities"].clear(), "'fear' has no intensity"),
        (lambda d: d["stages"][0]["exam"]["examples"][0].update(labels=["joy"]), "its stage does not ask about"),
        (lambda d: d["rules"][0]["when"].update(all_skipped=True), "sets exactly one of"),
        (lambda d: d["rules"][0]["when"].update(each_page_faster_than="soon"), "'soon' is not a duration"),
        (lambda d: d["aggregation"].update(method="vote"), "unknown aggregation 'vote'"),
        (lambda d: d["aggregation"].update(method="majority"), "controls_as_truth is for dawid-skene only"),
        (lambda d: d.pop("controls"), "aggregation.controls_as_truth needs controls"),
        (lambda d: d.update(version=2), "version 2 is not one this affectlab reads"),
        (lambda d: d.update(languages=["xx"]), "'xx' is not a BCP 47 language tag"),
        (lambda d: d["labels"][0].update(text={"en": "Joy"}), "labels.joy.text has no text in uk"),
        (lambda d: d.update(colour="blue"), "colour: Extra inputs are not permitted"),
        (lambda d: d["labels"].append(d["labels"][0]), "the label 'joy' is given twice"),
        (lambda d: d.update(page_size=101), "page_size: Input should be less than or equal to 100"),
        (lambda d: d["selection"].update(min_words=30, max_words=10), "max_words 10 is below min_words 30"),
    ],
)
def test_a_broken_protocol_is_one_line_naming_the_field(edit, message):
    with pytest.raises(InputError) as error:
        protocol_from_data(_broken(edit), "protocol.yaml")
    assert message in str(error.value) and str(error.value).startswith("protocol.yaml")
    assert "\n" not in str(error.value)


def test_what_is_not_a_protocol_says_so(tmp_path):
    with pytest.raises(InputError, match="not an affectlab protocol"):
        protocol_from_data({"format": "label-studio"}, "p.yaml")
    with pytest.raises(InputError, match="expected a mapping of fields, got list"):
        protocol_from_data([1, 2], "p.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: [unclosed\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.yaml line \d+: not valid YAML"):
        read_protocol(bad)
    with pytest.raises(InputError, match="does not exist"):
        read_protocol(tmp_path / "missing.yaml")
    with pytest.raises(InputError, match="unknown preset 'toloka'"):
        preset("toloka")


def test_durations():
    assert [duration_seconds(text) for text in ("15s", "30m", "2h", "1d", "1.5h")] == [15, 1800, 7200, 86400, 5400]
    with pytest.raises(InputError, match="is not a duration"):
        duration_seconds("15")


def test_init_writes_the_preset_and_check_reads_it(cli, tmp_path: Path):
    out = tmp_path / "protocol.yaml"
    code, stdout, _ = cli("annotate", "init", "--preset", "emobench-ua", "--out", out)
    assert code == 0 and "wrote the emobench-ua protocol" in stdout
    assert out.read_text(encoding="utf-8") == preset_text("emobench-ua")
    code, stdout, _ = cli("annotate", "check", out, "--json")
    summary = json.loads(stdout)
    assert code == 0 and summary["name"] == "emobench-ua" and len(summary["stages"]) == 2
    assert summary["rules"] == ["fast-pages", "skipped-pages", "break", "control-accuracy"]


def test_init_keeps_a_file_unless_forced(cli, tmp_path: Path):
    out = tmp_path / "protocol.yaml"
    out.write_text("mine", encoding="utf-8")
    code, _, stderr = cli("annotate", "init", "--preset", "brighter", "--out", out)
    assert code == 2 and "already exists (--force replaces it)" in stderr and out.read_text() == "mine"
    code, _, _ = cli("annotate", "init", "--preset", "brighter", "--out", out, "--force", "--json")
    assert code == 0 and out.read_text(encoding="utf-8") == preset_text("brighter")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--preset", "toloka", "--out", "p.yaml"], "unknown preset 'toloka'"),
        (["--preset", "goemotions", "--out", "p.json"], "must be a .yaml or .yml file"),
        (["--preset", "goemotions", "--out", "no/such/folder/p.yaml"], "does not exist"),
    ],
)
def test_init_refusals_are_one_line(cli, tmp_path: Path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    code, _, stderr = cli("annotate", "init", *args)
    assert code == 2 and message in stderr and len(stderr.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())


def test_check_names_the_broken_field(cli, tmp_path: Path):
    path = tmp_path / "protocol.yaml"
    path.write_text(preset_text("emobench-ua").replace("page_size: 5", "page_size: 0"), encoding="utf-8")
    code, _, stderr = cli("annotate", "check", path)
    assert code == 2 and "protocol.yaml: page_size: Input should be greater than or equal to 1" in stderr
