"""``affectlab asi ...`` and ``detect --open`` end to end: collect from files, train a tiny random T5 with
``asi train seq2seq:``, evaluate it, the fixed-label evaluation, and the one-line errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

POSTS = [f"Today I feel happy and {w}. It was {w} all day." for w in ("calm", "free", "safe", "warm", "numb")] * 3


@pytest.fixture
def collected(tmp_path: Path, cli) -> Path:
    corpus = tmp_path / "posts.jsonl"
    corpus.write_text(
        "".join(json.dumps({"id": f"p{i}", "title": "", "selftext": p}) + "\n" for i, p in enumerate(POSTS))
    )
    out = tmp_path / "asi.jsonl"
    code, stdout, err = cli("asi", "collect", corpus, "--lang", "en", "--out", out, "--unseen", "1", "--json")
    assert code == 0, err
    report = json.loads(stdout)
    assert report["posts"] == 15 and report["splits"]["unseen"]["size"] == 3 and report["corpus_posts"] == 15
    return out


@pytest.mark.slow
def test_train_and_eval_a_tiny_t5(collected: Path, tmp_path: Path, cli) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from tiny_models import save_tiny_t5

    t5 = save_tiny_t5(tmp_path / "t5", [*POSTS, "<extra_id_0> <extra_id_1>"])
    code, out, err = cli(
        "asi", "train", f"seq2seq:{t5}", "--data", collected, "--out", tmp_path / "m", "-p", "epochs=2",
        "--device", "cpu", "--json",
    )  # fmt: skip
    assert code == 0, err
    assert len(json.loads(out)["history"]) == 2
    preds = tmp_path / "preds.jsonl"
    code, out, err = cli(
        "asi", "eval", "--data", collected, "--model", tmp_path / "m", "--similarity-model", "none",
        "--k", "3", "--predictions-out", preds, "--json",
    )  # fmt: skip
    assert code == 0, err
    report = json.loads(out)
    assert set(report) >= {"acc@1", "acc@3", "by_subset", "by_mask"} and "acc@5" not in report
    assert len(preds.read_text().splitlines()) == report["n"]
    code, out, err = cli("asi", "eval", "--data", collected, "--model", tmp_path / "m", "--similarity-model", "none")
    assert code == 0 and "acc@1" in out


def test_collect_errors(tmp_path: Path, cli) -> None:
    empty = tmp_path / "none.txt"
    empty.write_text("nothing to see\n")
    code, _, err = cli("asi", "collect", empty, "--lang", "en", "--out", tmp_path / "x.jsonl")
    assert code == 2 and "no post in the corpus matches" in err and not (tmp_path / "x.jsonl").exists()
    code, _, err = cli("asi", "collect", empty, "--lang", "uk", "--out", tmp_path / "x.jsonl")
    assert code == 2 and "unknown language 'uk'" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1}\n')
    code, _, err = cli("asi", "collect", bad, "--lang", "en", "--out", tmp_path / "x.jsonl")
    assert code == 2 and "no text column" in err


def test_detect_open_gives_ranked_terms_offline(cli) -> None:
    code, out, err = cli("detect", "--open", "I finally told her and now I feel <extra_id_0>.", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["text"] == "I finally told her and now I feel <extra_id_0>." and result["lang"] == "en"
    assert len(result["terms"]) == 5 and all(set(t) == {"term", "score"} for t in result["terms"])
    scores = [t["score"] for t in result["terms"]]
    assert scores == sorted(scores, reverse=True) and "nothing" not in [t["term"] for t in result["terms"]]
    code, out, _ = cli("detect", "--open", "Hoy todo me salió mal", "--top-k", "3", "--json")
    assert code == 0 and json.loads(out)["lang"] == "es" and len(json.loads(out)["terms"]) == 3
    code, out, _ = cli("detect", "--open", "I feel <extra_id_0> and <extra_id_1>.", "--json")
    assert code == 0 and len(json.loads(out)["masks"]) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((" ".join(f"<extra_id_{i}>" for i in range(101)),), "only 100 sentinels"),
        (("Я щаслива",), "text 1 reads as 'uk', and open affective states cover en and es only"),
        (("hello", "--lang", "fr"), "cover en and es, not 'fr'"),
        (("hello", "--lang", "uk"), "cover en and es, not 'uk'"),
        (("hello", "--lang", "en us"), "lang must be a language tag"),
        (("  ",), "text 1 is empty"),
        (("I feel <extra_id_1>",), "numbered 0, 1, 2"),
    ],
)
def test_detect_open_bad_input(cli, args, message) -> None:
    code, out, err = cli("detect", "--open", *args)
    assert code == 2 and message in err and out == ""
    assert "Traceback" not in err


@pytest.mark.slow
def test_detect_open_masks_anywhere(cli) -> None:
    cases = {
        "I lost my keys again today": 1,  # no mask: "I feel <extra_id_0>." appended
        "<extra_id_0> is how I felt after the exam": 1,
        "After the exam I felt <extra_id_0>": 1,
        " ".join(f"I was <extra_id_{i}> then" for i in range(10)): 10,
    }
    for text, masks in cases.items():
        code, out, err = cli("detect", "--open", text, "--top-k", "2", "--json")
        assert code == 0, err
        result = json.loads(out)
        assert len(result.get("masks", [result["terms"]])) == masks and len(result["terms"]) == 2


def test_detect_open_spanish_text_read_as_english_says_so(cli) -> None:
    code, out, err = cli("detect", "--open", "Hoy me siento <extra_id_0> porque perdí el trabajo", "--lang",
                         "en", "--json")  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert result["lang"] == "en" and result["notes"] == ["the text reads as 'es'; ranked 'en' states as asked"]


@pytest.mark.slow
def test_detect_open_with_a_states_file(cli, tmp_path: Path) -> None:
    states = tmp_path / "states.txt"
    states.write_text("# my states\nGutted\nover the moon\n\ngutted\n", encoding="utf-8")
    code, out, err = cli("detect", "--open", "We lost the final. I feel <extra_id_0>.", "--states", states,
                         "--states-only", "--json")  # fmt: skip
    assert code == 0, err
    assert sorted(t["term"] for t in json.loads(out)["terms"]) == ["gutted", "over the moon"]
    code, out, err = cli("detect", "--open", "We lost. I feel <extra_id_0>.", "--states", states, "--json")
    assert code == 0 and len(json.loads(out)["terms"]) == 5


def test_a_long_states_file_shows_progress_on_stderr(cli, tmp_path: Path, monkeypatch) -> None:
    import affectlab.cli.detect_cmd as detect_cmd

    monkeypatch.setattr(detect_cmd, "PROGRESS_FROM_STATES", 3)
    states = tmp_path / "states.txt"
    states.write_text("bereft\nwistful\nsmug\n", encoding="utf-8")
    code, out, err = cli("detect", "--open", "I feel <extra_id_0>.", "--states", states, "--states-only")
    assert code == 0 and out.split(":")[1].split()[0] in {"bereft", "wistful", "smug"}
    assert "embedding states: 3/3 states" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "no states"),
        (b"# only a comment\n\n", "no states"),
        (b"\xff\xfe\x00binary", "UTF-8"),
        ("\U00013000\U00013001\n".encode(), "cannot read the state"),
        (b"<extra_id_0>\n", "line 1"),
    ],
)
def test_detect_open_bad_states_file(cli, tmp_path: Path, content: bytes, message: str) -> None:
    states = tmp_path / "states.txt"
    states.write_bytes(content)
    code, out, err = cli("detect", "--open", "I feel <extra_id_0>.", "--states", states)
    assert code == 2 and message in err and out == "" and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_states_options_belong_to_open(cli, tmp_path: Path) -> None:
    code, _, err = cli("detect", "I am happy", "--states", tmp_path / "x.txt")
    assert code == 2 and "--states applies to --open" in err
    code, _, err = cli("detect", "--open", "I am happy", "--states-only")
    assert code == 2 and "--states-only needs --states FILE" in err
    code, _, err = cli("detect", "--open", "I am happy", "--states", tmp_path / "missing.txt")
    assert code == 2 and "missing.txt" in err


@pytest.mark.slow
def test_fixed_label_evaluation_of_the_default(cli, data_dir) -> None:
    code, out, err = cli(
        "asi", "fixed-label", "--dataset", "goemotions-ekman", "--limit", "60", "--data-dir", data_dir, "--json"
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["n"] == 60 and 0 <= report["macro_f1"] <= 1 and report["acc@1"] <= report["acc@5"]
    assert set(report["per_label_f1"]) == {"anger", "disgust", "fear", "joy", "sadness", "surprise", "none"}


@pytest.mark.slow
def test_fixed_label_reports_progress_in_plain_lines_when_stderr_is_not_a_terminal(cli, data_dir, monkeypatch):
    from affectlab.openstates import evaluation

    args = ["asi", "fixed-label", "--dataset", "goemotions-ekman", "--limit", "50", "--data-dir", data_dir]
    code, whole, _ = cli(*args, "--json")
    monkeypatch.setattr(evaluation, "RANKING_BATCH", 20)
    monkeypatch.setattr("affectlab.cli.output.PLAIN_PROGRESS_SECONDS", 0.0)
    code, _, err = cli(*args)
    assert code == 0, err
    lines = err.splitlines()
    assert [line.split(" in ")[0] for line in lines] == [
        "ranking label words: 20/50 texts (40%)", "ranking label words: 40/50 texts (80%)",
        "ranking label words: 50/50 texts (100%)",
    ]  # fmt: skip
    assert "left" in lines[0] and "left" not in lines[-1]
    code, batched, _ = cli(*args, "--json")  # ranked 20 at a time: the same scores as all at once
    assert {**json.loads(batched), "seconds": 0} == {**json.loads(whole), "seconds": 0}
