"""A released crowd replayed through the service (issue 44): the first texts of SemEval-2025's Ukrainian
per-annotator file, each annotator column a simulated annotator answering its real ratings over HTTP; the export
gives the same ratings, agreement and Dawid-Skene labels as the file read directly."""

from __future__ import annotations

import pandas as pd
import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from affectlab.annotation.aggregation import aggregate
from affectlab.annotation.agreement import agreement_report
from affectlab.annotation.readers import binarize, read_long, read_wide
from affectlab.collection.app import create_app
from affectlab.collection.creation import create_project
from affectlab.collection.crowd import replay_members, replay_protocol_text, work
from affectlab.collection.export import export_project
from affectlab.collection.log import Item


@pytest.mark.slow
def test_the_ukrainian_crowd_replayed_gives_the_same_agreement_and_labels(data_dir, tmp_path):
    table = pd.read_csv(data_dir / "semeval2025_task11/individual_labels/ukr/ukr_individuals.csv")
    table = table[table["text_id"].isin(table["text_id"].drop_duplicates()[:60])]
    source = read_wide(table, "text_id", "emotion", None, "text")
    text = replay_protocol_text("replay-ukr", source.labels, 3, per_item=3)
    project, _ = create_project(str(tmp_path / "p.sqlite"), text, [Item(i, source.texts[i]) for i in source.items], {})
    client = TestClient(create_app(project, rate=1e6, burst=1e6))
    for member in replay_members(source, project.invite):
        work(client, member, "all")
    export_project(project, tmp_path / "export")
    answers = pd.read_csv(tmp_path / "export" / "answers-all.csv", dtype={"item": str}).dropna(subset=["value"])
    back = read_long(answers, value_col="value", labels=source.labels, level=source.level)
    ours, theirs = (agreement_report(a, n_bootstrap=0)["overall"] for a in (back, source))
    for name in ("krippendorff_alpha", "fleiss_kappa", "cohen_kappa_mean", "interrater_correlation"):
        assert ours[name] == pytest.approx(theirs[name], abs=1e-12)
    online = aggregate(binarize(back), "dawid-skene").items.set_index("item")["labels"]
    offline = aggregate(binarize(source), "dawid-skene").items.set_index("item")["labels"]
    assert online.sort_index().equals(offline.sort_index())
