"""Simulated annotators (affectlab.annotation.simulation): each behaviour answers as documented, and Dawid-Skene
with control answers beats it without them on a simulated crowd with spammers."""

from __future__ import annotations

import random

import numpy as np
import pytest

from affectlab.annotation import aggregate, read_long
from affectlab.annotation.simulation import SimulatedAnnotator, simulate_ratings
from affectlab.errors import InputError

LABELS = ("joy", "fear", "anger", "sadness", "disgust", "surprise")


def test_a_perfect_diligent_annotator_gives_the_truth():
    perfect = SimulatedAnnotator("a", "diligent", sensitivity=1.0, specificity=1.0)
    assert perfect.answer(frozenset({"joy", "fear"}), LABELS, random.Random(0)) == {"joy", "fear"}


def test_a_copier_gives_the_answer_of_the_one_it_copies_and_clicks_without_it():
    copier = SimulatedAnnotator("c", "copier", copies="a", click_rate=0.0)
    assert copier.answer(frozenset(), LABELS, random.Random(0), seen={"a": frozenset({"anger"})}) == {"anger"}
    assert copier.answer(frozenset({"joy"}), LABELS, random.Random(0), seen={}) == frozenset()


def test_a_control_failer_is_diligent_except_on_controls():
    failer = SimulatedAnnotator("f", "control-failer", sensitivity=1.0, specificity=1.0, click_rate=1.0)
    assert failer.answer(frozenset({"joy"}), LABELS, random.Random(0)) == {"joy"}
    assert failer.answer(frozenset({"joy"}), LABELS, random.Random(0), control=True) == set(LABELS)


def test_a_skipper_skips_at_its_rate():
    skipper = SimulatedAnnotator("s", "skipper", skip_rate=0.8)
    rng = random.Random(0)
    skipped = sum(skipper.answer(frozenset(), LABELS, rng) is None for _ in range(2000))
    assert 1500 < skipped < 1700


def test_bad_simulation_settings_are_one_line_errors():
    with pytest.raises(InputError, match="unknown annotator behaviour 'lazy'"):
        SimulatedAnnotator("x", "lazy")
    with pytest.raises(InputError, match="needs the id of the annotator it copies"):
        SimulatedAnnotator("x", "copier")
    with pytest.raises(InputError, match="per_item must be between 1 and the 1 annotators"):
        simulate_ratings({"t": frozenset()}, LABELS, [SimulatedAnnotator("a")], per_item=2)


def test_simulated_ratings_read_as_long_ratings_with_copiers_after_the_copied():
    annotators = [SimulatedAnnotator("a", click_rate=0.5), SimulatedAnnotator("b", "copier", copies="a")]
    frame = simulate_ratings({f"t{i}": frozenset({"joy"}) for i in range(10)}, LABELS, annotators, 2)
    ratings = read_long(frame, value_col="value", labels=list(LABELS))
    assert len(ratings.items) == 10 and set(ratings.annotators) == {"a", "b"}
    wide = frame.pivot_table(index=["item", "label"], columns="annotator", values="value")
    assert (wide["a"] == wide["b"]).all()


@pytest.mark.slow
def test_dawid_skene_with_control_answers_beats_it_without_them_on_a_crowd_of_clickers_and_copiers():
    rng = random.Random(1)
    truth = {f"t{i}": frozenset(x for x in LABELS if rng.random() < 0.15) for i in range(300)}
    controls = frozenset(list(truth)[:30])
    crowd = [SimulatedAnnotator(f"d{i}", sensitivity=0.75, specificity=0.9) for i in range(50)]
    crowd += [SimulatedAnnotator(f"s{i}", "fast-clicker") for i in range(0, 50, 2)]
    crowd += [SimulatedAnnotator(f"s{i + 1}", "copier", copies=f"s{i}") for i in range(0, 50, 2)]
    ratings = read_long(simulate_ratings(truth, LABELS, crowd, 5, controls, seed=1), value_col="value")
    known = {(item, label): float(label in truth[item]) for item in controls for label in LABELS}

    def accuracy(**options) -> float:
        questions = aggregate(ratings, "dawid-skene", **options).questions
        questions = questions[~questions["item"].isin(controls)]
        gold = [float(label in truth[item]) for item, label in zip(questions["item"], questions["label"], strict=True)]
        return float(np.mean(questions["value"].to_numpy() == np.array(gold)))

    assert accuracy(controls=known) > accuracy() + 0.02  # 0.849 against 0.819 here
