"""Crowd annotation: readers, agreement statistics on textbook cases, aggregation, comparison with released labels."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from affectlab.annotation import (
    METHODS,
    STATISTICS,
    UndefinedStatisticError,
    aggregate,
    agreement_report,
    binarize,
    bootstrap,
    compare,
    fleiss_kappa,
    interrater_correlation,
    krippendorff_alpha,
    mean_pairwise_cohen_kappa,
    read_controls,
    read_long,
    read_wide,
)
from affectlab.annotation.comparison import describe_left_out
from affectlab.errors import InputError

N = np.nan

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C: 4 coders x 12 units, nominal,
# with missing values; transposed here to units x coders.
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
        [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
    ]
).T

# Wikipedia, "Fleiss' kappa", worked example: 10 items, 14 raters, 5 categories (raters per category), kappa 0.210.
FLEISS_WIKIPEDIA = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]

WIDE_HEADER = "text_id,text,emotion,Annotator-1,Annotator-2,Annotator-3\n"


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def _ratings_from_counts(counts: list[list[int]]) -> np.ndarray:
    """Units x raters values from units x categories counts (category k becomes value k)."""
    return np.array([np.repeat(np.arange(len(row)), row) for row in counts], dtype=float)


def _long(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item", "annotator", "label", "value"])


# --- agreement statistics on hand-checked cases ---


def test_krippendorff_alpha_reproduces_the_2011_nominal_example() -> None:
    assert krippendorff_alpha(KRIPPENDORFF_2011, "nominal") == pytest.approx(0.743, abs=5e-4)


def test_krippendorff_alpha_levels_of_the_2011_example() -> None:
    assert krippendorff_alpha(KRIPPENDORFF_2011, "ordinal") == pytest.approx(0.815, abs=5e-4)
    assert krippendorff_alpha(KRIPPENDORFF_2011, "interval") == pytest.approx(0.849, abs=5e-4)


def test_fleiss_kappa_reproduces_the_wikipedia_example() -> None:
    assert fleiss_kappa(_ratings_from_counts(FLEISS_WIKIPEDIA)) == pytest.approx(0.210, abs=5e-4)


def test_fleiss_kappa_with_a_varying_number_of_raters_by_hand() -> None:
    ratings = np.array([[1, 1, 1], [1, 0, N], [0, 0, N], [0, N, N], [N, N, N]])
    # P_a over the units rated twice: (1 + 0 + 1) / 3; pi over the units rated at all: pi_1 = (1 + .5 + 0 + 0) / 4
    pi_1 = 1.5 / 4
    chance = pi_1**2 + (1 - pi_1) ** 2
    assert fleiss_kappa(ratings) == pytest.approx((2 / 3 - chance) / (1 - chance))


def test_fleiss_kappa_matches_gwets_irrcac_on_the_krippendorff_data() -> None:
    # irrCAC's cac.raw4raters are these ratings; fleiss.kappa.raw gives pa 0.8181818, pe 0.2387153, kappa 0.76117
    assert fleiss_kappa(KRIPPENDORFF_2011) == pytest.approx(0.76117, abs=5e-6)


def test_cohen_kappa_of_two_raters_by_hand() -> None:
    # 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: p_o = 0.7, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa = 0.4
    a = [1] * 25 + [0] * 25
    b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    assert mean_pairwise_cohen_kappa(np.column_stack([a, b])) == pytest.approx(0.4)


def test_mean_pairwise_cohen_kappa_averages_the_pairs() -> None:
    a = [1] * 25 + [0] * 25
    b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    # pairs (a, b) 0.4, (a, a') 1.0, (b, a') 0.4
    assert mean_pairwise_cohen_kappa(np.column_stack([a, b, a])) == pytest.approx(0.6)


def test_cohen_kappa_is_quadratic_weighted_for_ordinal_ratings() -> None:
    # confusion (0,0) (1,2) (2,2): sum w*O = 1, sum w*E = 5 with w = (i - j)^2, so kappa = 1 - 1/5
    ratings = np.array([[0, 0], [1, 2], [2, 2]], dtype=float)
    assert mean_pairwise_cohen_kappa(ratings, "ordinal") == pytest.approx(0.8)
    assert mean_pairwise_cohen_kappa(ratings, "nominal") == pytest.approx(0.5)


def test_interrater_correlation_by_hand() -> None:
    ratings = np.array([[0, 0, 1], [1, 1, 0], [2, 3, 2], [3, 2, 3]], dtype=float)
    # Pearson of the mid-ranks, rater vs mean of the others: rater 1 (0 1 2 3) vs (.5 .5 2.5 2.5) gives
    # 4 / sqrt(5 * 4); rater 2 (0 1 3 2) vs (.5 .5 2 3) and rater 3 (1 0 2 3) vs (0 1 2.5 2.5) give 3.5 / sqrt(5 * 4.5)
    expected = (4 / np.sqrt(20) + 2 * 3.5 / np.sqrt(22.5)) / 3
    assert interrater_correlation(ratings) == pytest.approx(expected)


def test_interrater_correlation_uses_only_units_rated_by_the_rater_and_another() -> None:
    ratings = np.array([[0, 0], [1, 1], [2, 3], [3, 2], [N, 5], [4, N]], dtype=float)
    # the last two units have one rating each; on the first four, rho = 1 - 6 * 2 / (4 * 15) for both raters
    assert interrater_correlation(ratings) == pytest.approx(0.8)


def test_alpha_and_cohen_kappa_skip_units_with_a_single_rating() -> None:
    extra = np.vstack([KRIPPENDORFF_2011, [[7, N, N, N]] * 3])
    assert krippendorff_alpha(extra) == pytest.approx(krippendorff_alpha(KRIPPENDORFF_2011))
    assert mean_pairwise_cohen_kappa(extra) == pytest.approx(mean_pairwise_cohen_kappa(KRIPPENDORFF_2011))


def test_identical_ratings_make_the_chance_corrected_statistics_undefined() -> None:
    same = np.ones((5, 3))
    for statistic in (krippendorff_alpha, fleiss_kappa, mean_pairwise_cohen_kappa, interrater_correlation):
        with pytest.raises(UndefinedStatisticError, match=r"identical|one category|more than one value|varying"):
            statistic(same)


def test_a_single_annotator_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="at least 2 annotators; found 1"):
        krippendorff_alpha(np.array([[1.0, N], [0.0, N]]))


def test_non_numeric_ratings_are_an_error() -> None:
    with pytest.raises(InputError, match="must be numbers"):
        fleiss_kappa([["a", "b"], ["a", "a"]])


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_bootstrap_sums_at_weight_one_give_the_library_values(level: str) -> None:
    rng = np.random.default_rng(1)
    ratings = rng.integers(0, 4, size=(60, 4)).astype(float)
    ratings[rng.random(ratings.shape) < 0.25] = N
    ratings[:, 1] = np.where(rng.random(60) < 0.7, ratings[:, 0], ratings[:, 1])  # some agreement
    tables = bootstrap.sum_tables(ratings, np.arange(60), 60, level)
    got = {name: float(table.statistic(np.ones((1, 60)))[0]) for name, table in tables.items()}
    assert got["krippendorff_alpha"] == pytest.approx(krippendorff_alpha(ratings, level))
    assert got["fleiss_kappa"] == pytest.approx(fleiss_kappa(ratings))
    assert got["cohen_kappa_mean"] == pytest.approx(mean_pairwise_cohen_kappa(ratings, level))
    assert got["interrater_correlation"] == pytest.approx(interrater_correlation(ratings))


# --- readers ---


def test_read_wide_treats_empty_cells_as_missing_not_zero(tmp_path: Path) -> None:
    path = _write(tmp_path, "r.csv", WIDE_HEADER + "1,A text,Joy,1,,0\n1,A text,Sad,0,0,0\n")
    annotations = read_wide(path, item_col="text_id", label_col="emotion", text_col="text")
    assert len(annotations.frame) == 5
    assert np.isnan(annotations.matrix("Joy").loc["1", "Annotator-2"])
    assert annotations.texts == {"1": "A text"}
    assert annotations.labels == ("Joy", "Sad")
    assert annotations.level == "nominal"


def test_read_wide_infers_ordinal_for_intensities_and_binarize_makes_presence(tmp_path: Path) -> None:
    path = _write(tmp_path, "r.csv", WIDE_HEADER + "1,t,Joy,2,0,3\n2,u,Joy,0,1,0\n")
    annotations = read_wide(path, item_col="text_id", label_col="emotion")
    assert annotations.level == "ordinal"
    binary = binarize(annotations)
    assert binary.level == "nominal"
    assert binary.matrix("Joy").to_numpy().tolist() == [[1, 0, 1], [0, 1, 0]]


def test_read_long_presence_rows_count_absent_labels_as_zero() -> None:
    rows = pd.DataFrame(
        {"item": ["a", "a", "a", "b"], "annotator": ["x", "y", "y", "x"], "label": ["joy", "joy", "fear", ""]}
    )
    annotations = read_long(rows, labels=["joy", "fear", "anger"])
    matrix = annotations.matrix()
    assert matrix.loc[("a", "fear")].tolist() == [0.0, 1.0]
    assert matrix.loc[("a", "anger")].tolist() == [0.0, 0.0]
    assert matrix.loc[("b", "joy"), "x"] == 0.0  # x saw b and chose no label
    assert np.isnan(matrix.loc[("b", "joy"), "y"])  # y never saw b


def test_read_long_with_values_keeps_unrated_questions_missing(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "r.jsonl",
        '{"item": 1, "annotator": "x", "label": "joy", "score": 2}\n'
        '{"item": 1, "annotator": "y", "label": "joy", "score": null}\n'
        '{"item": 1, "annotator": "y", "label": "sad", "score": 0}\n',
    )
    annotations = read_long(path, value_col="score")
    assert annotations.items == ["1"]
    assert len(annotations.frame) == 2
    assert annotations.level == "ordinal"


def test_read_long_reads_tsv(tmp_path: Path) -> None:
    path = _write(tmp_path, "r.tsv", "item\tannotator\tlabel\nt1\tx\tjoy\nt1\ty\tsad\n")
    assert read_long(path).matrix().shape == (2, 2)


@pytest.mark.parametrize(
    ("content", "kwargs", "message"),
    [
        ("id,emotion,Annotator-1\n1,Joy,1\n", {}, r"no column 'text_id' \(columns: id, emotion, Annotator-1\)"),
        ("text_id,emotion,rater\n1,Joy,1\n", {}, "no column starting with 'Annotator'"),
        ("text_id,emotion,Annotator-1\n1,Joy,1\n", {"annotator_cols": ["R9"]}, "no column 'R9'"),
        ("text_id,emotion,Annotator-1\n1,Happy,1\n", {"labels": ["Joy"]}, "'Happy' is not among the declared"),
        ("text_id,emotion,Annotator-1,Annotator-2\n1,Joy,,\n2,Joy,1,0\n", {}, "item '1' has no rating at all"),
        ("text_id,emotion,Annotator-1\n1,Joy,high\n", {}, "data row 1: 'high' in column 'Annotator-1' is not a number"),
        ("text_id,emotion,Annotator-1\n1,Joy,1\n1,Joy,0\n", {}, "item '1' has a second 'Joy' row"),
        ("text_id,emotion,Annotator-1\n1,,1\n", {}, "column 'emotion' is empty"),
        ("text_id,emotion,Annotator-1\n", {}, "has no rows"),
    ],
)
def test_read_wide_rejects_bad_input_with_one_clear_line(
    tmp_path: Path, content: str, kwargs: dict, message: str
) -> None:
    path = _write(tmp_path, "r.csv", content)
    with pytest.raises(InputError, match=message) as caught:
        read_wide(path, item_col="text_id", label_col="emotion", **kwargs)
    assert "\n" not in str(caught.value)


def test_read_long_names_a_missing_annotator_column_and_an_undeclared_label() -> None:
    rows = pd.DataFrame({"item": ["a"], "who": ["x"], "label": ["joy"]})
    with pytest.raises(InputError, match=r"no annotator column \(none of annotator, .*columns: item, who, label\)"):
        read_long(rows)
    with pytest.raises(InputError, match=r"label 'joy' is not among the declared labels \(fear\)"):
        read_long(rows, annotator_col="who", labels=["fear"])


def test_columns_not_named_are_found_by_their_common_names_in_any_case() -> None:
    rows = pd.DataFrame({"Item_ID": ["a", "a"], "Rater": ["x", "y"], "Emotion": ["joy", "joy"]})
    ratings = read_long(rows)
    assert ratings.annotators == ["x", "y"] and ratings.labels == ("joy",) and ratings.items == ["a"]


def test_a_named_column_that_is_missing_suggests_the_likely_one() -> None:
    rows = pd.DataFrame({"text_id": ["1"], "emotion": ["joy"], "Annotator-1": [1], "Annotator-2": [0]})
    with pytest.raises(InputError, match=r"no column 'item' .*; did you mean --item-col text_id\?$"):
        read_wide(rows, item_col="item")


def test_a_non_utf8_file_is_rejected(tmp_path: Path) -> None:
    path = _write(tmp_path, "r.csv", (WIDE_HEADER + "1,Привіт,Joy,1,0,0\n").encode("cp1251"))
    with pytest.raises(InputError, match="not UTF-8"):
        read_wide(path, item_col="text_id", label_col="emotion")


def test_read_long_rejects_a_rating_given_twice() -> None:
    rows = _long([("a", "x", "joy", 1), ("a", "x", "joy", 0)])
    with pytest.raises(InputError, match="annotator 'x' rated 'joy' of item 'a' twice"):
        read_long(rows, value_col="value")


def test_missing_optional_packages_give_an_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "crowdkit", None)
    monkeypatch.setitem(sys.modules, "krippendorff", None)
    annotations = read_long(_two_adversaries(), value_col="value")
    with pytest.raises(InputError, match=r"install affectlab\[annotate\]"):
        aggregate(annotations)
    with pytest.raises(InputError, match=r"install affectlab\[annotate\]"):
        krippendorff_alpha(KRIPPENDORFF_2011)


def test_a_file_with_one_annotator_reads_but_has_no_agreement(tmp_path: Path) -> None:
    path = _write(tmp_path, "r.csv", "text_id,emotion,Annotator-1\n1,Joy,1\n2,Joy,0\n")
    annotations = read_wide(path, item_col="text_id", label_col="emotion")
    assert annotations.annotators == ["Annotator-1"]
    with pytest.raises(InputError, match="at least 2 annotators"):
        agreement_report(annotations)


# --- agreement report ---


def _small_annotations() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for item in range(40):
        for label in ("joy", "fear"):
            truth = rng.random() < 0.4
            for annotator in "xyz":
                rows.append((f"t{item}", annotator, label, float(truth if rng.random() < 0.85 else not truth)))
    return _long(rows)


def test_agreement_report_has_one_schema_and_intervals_around_the_estimate() -> None:
    annotations = read_long(_small_annotations(), value_col="value")
    report = agreement_report(annotations, n_bootstrap=200, seed=0)
    assert set(report) == {"overall", "per_label"}
    assert set(report["per_label"]) == {"fear", "joy"}
    overall = report["overall"]
    assert overall["n_items"] == 40 and overall["n_units"] == 80 and overall["n_annotators"] == 3
    for name in STATISTICS:
        low, high = overall[f"{name}_ci95"]
        assert low <= overall[name] <= high
    assert overall["krippendorff_alpha"] == pytest.approx(krippendorff_alpha(annotations.matrix()))
    json.dumps(report)  # JSON-ready: no numpy scalars
    assert agreement_report(annotations, n_bootstrap=200, seed=0) == report


def test_agreement_report_gives_none_with_a_reason_for_an_undefined_statistic() -> None:
    rows = [(f"t{i}", a, "joy", 1.0) for i in range(5) for a in "xy"]
    rows += [(f"t{i}", a, "fear", float(i % 2 == 0 or a == "x")) for i in range(5) for a in "xy"]
    report = agreement_report(read_long(_long(rows), value_col="value"), n_bootstrap=50)
    joy = report["per_label"]["joy"]
    assert joy["krippendorff_alpha"] is None and joy["krippendorff_alpha_ci95"] is None
    assert "identical" in joy["undefined"]["krippendorff_alpha"]
    assert report["per_label"]["fear"]["krippendorff_alpha"] is not None


# --- aggregation ---


def test_majority_vote_confidence_is_the_share_agreeing_and_items_pass_on_every_label() -> None:
    rows = _long(
        [
            ("a", "x", "joy", 1), ("a", "y", "joy", 1), ("a", "z", "joy", 0),
            ("a", "x", "sad", 0), ("a", "y", "sad", 0), ("a", "z", "sad", 0),
            ("b", "x", "joy", 0), ("b", "y", "joy", 0), ("b", "z", "joy", 0),
            ("b", "x", "sad", 1), ("b", "y", "sad", 1), ("b", "z", "sad", 1),
        ]
    )  # fmt: skip
    result = aggregate(read_long(rows, value_col="value"), "majority", min_confidence=0.9)
    assert result.questions["confidence"].tolist() == pytest.approx([2 / 3, 1, 1, 1])
    assert result.items["labels"].tolist() == [("joy",), ("sad",)]
    assert result.items["passes"].tolist() == [False, True]
    assert result.share_passing == 0.5


def _two_adversaries() -> pd.DataFrame:
    """Three annotators give the truth, two always the opposite: majority is right with 3/5 of the votes."""
    rows = []
    for i in range(20):
        truth = float(i % 2)
        rows += [(f"t{i}", a, "joy", truth) for a in "abc"] + [(f"t{i}", a, "joy", 1 - truth) for a in "de"]
    return _long(rows)


def test_dawid_skene_is_confident_where_majority_vote_is_not() -> None:
    annotations = read_long(_two_adversaries(), value_col="value")
    majority = aggregate(annotations, "majority", min_confidence=0.9)
    dawid_skene = aggregate(annotations, "dawid-skene", min_confidence=0.9)
    truth = [float(i % 2) for i in range(20)]
    assert majority.questions["value"].tolist() == truth == dawid_skene.questions["value"].tolist()
    assert majority.questions["confidence"].tolist() == pytest.approx([0.6] * 20)
    assert (dawid_skene.questions["confidence"] > 0.99).all()
    assert majority.share_passing == 0.0 and dawid_skene.share_passing == 1.0


def _three_adversaries() -> pd.DataFrame:
    """Two annotators give the truth, three always the opposite: every vote is 3 to 2 for the wrong value."""
    rows = []
    for i in range(20):
        truth = float(i % 2)
        rows += [(f"t{i}", a, "joy", truth) for a in "ab"] + [(f"t{i}", a, "joy", 1 - truth) for a in "cde"]
    return _long(rows)


def test_dawid_skene_with_control_answers_finds_a_crowd_whose_majority_is_wrong() -> None:
    annotations = read_long(_three_adversaries(), value_col="value")
    truth = [float(i % 2) for i in range(20)]
    without = aggregate(annotations, "dawid-skene")
    assert without.questions["value"].tolist() == [1 - t for t in truth]
    controls = {(f"t{i}", "joy"): truth[i] for i in range(4)}
    held = aggregate(annotations, "dawid-skene", controls=controls)
    assert held.questions["value"].tolist() == truth
    assert held.n_controls == 4
    assert held.questions["confidence"].iloc[:4].tolist() == [1.0] * 4


def test_control_answers_are_checked() -> None:
    annotations = read_long(_two_adversaries(), value_col="value")
    with pytest.raises(InputError, match="dawid-skene only, not majority"):
        aggregate(annotations, "majority", controls={("t0", "joy"): 0.0})
    with pytest.raises(InputError, match="control item 't99' has no ratings for label 'joy'"):
        aggregate(annotations, "dawid-skene", controls={("t99", "joy"): 0.0})
    with pytest.raises(InputError, match="'yes' is not a number"):
        aggregate(annotations, "dawid-skene", controls={("t0", "joy"): "yes"})


def test_read_controls_reads_item_label_value_rows(tmp_path: Path) -> None:
    path = tmp_path / "controls.csv"
    path.write_text("item_id,emotion,value\nt0,joy,0\nt1,joy,1\n", encoding="utf-8")
    assert read_controls(path) == {("t0", "joy"): 0.0, ("t1", "joy"): 1.0}
    path.write_text("item,label,value\nt0,joy,0\nt0,joy,1\n", encoding="utf-8")
    with pytest.raises(InputError, match="control item 't0', label 'joy' is given twice"):
        read_controls(path)
    path.write_text("item,label,value\nt0,joy,\n", encoding="utf-8")
    with pytest.raises(InputError, match="data row 1: a control question has no value"):
        read_controls(path)
    path.write_text("item,label\nt0,joy\n", encoding="utf-8")
    with pytest.raises(InputError, match="no column 'value'"):
        read_controls(path)


def test_votes_and_brighters_rule_count_the_annotators() -> None:
    rows = [("t1", "a", "joy", 2), ("t1", "b", "joy", 1), ("t1", "c", "joy", 0),
            ("t2", "a", "joy", 1), ("t2", "b", "joy", 0), ("t2", "c", "joy", 0),
            ("t3", "a", "joy", 3), ("t3", "b", "joy", 3), ("t3", "c", "joy", 2),
            ("t4", "a", "joy", 1), ("t4", "b", "joy", 1), ("t4", "c", "joy", 0), ("t4", "d", "joy", 0),
            ("t4", "e", "joy", 0)]  # fmt: skip
    annotations = read_long(_long(rows), value_col="value")
    brighter = aggregate(annotations, "brighter").questions
    # t1: two votes, mean 1.0 > 0.5, intensity ceil(1.5); t2: one vote; t3: ceil(8/3); t4: two votes, mean 0.4
    assert brighter["value"].tolist() == [2.0, 0.0, 3.0, 0.0]
    assert brighter["confidence"].tolist() == pytest.approx([2 / 3, 2 / 3, 1.0, 3 / 5])
    votes = aggregate(annotations, "votes").questions
    assert votes["value"].tolist() == [1.0, 0.0, 1.0, 1.0]
    assert aggregate(annotations, "votes", min_votes=3).questions["value"].tolist() == [0.0, 0.0, 1.0, 0.0]
    with pytest.raises(InputError, match="min_votes must be at least 1"):
        aggregate(annotations, "votes", min_votes=0)


QUICK_OPTIONS = {"glad": {"n_iter": 5}, "mace": {"n_restarts": 1, "n_iter": 5}}


@pytest.mark.slow
@pytest.mark.parametrize("method", [m for m in METHODS if m != "votes"])  # two adversaries are two votes
def test_every_method_recovers_the_truth_with_probabilities(method: str) -> None:
    annotations = read_long(_two_adversaries(), value_col="value")
    result = aggregate(annotations, method, model_options=QUICK_OPTIONS.get(method))
    assert result.questions["value"].tolist() == [float(i % 2) for i in range(20)]
    assert result.questions["confidence"].between(0.5, 1.0).all()


def test_pooled_aggregation_gives_one_row_per_question() -> None:
    annotations = read_long(_small_annotations(), value_col="value")
    result = aggregate(annotations, "dawid-skene", per_label=False)
    assert len(result.questions) == 80
    assert list(result.wide().columns) == ["fear", "joy"]


def test_aggregate_rejects_unknown_methods_and_options() -> None:
    annotations = read_long(_two_adversaries(), value_col="value")
    with pytest.raises(InputError, match="unknown aggregation method 'vote'"):
        aggregate(annotations, "vote")
    with pytest.raises(InputError, match="min_confidence"):
        aggregate(annotations, min_confidence=1.5)
    with pytest.raises(InputError, match="unexpected keyword"):
        aggregate(annotations, "glad", model_options={"bogus": 1})


# --- comparison with released labels ---


def _aggregated_with_texts():
    rows = pd.DataFrame(
        {
            "text_id": ["0", "0", "1", "1", "2", "2"],
            "text": ["Я  радий ", "Я  радий ", "Мені сумно", "Мені сумно", "Той самий", "Той самий"],
            "emotion": ["Joy", "Sad"] * 3,
            "Annotator-1": [1, 0, 0, 1, 1, 0],
            "Annotator-2": [1, 0, 0, 1, 0, 0],
        }
    )
    annotations = read_wide(rows, item_col="text_id", label_col="emotion", text_col="text")
    return aggregate(annotations, "majority", min_confidence=0.9)


def test_compare_joins_on_normalised_text_and_maps_sad_to_sadness() -> None:
    gold = pd.DataFrame(
        {
            "id": ["ukr_1", "ukr_2", "ukr_3", "ukr_4"],
            "text": ["Я радий", "Мені  сумно", "Той самий", "Той самий"],
            "joy": [1, 0, 0, 1],
            "sadness": [0, 0, 0, 0],
        }
    )
    result = compare(_aggregated_with_texts(), gold)
    assert result["joined_on"] == "text"
    assert result["n_matched"] == 2 and result["n_ambiguous"] == 1  # "Той самий" twice in gold
    assert result["per_label"]["Joy"] == {
        "gold_label": "joy", "n": 2, "accuracy": 1.0, "f1": 1.0, "cohen_kappa": pytest.approx(1.0)
    }  # fmt: skip
    assert result["per_label"]["Sad"]["accuracy"] == 0.5
    assert result["per_label"]["Sad"]["cohen_kappa"] == pytest.approx(0.0)
    assert result["exact_match"] == 0.5


def test_compare_joins_on_ids_when_they_match_and_can_keep_only_passing_items() -> None:
    gold = pd.DataFrame({"id": ["0", "1", "2"], "text": ["x", "y", "z"], "Joy": [1, 0, 0], "Sad": [0, 1, 0]})
    result = compare(_aggregated_with_texts(), gold, only_passing=True)
    assert result["joined_on"] == "id"
    assert result["n_items"] == 2 and result["n_matched"] == 2
    assert result["exact_match"] == 1.0


def test_compare_says_why_each_item_left_out_was_left_out() -> None:
    rows = pd.DataFrame(
        {
            "text_id": ["0", "1", "2", "3", "4", "5"],
            "text": ["Я радий", "Мені сумно", "Той самий", "Нема в gold", "Двічі", "Двічі"],
            "emotion": ["Joy"] * 6,
            "Annotator-1": [1, 0, 0, 1, 1, 0],
        }
    )
    aggregation = aggregate(read_wide(rows, item_col="text_id", label_col="emotion", text_col="text"), "majority")
    gold = pd.DataFrame(
        {"text": ["Я радий", "Мені сумно", "Той самий", "Той самий", "Двічі"], "joy": [1, 0, 0, 1, 1]}
    )  # fmt: skip
    result = compare(aggregation, gold)
    assert result["n_items"] == 6 and result["n_matched"] == 2
    assert result["left_out"] == {"not_in_gold": 1, "repeated_in_aggregation": 2, "repeated_in_gold": 1, "no_key": 0}
    assert describe_left_out(result) == (
        "left out: 1 whose text is in no gold row, 2 whose text is shared by several aggregated items, "
        "1 whose text is in several gold rows"
    )


def test_compare_rejects_empty_gold_labels() -> None:
    gold = pd.DataFrame({"id": ["0", "1"], "text": ["x", "y"], "joy": [1, None], "sadness": [0, 0]})
    with pytest.raises(InputError, match="gold data row 2: column 'joy' is empty"):
        compare(_aggregated_with_texts(), gold)


def test_compare_names_a_label_without_a_gold_column() -> None:
    gold = pd.DataFrame({"id": ["0"], "text": ["x"], "joy": [1]})
    with pytest.raises(InputError, match="no gold column for label 'Sad'"):
        compare(_aggregated_with_texts(), gold)


# --- the real SemEval-2025 Task 11 per-annotator file ---


@pytest.fixture(scope="module")
def ukr_individuals(data_dir: Path):
    path = data_dir / "semeval2025_task11" / "individual_labels" / "ukr" / "ukr_individuals.csv"
    if not path.is_file():
        pytest.skip("no SemEval-2025 Task 11 per-annotator file in the data directory")
    return read_wide(path, item_col="text_id", label_col="emotion", text_col="text")


def test_ukr_individuals_reads_as_4833_texts_by_3_annotators_on_6_labels(ukr_individuals) -> None:
    assert len(ukr_individuals.items) == 4833
    assert ukr_individuals.annotators == ["Annotator-1", "Annotator-2", "Annotator-3"]
    assert ukr_individuals.labels == ("Anger", "Disgust", "Fear", "Joy", "Sad", "Surprise")
    assert len(ukr_individuals.frame) == 28_998 * 3
    assert ukr_individuals.level == "ordinal"


def test_ukr_individuals_agreement(ukr_individuals) -> None:
    binary = agreement_report(binarize(ukr_individuals), n_bootstrap=100)["overall"]
    assert binary["krippendorff_alpha"] == pytest.approx(0.4588, abs=1e-4)
    assert binary["fleiss_kappa"] == pytest.approx(0.4588, abs=1e-4)
    low, high = binary["krippendorff_alpha_ci95"]
    assert 0.43 < low < binary["krippendorff_alpha"] < high < 0.49
    ordinal = agreement_report(ukr_individuals, n_bootstrap=0)["overall"]
    assert ordinal["krippendorff_alpha"] == pytest.approx(0.4621, abs=1e-4)
    assert ordinal["interrater_correlation"] == pytest.approx(0.5121, abs=1e-4)


def test_ukr_majority_matches_most_emobench_ua_labels(ukr_individuals, data_dir: Path) -> None:
    released = [data_dir / "semeval2025_task11" / "track_a" / split / "ukr.csv" for split in ("train", "dev", "test")]
    result = compare(aggregate(binarize(ukr_individuals), "majority"), released)
    assert result["joined_on"] == "text"
    assert result["n_matched"] > 4200
    assert all(scores["cohen_kappa"] > 0.7 for scores in result["per_label"].values())


def test_read_ratings_guesses_the_layout_from_the_columns_and_names_the_file(tmp_path):
    from affectlab.annotation import guess_layout, read_ratings

    wide = tmp_path / "wide.csv"
    wide.write_text("text_id,emotion,Annotator-1,Annotator-2\n1,Joy,1,0\n1,Sad,0,1\n2,Joy,5,1\n2,Sad,0,0\n")
    with pytest.raises(InputError, match=r"wide\.csv data row 3: rating 5 in column 'Annotator-1'"):
        read_ratings(wide)
    ratings = read_ratings(wide, scale=(0, 5), binarize_values=True)
    assert ratings.labels == ("Joy", "Sad") and set(ratings.frame["value"]) == {0.0, 1.0}
    assert guess_layout(["item", "annotator", "label"]) == "long"
    assert guess_layout(["item", "Annotator-1"], value_col="v") == "long"


def test_every_public_name_of_the_package_is_found_where_it_says():
    import affectlab.annotation as package

    assert sorted(package.__all__) == sorted(package._HOME) == package.__dir__()
    for name in package.__all__:
        assert getattr(package, name) is getattr(importlib.import_module(package._HOME[name]), name)
