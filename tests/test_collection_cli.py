"""``affectlab annotate create|invite|revoke|open-stage|status|export`` as a user runs them (issue 44)."""

from __future__ import annotations

import csv
import io
import json

import pytest


def test_a_project_made_invited_revoked_and_exported_from_the_command_line(tmp_path, cli):
    protocol, items, project = tmp_path / "p.yaml", tmp_path / "items.csv", tmp_path / "project.sqlite"
    assert cli("annotate", "init", "--preset", "goemotions", "--out", protocol)[0] == 0
    items.write_text("id,text\n" + "".join(f"{i},text {i}\n" for i in range(12)), encoding="utf-8")
    code, out, _ = cli("annotate", "create", project, "--protocol", protocol, "--items", items,
                       "--id-col", "id", "--json")  # fmt: skip
    assert code == 0 and json.loads(out)["items"] == 12 and len(json.loads(out)["owner_token"]) > 30
    code, out, _ = cli("annotate", "invite", project, "Olena", "--json")
    assert code == 0 and json.loads(out)["link"].startswith("http://127.0.0.1:8765/#token=")
    assert cli("annotate", "revoke", project, "Olena")[0] == 0
    code, out, _ = cli("annotate", "status", project, "--json")
    assert json.loads(out)["annotators"][0]["status"] == "revoked"
    code, out, _ = cli("annotate", "export", project, "--out", tmp_path / "export", "--json")
    assert code == 0 and (tmp_path / "export" / "labels.csv").is_file()
    assert "Olena" not in "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "export").iterdir())


def test_bad_input_is_one_line_and_exit_2_with_nothing_written(tmp_path, cli):
    protocol, items = tmp_path / "p.yaml", tmp_path / "items.csv"
    cli("annotate", "init", "--preset", "emobench-ua", "--out", protocol)
    items.write_text("text\nhello there\n", encoding="utf-8")
    cases = [
        ("annotate", "create", tmp_path / "a.sqlite", "--protocol", tmp_path / "none.yaml", "--items", items),
        ("annotate", "create", tmp_path / "a.sqlite", "--protocol", protocol, "--items", items, "--text-col", "x"),
        ("annotate", "invite", tmp_path / "missing.sqlite", "someone"),
        ("annotate", "status", items),
        ("annotate", "revoke", tmp_path / "missing.sqlite", "someone"),
    ]
    for case in cases:
        code, _, err = cli(*case)
        assert code == 2 and len(err.strip().splitlines()) == 1, (case, err)
    assert not (tmp_path / "a.sqlite").exists()
    cli("annotate", "create", tmp_path / "b.sqlite", "--protocol", protocol, "--items", items)
    code, _, err = cli("annotate", "create", tmp_path / "b.sqlite", "--protocol", protocol, "--items", items)
    assert code == 2 and "already exists" in err
    code, _, err = cli("annotate", "open-stage", tmp_path / "b.sqlite", "anger-joy-sadness")
    assert code == 2 and "no item" in err


def test_a_served_project_refuses_a_second_writer_in_one_line(tmp_path, cli):
    from affectlab.collection.jobs import project_for_writing

    protocol, items, project = tmp_path / "p.yaml", tmp_path / "items.csv", tmp_path / "project.sqlite"
    cli("annotate", "init", "--preset", "goemotions", "--out", protocol)
    items.write_text("text\none\ntwo\n", encoding="utf-8")
    cli("annotate", "create", project, "--protocol", protocol, "--items", items)
    with project_for_writing(project):  # as `annotate serve` holds it
        code, _, err = cli("annotate", "invite", project, "Olena")
        assert code == 2 and "being written by another run" in err and len(err.strip().splitlines()) == 1
        assert cli("annotate", "status", project)[0] == 0  # reading is fine
    assert cli("annotate", "invite", project, "Olena")[0] == 0


@pytest.mark.slow
def test_a_simulated_crowd_works_a_project_and_the_export_trains(tmp_path, cli):
    protocol, items, truth, project = (tmp_path / name for name in ("p.yaml", "items.csv", "truth.csv", "p.sqlite"))
    cli("annotate", "init", "--preset", "goemotions", "--out", protocol)
    texts = [f"I am so happy about number {i}" if i % 2 else f"This makes me angry: number {i}" for i in range(60)]
    items.write_text("id,text\n" + "".join(f"{i},{t}\n" for i, t in enumerate(texts)), encoding="utf-8")
    truth.write_text("id,labels\n" + "".join(f"{i},{'joy' if i % 2 else 'anger'}\n" for i in range(60)), "utf-8")
    cli("annotate", "create", project, "--protocol", protocol, "--items", items, "--id-col", "id")
    code, out, _ = cli("annotate", "simulate", project, "--truth", truth, "--crowd", "diligent=5", "--json")
    crowd = json.loads(out)["crowd"]
    assert code == 0 and crowd["diligent"]["members"] == 5 and crowd["diligent"]["pages"] >= 18  # 60 x 3 / 10, + extras
    cli("annotate", "export", project, "--out", tmp_path / "export")
    labels = (tmp_path / "export" / "labels.csv").read_text(encoding="utf-8").splitlines()
    assert labels[0] == "id,text,labels,confidence,passes,split" and len(labels) == 61
    answers = tmp_path / "export" / "answers-emotions.csv"  # read back by the offline commands as it is
    code, out, _ = cli("annotate", "agreement", answers, "--value-col", "value", "--bootstrap", "50", "--json")
    assert code == 0 and json.loads(out)["overall"]["krippendorff_alpha"] > 0.1
    code, _, _ = cli("annotate", "report", answers, "--value-col", "value", "--method", "majority",
                     "--bootstrap", "50", "--out", tmp_path / "report")  # fmt: skip
    assert code == 0 and (tmp_path / "report" / "report.md").is_file()
    code, _, err = cli("annotate", "simulate", project, "--truth", truth, "--crowd", "clicker=2")
    assert code == 2 and "--crowd" in err


def test_a_row_longer_than_its_header_is_refused_not_cut(tmp_path, cli):
    protocol, items = tmp_path / "p.yaml", tmp_path / "items.csv"
    cli("annotate", "init", "--preset", "goemotions", "--out", protocol)
    items.write_text("id,text\n1,I am angry, really angry\n", encoding="utf-8")  # an unquoted comma
    code, _, err = cli("annotate", "create", tmp_path / "p.sqlite", "--protocol", protocol, "--items", items)
    assert code == 2 and "row 1: 3 fields, but the header has 2" in err
    code, _, err = cli("annotate", "select", items, "--protocol", protocol, "--size", "1", "--out",
                       tmp_path / "s.csv")  # fmt: skip
    assert code == 2 and "row 1: 3 fields" in err


def test_status_shows_every_annotators_name_as_typed_and_whole(tmp_path, cli):
    protocol, items, project = tmp_path / "p.yaml", tmp_path / "items.csv", tmp_path / "project.sqlite"
    cli("annotate", "init", "--preset", "goemotions", "--out", protocol)
    items.write_text("text\none\ntwo\n", encoding="utf-8")
    cli("annotate", "create", project, "--protocol", protocol, "--items", items)
    names = ["[/]", "[bold]Olena", "ends with \\", "[link=https://x.example]me[/link]", "Ярослава " + "довге" * 15]
    for name in names:
        assert cli("annotate", "invite", project, name)[0] == 0
    code, out, err = cli("annotate", "status", project)
    assert code == 0 and not err
    first_column = "".join(line.split("│")[1].strip() for line in out.splitlines() if line.count("│") > 2)
    assert "…" not in out and "".join(name.replace(" ", "") for name in names) in first_column.replace(" ", "")


@pytest.mark.slow
def test_a_skipped_answer_is_an_empty_value_in_the_export(tmp_path, cli):
    protocol, items, truth, project = (tmp_path / name for name in ("p.yaml", "items.csv", "truth.csv", "p.sqlite"))
    cli("annotate", "init", "--preset", "goemotions", "--out", protocol)
    protocol.write_text(protocol.read_text(encoding="utf-8").replace("skip: false", "skip: true"), encoding="utf-8")
    items.write_text("id,text\n" + "".join(f"{i},I am so happy about number {i}\n" for i in range(12)), "utf-8")
    truth.write_text("id,labels\n" + "".join(f"{i},joy\n" for i in range(10)), "utf-8")  # 10 and 11: skipped
    cli("annotate", "create", project, "--protocol", protocol, "--items", items, "--id-col", "id")
    assert cli("annotate", "simulate", project, "--truth", truth, "--crowd", "diligent=3")[0] == 0
    cli("annotate", "export", project, "--out", tmp_path / "export")
    text = (tmp_path / "export" / "answers-emotions.csv").read_text(encoding="utf-8")
    skipped = [row for row in csv.DictReader(io.StringIO(text)) if row["item"] in ("10", "11")]
    assert skipped and all(row["value"] == "" and row["skip"] == "1" for row in skipped) and "nan" not in text


def test_settings_that_make_collecting_impossible_are_refused_in_one_line(tmp_path, cli):
    protocol, items, controls = tmp_path / "p.yaml", tmp_path / "items.csv", tmp_path / "controls.csv"
    cli("annotate", "init", "--preset", "emobench-ua", "--out", protocol)
    items.write_text("id,text\n1,Мені сьогодні дуже страшно йти додому\n2,Who let the dogs out today\n", "utf-8")
    controls.write_text("item,label,value\n1,love,1\n", encoding="utf-8")
    project = tmp_path / "p.sqlite"
    cases = [
        (("--reservation", "0s"), "--reservation must hold a page at least 1 minute"),
        (("--controls", controls), "control answers name 'love', which is not a label of the protocol"),
    ]
    for extra, message in cases:
        code, _, err = cli("annotate", "create", project, "--protocol", protocol, "--items", items,
                           "--id-col", "id", *extra)  # fmt: skip
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
        assert not project.exists()
    text = protocol.read_text(encoding="utf-8")
    protocol.write_text(text.replace("  languages: [uk]", "  languages: [ga]", 1), encoding="utf-8")
    code, _, err = cli("annotate", "select", items, "--protocol", protocol, "--size", "1", "--id-col", "id",
                       "--out", tmp_path / "s.csv")  # fmt: skip
    assert code == 2 and "no text of the pool was identified as ga" in err and not (tmp_path / "s.csv").exists()
    (tmp_path / "s.csv").write_text("kept\n", encoding="utf-8")
    code, _, err = cli("annotate", "select", items, "--protocol", protocol, "--size", "1", "--out",
                       tmp_path / "s.csv")  # fmt: skip
    assert code == 2 and "already exists (--force replaces it)" in err
    assert (tmp_path / "s.csv").read_text(encoding="utf-8") == "kept\n"


def test_rotate_owner_prints_a_new_token_once_and_the_old_one_stops_working(tmp_path, cli):
    from affectlab.collection.jobs import open_project

    protocol, items, project = tmp_path / "p.yaml", tmp_path / "items.csv", tmp_path / "project.sqlite"
    cli("annotate", "init", "--preset", "goemotions", "--out", protocol)
    items.write_text("text\none\ntwo\n", encoding="utf-8")
    code, out, _ = cli("annotate", "create", project, "--protocol", protocol, "--items", items, "--json")
    old = json.loads(out)["owner_token"]
    code, out, _ = cli("annotate", "rotate-owner", project, "--json")
    new = json.loads(out)["owner_token"]
    opened = open_project(project)
    assert code == 0 and new != old and opened.is_owner(new) and not opened.is_owner(old)
    code, _, err = cli("annotate", "rotate-owner", tmp_path / "missing.sqlite")
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_simulating_a_crowd_that_would_skip_without_a_skip_choice_is_one_line(tmp_path, cli):
    protocol, items, truth, project = (tmp_path / name for name in ("p.yaml", "items.csv", "truth.csv", "p.sqlite"))
    cli("annotate", "init", "--preset", "goemotions", "--out", protocol)  # no skip
    items.write_text("id,text\n" + "".join(f"{i},I am so happy about number {i}\n" for i in range(6)), "utf-8")
    truth.write_text("id,labels\n" + "".join(f"{i},joy\n" for i in range(5)), "utf-8")  # item 5 not covered
    cli("annotate", "create", project, "--protocol", protocol, "--items", items, "--id-col", "id")
    code, _, err = cli("annotate", "simulate", project, "--truth", truth, "--crowd", "diligent=3")
    assert code == 2 and "--truth has no labels for 1 item of stage" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_the_exports_named_commands_run_as_written_with_skips_and_without_controls(tmp_path, cli, monkeypatch):
    import shlex

    from affectlab.annotation.protocol import preset_text
    from affectlab.collection.creation import create_project
    from affectlab.collection.log import Item

    items = [Item(f"t{i}", f"текст номер {i}") for i in range(20)]
    project, _ = create_project(str(tmp_path / "p.sqlite"), preset_text("emobench-ua"), items, {})  # no controls
    names = [f"a{k}" for k in range(6)]
    for k, name in enumerate(names):
        annotator = project.annotator_for(project.invite(name))
        stage = project.stages["fear-surprise-disgust"]
        project.training(annotator, stage.name)
        exam = [{"position": i, "labels": {label: 2 for label in ex.labels}, "none": not ex.labels}
                for i, ex in enumerate(stage.exam.examples)]  # fmt: skip
        project.take_exam(annotator, stage.name, exam)
        page = project.next_page(annotator, stage.name)
        skip = k == 0  # the first page's texts get nothing but skips
        answers = [{"position": i, "skip": True} if skip else {"position": i, "labels": {"fear": 2}} if i % 2
                   else {"position": i, "other": True} for i in range(len(page["items"]))]  # fmt: skip
        project.submit(annotator, page["page"], answers)
    project.log.close()
    export = tmp_path / "export"
    assert cli("annotate", "export", tmp_path / "p.sqlite", "--out", export)[0] == 0
    assert (export / "controls.csv").read_text(encoding="utf-8") == "item,label,value\n"
    manifest = json.loads((export / "manifest.json").read_text(encoding="utf-8"))
    assert "--controls" not in manifest["offline"]["fear-surprise-disgust"]
    monkeypatch.chdir(export)
    for command in manifest["offline"].values():
        code, _, err = cli(*shlex.split(command)[1:])
        assert code == 0, (command, err)
    assert (export / "labels-again.csv").read_bytes() == (export / "labels.csv").read_bytes()
    code, _, err = cli("annotate", "relabel", ".", "--out", "answers-fear-surprise-disgust.csv")
    assert code == 2 and "input files" in err
    code, _, err = cli("annotate", "relabel", tmp_path / "nowhere", "--out", "x.csv")
    assert code == 2 and "is not a folder" in err and len(err.strip().splitlines()) == 1
