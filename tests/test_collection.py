"""The collection pipeline (issue 44) on a fake clock: the rules at their thresholds, exact overlap, restarts,
stage gates and the export against the offline aggregation."""

from __future__ import annotations

import threading
from pathlib import Path

import pandas as pd
import pytest

from affectlab.annotation.jobs import aggregate_ratings
from affectlab.annotation.protocol import Rule, preset, preset_text
from affectlab.annotation.readers import RatingsSource, read_long
from affectlab.collection.creation import create_project
from affectlab.collection.gates import open_stage
from affectlab.collection.log import EventLog, Item
from affectlab.collection.project import CollectionError, Project
from affectlab.collection.reports import annotator_records, split_half_class_match
from affectlab.collection.rules import Page, fired_rules
from affectlab.errors import InputError

FIRST, SECOND = "fear-surprise-disgust", "anger-joy-sadness"


class Clock:
    """Server time the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def make(tmp_path: Path, name: str = "emobench-ua", n: int = 30, gold: dict | None = None, text: str | None = None):
    clock = Clock()
    items = [Item(f"t{i}", f"text number {i}") for i in range(n)]
    items += [Item(f"c{i}", f"control {i}") for i in range(8)] if gold != {} else []
    gold = gold if gold is not None else {(f"c{i}", label): float(label == "fear") for i in range(8)
                                          for label in ("fear", "surprise", "disgust")}  # fmt: skip
    project, token = create_project(str(tmp_path / "p.sqlite"), text or preset_text(name), items, gold, clock=clock)
    return project, token, clock


def passed(project: Project, name: str, stage: str = FIRST):
    annotator = project.annotator_for(project.invite(name))
    spec = project.stages[stage]
    if spec.exam is not None:
        project.training(annotator, stage)
        answers = [{"position": i, "labels": {label: 2 for label in ex.labels}, "none": not ex.labels}
                   for i, ex in enumerate(spec.exam.examples)]  # fmt: skip
        assert project.take_exam(annotator, stage, answers)["passed"]
    return annotator


def answer_page(project, annotator, clock, seconds, stage=FIRST, skip=False, labels=None):
    page = project.next_page(annotator, stage)
    clock.now += seconds
    answers = [{"position": i, "labels": {} if skip else (labels or {"fear": 2}), "skip": skip}
               for i in range(len(page["items"]))]  # fmt: skip
    return project.submit(annotator, page["page"], answers)


# -- the rules, at their thresholds -------------------------------------------------------------------------------


def test_fast_pages_ban_on_the_third_page_under_15_seconds_and_not_at_15(tmp_path):
    project, _, clock = make(tmp_path)
    annotator = passed(project, "a")
    assert answer_page(project, annotator, clock, 15.0)["status"] == "active"  # exactly 15 s is not under
    assert answer_page(project, annotator, clock, 14.9)["status"] == "active"
    assert answer_page(project, annotator, clock, 14.9)["status"] == "active"
    assert answer_page(project, annotator, clock, 14.9)["status"] == "banned"
    with pytest.raises(CollectionError, match="banned"):
        project.next_page(annotator, FIRST)
    clock.now += 10 * 86400
    with pytest.raises(CollectionError, match="banned"):  # permanent
        project.next_page(annotator, FIRST)


def test_three_skipped_pages_ban_for_one_day_then_work_resumes(tmp_path):
    project, _, clock = make(tmp_path)
    annotator = passed(project, "a")
    for _ in range(2):
        assert answer_page(project, annotator, clock, 20, skip=True)["status"] == "active"
    me = answer_page(project, annotator, clock, 20, skip=True)
    assert me["status"] == "banned" and me["until"] == pytest.approx(clock.now + 86400)
    clock.now += 86400
    assert answer_page(project, annotator, clock, 20, skip=True)["status"] == "active"  # the window starts again


def test_a_break_after_25_pages_without_one(tmp_path):
    project, _, clock = make(tmp_path, n=200)
    annotator = passed(project, "a")
    statuses = [answer_page(project, annotator, clock, 20)["status"] for _ in range(25)]
    assert statuses == ["active"] * 24 + ["paused"]
    clock.now += 30 * 60
    assert answer_page(project, annotator, clock, 20)["status"] == "active"


def _pages(results: list[list[bool]], skipped: bool = False) -> list[Page]:
    return [Page(f"p{i}", "a", FIRST, (), frozenset(), i * 100.0, i * 100.0 + 90, i * 100.0 + 30, skipped, list(r))
            for i, r in enumerate(results)]  # fmt: skip


def control_rule() -> Rule:
    return next(rule for rule in preset("emobench-ua").rules if rule.when.control_accuracy_below is not None)


def test_control_accuracy_fires_below_40_percent_over_a_full_window_of_10_pages():
    rule = control_rule()
    low = [[False], [True], [False], [False], [True], [False], [True], [False], [False], [False]]  # 3 of 10
    assert fired_rules([rule], _pages(low[:9]), {}) == []  # the window is not full
    assert fired_rules([rule], _pages(low), {}) == [rule]
    at_threshold = [[True]] * 4 + [[False]] * 6  # 0.4 is not below 0.4
    assert fired_rules([rule], _pages(at_threshold), {}) == []
    assert fired_rules([rule], _pages([[]] * 10), {}) == []  # no control task in the window
    assert fired_rules([rule], _pages(low), {rule.name: 1}) == []  # 9 pages since it last fired


def test_failing_controls_sends_the_annotator_back_to_training(tmp_path):
    text = preset_text("emobench-ua").replace("\n  share: 0.2", "\n  share: 0.6")  # controls.share
    project, _, clock = make(tmp_path, n=200, text=text)
    annotator = passed(project, "a")
    for _ in range(10):  # every control's known answer is fear; this annotator says disgust
        me = answer_page(project, annotator, clock, 20, labels={"disgust": 1})
    assert me["status"] == "retrain"
    with pytest.raises(CollectionError, match="training"):
        project.next_page(annotator, FIRST)
    passed_again = project.annotator_for(project.invite("a"))
    assert project.me(passed_again)["stages"][0]["needs"] == "training"


# -- overlap, reservations, restarts ------------------------------------------------------------------------------


def test_overlap_is_exact_with_annotators_at_once_and_no_one_sees_an_item_twice(tmp_path):
    project, _, _ = make(tmp_path, "goemotions", n=24, gold={})
    annotators = [project.annotator_for(project.invite(f"a{i}")) for i in range(12)]

    def work(annotator):
        while (page := project.next_page(annotator, "emotions")) is not None:
            answers = [{"position": i, "labels": {"joy": 1}} for i in range(len(page["items"]))]
            project.submit(annotator, page["page"], answers)

    threads = [threading.Thread(target=work, args=(a,)) for a in annotators]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    answers = pd.DataFrame([(a.annotator, a.item) for a in project.state.answers], columns=["annotator", "item"])
    assert not answers.duplicated().any()
    assert (answers["item"].value_counts() == 3).all() and answers["item"].nunique() == 24  # no extra: 3 joy votes


def test_an_expired_reservation_goes_back_to_the_pool(tmp_path):
    project, _, clock = make(tmp_path, "goemotions", n=10, gold={})
    first, second, third, fourth = (project.annotator_for(project.invite(n)) for n in "abcd")
    held = project.next_page(first, "emotions")
    for annotator in (second, third):
        page = project.next_page(annotator, "emotions")
        project.submit(annotator, page["page"], [{"position": i, "labels": {"joy": 1}} for i in range(10)])
    assert project.next_page(fourth, "emotions") is None  # 2 answered + 1 held = 3 per item
    clock.now += 31 * 60
    assert len(project.next_page(fourth, "emotions")["items"]) == 10
    with pytest.raises(CollectionError, match="expired"):
        project.submit(first, held["page"], [{"position": i, "labels": {"joy": 1}} for i in range(10)])


def test_a_reopened_project_has_the_same_state(tmp_path):
    project, _, clock = make(tmp_path)
    annotator = passed(project, "a")
    for seconds in (20, 5, 5, 5):
        answer_page(project, annotator, clock, seconds)
    again = Project(EventLog.open(tmp_path / "p.sqlite"), clock)
    assert (
        again.me(again.state.annotators["a"]) == project.me(annotator) and project.me(annotator)["status"] == "banned"
    )
    assert again.state.answers == project.state.answers
    with pytest.raises(Exception, match="append-only"):
        again.log._connection.execute("DELETE FROM events")


# -- stages and the export ----------------------------------------------------------------------------------------


def crowd(tmp_path: Path):
    """Stage 1 of EmoBench-UA answered by 6 annotators; items t0-t9 hold fear, t10-t14 another emotion (the
    other choice), the rest nothing."""
    project, _, clock = make(tmp_path, n=20)
    for k in range(6):
        annotator = passed(project, f"a{k}")
        while (page := project.next_page(annotator, FIRST)) is not None:
            clock.now += 30
            texts = [item["text"] for item in page["items"]]
            answers = []
            for i, text in enumerate(texts):
                number = -1 if text.startswith("control") else int(text.split()[-1])
                fear, other = number < 10, 10 <= number < 15
                wrong = k == 5 and i == 0
                chosen = {"labels": {"fear": 2}} if fear != wrong else {"other": True} if other else {"none": True}
                answers.append({"position": i, **chosen})
            project.submit(annotator, page["page"], answers)
    return project, clock


@pytest.mark.slow
def test_stage_two_receives_what_the_offline_aggregation_of_the_export_says(tmp_path):
    from affectlab.collection.export import export_project

    project, _ = crowd(tmp_path)
    opened = open_stage(project, SECOND)
    export_project(project, tmp_path / "export")
    folder = tmp_path / "export"  # what the manifest's offline command runs
    ratings = RatingsSource(folder / f"answers-{FIRST}.csv", value_col="value", binarize_values=True)
    offline = aggregate_ratings(ratings, "dawid-skene", 0.9, controls=folder / "controls.csv")
    not_none = {row.item for row in offline.items.itertuples() if row.labels and not row.item.startswith("c")}
    assert set(project.state.stage_items[SECOND]) == not_none and opened["items"] == 15  # fear, and other emotions
    labels = pd.read_csv(tmp_path / "export" / "labels.csv")
    assert len(labels) == 20 - 15  # the fifteen with fear or another emotion wait for stage 2; the rest: none
    assert set(labels["labels"]) == {"none"}


@pytest.mark.slow
def test_the_export_holds_pseudonyms_not_names_and_refuses_a_folder_with_files(tmp_path):
    from affectlab.collection.export import export_project

    project, _ = crowd(tmp_path)
    manifest = export_project(project, tmp_path / "export")
    text = "".join(path.read_text(encoding="utf-8") for path in (tmp_path / "export").glob("answers-*.csv"))
    assert "annotator-001" in text and ",a0," not in text
    assert manifest["finished_items"] == 5 and "--controls controls.csv" in manifest["offline"][FIRST]
    with pytest.raises(InputError, match="not an empty folder"):
        export_project(project, tmp_path / "export")


# -- answers and agreement ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"labels": {"fear": 2}, "none": True}, "takes no labels"),
        ({"labels": {"fear": None}}, "intensity from 1 to 3"),
        ({"labels": {"fear": 4}}, "intensity from 1 to 3"),
        ({"labels": {"joy": 1}}, "not a label of this stage"),
        ({"labels": {}}, "choose a label"),
        ({"skip": True, "none": True}, "not both"),
    ],
)
def test_bad_answers_are_refused_in_one_line(tmp_path, answer, message):
    project, _, _ = make(tmp_path)
    annotator = passed(project, "a")
    page = project.next_page(annotator, FIRST)
    answers = [{"position": i, "labels": {"fear": 1}} for i in range(len(page["items"]))]
    answers[0] = {"position": 0, **answer}
    with pytest.raises(InputError, match=message):
        project.submit(annotator, page["page"], answers)


def test_split_half_class_match_is_100_when_annotators_agree_and_lower_when_they_split():
    rows = [(f"i{i}", f"a{a}", "joy", float(i % 2)) for i in range(10) for a in range(4)]
    agreeing = read_long(pd.DataFrame(rows, columns=["item", "annotator", "label", "value"]), value_col="value")
    assert split_half_class_match(agreeing, trials=50)["overall"] == 100.0
    rows = [(f"i{i}", f"a{a}", "joy", float(a % 2)) for i in range(10) for a in range(4)]
    split = read_long(pd.DataFrame(rows, columns=["item", "annotator", "label", "value"]), value_col="value")
    assert split_half_class_match(split, trials=200)["joy"] < 100.0


@pytest.mark.slow
def test_the_two_stages_merge_as_emobench_ua_says_and_relabel_recomputes_the_export(tmp_path):
    from affectlab.collection.export import export_project
    from affectlab.collection.jobs import relabel_export

    project, clock = crowd(tmp_path)
    open_stage(project, SECOND)
    joyful = {*range(5), 10, 11, 12}
    for k in range(5):
        annotator = passed(project, f"a{k}", SECOND)
        while (page := project.next_page(annotator, SECOND)) is not None:
            clock.now += 30
            numbers = [int(item["text"].split()[-1]) for item in page["items"] if item["text"].startswith("text")]
            assert all(number < 15 for number in numbers)  # only texts with a first-stage emotion or other come
            answers = [{"position": i, "labels": {"joy": 1}, "none": False} if item["text"].startswith("text")
                       and int(item["text"].split()[-1]) in joyful else {"position": i, "none": True}
                       for i, item in enumerate(page["items"])]  # fmt: skip
            project.submit(annotator, page["page"], answers)
    export_project(project, tmp_path / "export")
    labels = pd.read_csv(tmp_path / "export" / "labels.csv", dtype=str).set_index("id")["labels"]
    assert all(labels[f"t{i}"] == "fear,joy" for i in range(5))  # (i) labels in both projects
    assert all(labels[f"t{i}"] == "fear" for i in range(5, 10))  # (ii) labels in the first only
    assert all(labels[f"t{i}"] == "joy" for i in (10, 11, 12))  # (iii) other in the first, labels in the second
    assert all(labels[f"t{i}"] == "none" for i in (13, 14, *range(15, 20)))  # (iv) none or other in both
    assert (tmp_path / "export" / "unasked.csv").read_text(encoding="utf-8").startswith("id,text,labels,unasked")
    assert pd.read_csv(tmp_path / "export" / "unasked.csv").empty  # the not-none gate leaves no label unasked
    again = relabel_export(tmp_path / "export")
    from affectlab.collection.export import csv_bytes

    assert csv_bytes(again.labels) == (tmp_path / "export" / "labels.csv").read_bytes()


def test_a_new_project_never_takes_the_events_of_a_deleted_one_of_the_same_name(tmp_path):
    project, _, _ = make(tmp_path)
    passed(project, "a")
    assert (tmp_path / "p.sqlite-wal").exists()  # the open project's write-ahead log
    (tmp_path / "p.sqlite").unlink()  # deleted without its -wal and -shm, as `rm p.sqlite` does
    again, _, _ = make(tmp_path)
    assert again.state.annotators == {} and again.state.answers == []


def test_an_expired_invite_is_listed_as_expired_not_active(tmp_path):
    project, _, clock = make(tmp_path)
    project.invite("short", expires="1h")
    project.invite("long", expires="14d")
    clock.now += 2 * 3600
    statuses = {row["name"]: row["status"] for row in annotator_records(project)}
    assert statuses == {"short": "expired", "long": "active"}


def test_an_exam_is_taken_at_most_its_attempts_in_a_row(tmp_path):
    project, _, _ = make(tmp_path)
    annotator = project.annotator_for(project.invite("unlucky"))
    project.training(annotator, FIRST)
    wrong = [{"position": i, "labels": {}, "none": True} for i in range(len(project.stages[FIRST].exam.examples))]
    results = [project.take_exam(annotator, FIRST, wrong)["passed"] for _ in range(3)]
    with pytest.raises(CollectionError, match="was failed 3 times") as refused:
        project.take_exam(annotator, FIRST, wrong)
    assert results == [False] * 3 and refused.value.status == 403
