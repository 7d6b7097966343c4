"""The copying rule (issue 53, ours): the same choice as one earlier annotator too often over a window."""

from __future__ import annotations

import pytest

pytest.importorskip("pydantic")

from affectlab.annotation.protocol import (
    AgreementWithFirst,
    AgreementWithOne,
    AgreementWithOthers,
    preset,
    preset_text,
)
from affectlab.collection.rules import NO_EMOTION, copies_first, copies_one, guesses
from test_collection import FIRST, make, passed

FEAR, SURPRISE = (frozenset({"fear"}), False), (frozenset({"surprise"}), False)
COPYING = """
  - name: copying
    window: 2
    when: {agreement_with_one: {at_least: 1.0, min_shared: 6}}
    then: {ban: permanent}
"""


def test_copying_fires_at_its_share_over_enough_shared_items_only():
    condition = AgreementWithOne(at_least=0.9, min_shared=10)
    same = [(FEAR, [("a", FEAR)])] * 9 + [(SURPRISE, [("a", FEAR)])]
    assert copies_one(same, condition)  # 9 of 10: 0.9
    assert not copies_one(same[:9], condition)  # 9 shared: under min_shared
    assert not copies_one([(FEAR, [("a", FEAR)])] * 8 + [(SURPRISE, [("a", FEAR)])] * 2, condition)  # 0.8
    assert not copies_one([(FEAR, [("a", FEAR), ("b", SURPRISE)])] * 5 + [(SURPRISE, [("b", SURPRISE)])] * 5,
                          condition)  # fmt: skip  # 5 with a, 10 with b of which 5 the same


def test_items_both_called_no_emotion_do_not_count():
    condition = AgreementWithOne(at_least=1.0, min_shared=5)
    assert not copies_one([(NO_EMOTION, [("a", NO_EMOTION)])] * 20, condition)
    assert copies_one([(NO_EMOTION, [("a", NO_EMOTION)])] * 20 + [(FEAR, [("a", FEAR)])] * 5, condition)


def test_copying_the_first_answer_and_guessing_fire_at_their_shares():
    first = AgreementWithFirst(at_least=0.9, min_shared=10)
    with_first = [(FEAR, [("a", FEAR), ("b", SURPRISE)]), (SURPRISE, [("b", SURPRISE), ("a", FEAR)])] * 5
    assert copies_first(with_first, first)  # the first answer each time, a different annotator each time
    assert not copies_one(with_first, AgreementWithOne(at_least=0.9, min_shared=10))  # 5 of 10 with either
    assert not copies_first(with_first[:9], first)  # 9 items: under min_shared
    guessing = AgreementWithOthers(below=0.2, min_shared=10)
    assert guesses([(FEAR, [("a", SURPRISE), ("b", SURPRISE)])] * 5, guessing)  # 0 of 10 pairs
    assert not guesses([(FEAR, [("a", SURPRISE), ("b", SURPRISE)])] * 4, guessing)  # 8 pairs: under min_shared
    assert not guesses([(FEAR, [("a", FEAR), ("b", SURPRISE)])] * 5, guessing)  # 5 of 10


def answers_for(page, choices):  # a page shows texts, not ids: make's texts are "text number {i}"
    chosen = [choices[item["text"].replace("text number ", "t")] for item in page["items"]]
    return [{"position": i, "labels": labels, "none": not labels} for i, labels in enumerate(chosen)]


def test_an_annotator_who_copies_another_is_banned_and_the_one_copied_is_not(tmp_path):
    text = preset_text("emobench-ua").replace("\naggregation:", COPYING + "aggregation:", 1)
    project, _, clock = make(tmp_path, gold={}, n=40, text=text)
    labels = ({"fear": 2}, {"surprise": 1}, {"disgust": 3}, {"fear": 2, "disgust": 1})
    own = {f"t{i}": labels[i % 4] for i in range(40)}
    first, copier, other = (passed(project, name) for name in ("first", "copier", "other"))
    for annotator, choices in ((first, own), (copier, own), (other, {item: {"surprise": 2} for item in own})):
        for _ in range(2):
            page = project.next_page(annotator, FIRST)
            clock.now += 60
            me = project.submit(annotator, page["page"], answers_for(page, choices))
        assert me["status"] == ("banned" if annotator is copier else "active")
    later = project.next_page(first, FIRST)  # the one copied goes on, its answers now after the copier's too
    clock.now += 60
    assert project.submit(first, later["page"], answers_for(later, own))["status"] == "active"


def test_the_answers_of_an_annotator_stopped_before_are_not_read_as_evidence(tmp_path):
    text = preset_text("emobench-ua").replace("\naggregation:", COPYING + "aggregation:", 1)
    project, _, clock = make(tmp_path, gold={}, n=40, text=text)
    choices = {f"t{i}": ({"fear": 2}, {"surprise": 1})[i % 2] for i in range(40)}
    fast, follower = passed(project, "fast"), passed(project, "follower")
    for _ in range(3):  # three pages in a second each: the preset's fast-pages rule bans "fast"
        page = project.next_page(fast, FIRST)
        clock.now += 1
        me = project.submit(fast, page["page"], answers_for(page, choices))
    assert me["status"] == "banned"
    for _ in range(2):  # the same choices as the banned one on the same texts: nothing read, nothing copied
        page = project.next_page(follower, FIRST)
        clock.now += 60
        assert project.submit(follower, page["page"], answers_for(page, choices))["status"] == "active"


def test_the_plus_preset_is_emobench_ua_with_our_two_rules_alone():
    plain, plus = preset("emobench-ua"), preset("emobench-ua-plus")
    ours = plus.rules[len(plain.rules) :]
    assert plus.rules[: len(plain.rules)] == plain.rules
    assert [rule.name for rule in ours] == ["copying", "guessing"]
    assert ours[0].when.agreement_with_one and ours[1].when.agreement_with_others
    same = {"rules", "name", "description"}
    assert plus.model_dump(exclude=same) == plain.model_dump(exclude=same)
    assert "ours" in preset_text("emobench-ua-plus").split("\nformat:")[0]  # its comments say what is ours
    agreement = ("agreement_with_one", "agreement_with_first", "agreement_with_others")
    assert all(getattr(rule.when, name) is None for rule in plain.rules for name in agreement)  # off in the paper's
