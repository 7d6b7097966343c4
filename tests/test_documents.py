"""Long texts read whole (issue 32): sentence spans, the document rule with the shipped default, ``sentences`` in
the API, the command line, files and the service, and the bad input around them."""

import json

import httpx
import pandas as pd
import pytest

import affectlab
from affectlab.detectors.documents import (
    MAX_TEXT_CHARS,
    SENTENCE_MAX_CHARS,
    WHOLE_UP_TO,
    document_labels,
    document_row,
    sentence_spans,
)
from affectlab.errors import InputError
from affectlab.serve.app import create_app
from serving import running

FILLER = "The meeting is at ten in the small room on the second floor. "
JOY = "I am so happy, this is the best day of my life!"
FEAR = "Then the house caught fire and I was terrified."


def long_document(early: str = JOY, late: str = FEAR, fillers: int = 50) -> str:
    return early + " " + FILLER * fillers + late


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Hello Dr. Smith.  How are you?\n\nFine!", "en"),
        ("Я дуже радий. А ти?", "uk"),
        ("我很高兴。你呢？我也是！", "zh"),
        ("ሰላም ነው። እንዴት ነህ፧", "am"),
        ("no final stop at all", None),
    ],
)
def test_sentence_spans_are_exact_stripped_and_cover_the_text(text, lang):
    spans = sentence_spans(text, lang)
    assert spans and all(text[s.start : s.end] == text[s.start : s.end].strip() != "" for s in spans)
    assert [s.start for s in spans] == sorted(s.start for s in spans)
    covered = "".join(text[s.start : s.end] for s in spans)
    assert covered == "".join(text.split()) or covered.replace(" ", "") == "".join(text.split())


def test_an_empty_or_blank_text_has_no_sentences_and_a_document_never_has_none():
    from affectlab.detectors.units import read_documents

    assert sentence_spans("") == [] and sentence_spans(" \n\t ") == []
    docs = read_documents(["\u200b" * 1500 + "!"], [[]], [""], split_long=True, with_sentences=True)
    assert docs.sentences(0) and docs.whole(0) is None


@pytest.mark.parametrize("text", ["word " * 1000, "x" * 5000])
def test_a_run_on_sentence_is_cut_into_pieces_no_longer_than_the_limit(text):
    spans = sentence_spans(text.strip())
    assert len(spans) > 1 and all(0 < s.end - s.start <= SENTENCE_MAX_CHARS for s in spans)
    assert "".join(text.strip()[s.start : s.end] for s in spans).replace(" ", "") == text.replace(" ", "")


def test_the_document_rule_takes_the_highest_sentence_and_none_only_when_every_sentence_is_neutral():
    scores = [[0.1, 0.2, 0.9], [0.7, 0.1, 0.2]]  # joy, fear, none
    import numpy as np

    row = document_row(np.array(scores), none_column=2)
    assert row.tolist() == [0.7, 0.2, 0.2]
    assert document_labels(row, 2).tolist() == [1, 0, 0]
    quiet = document_row(np.array([[0.1, 0.2, 0.9], [0.3, 0.1, 0.6]]), none_column=2)
    assert document_labels(quiet, 2).tolist() == [0, 0, 1]


def test_an_emotion_after_the_first_2000_characters_is_read_and_nothing_is_cut():
    document = long_document()
    assert document.index(FEAR) > 2000
    (result,) = affectlab.detect(document)
    assert {"joy", "fear"} <= set(result.labels)
    assert not any("first" in note for note in result.notes)
    assert any("sentence by sentence" in note for note in result.notes)
    assert result.sentences is None


def test_sentences_give_the_arc_and_leave_a_short_texts_own_scores_unchanged():
    short = JOY + " " + FEAR
    (plain,) = affectlab.detect(short)
    (with_arc,) = affectlab.detect(short, sentences=True)
    assert (with_arc.scores, with_arc.labels) == (plain.scores, plain.labels)
    assert [s.text for s in with_arc.sentences] == [JOY, FEAR]
    assert "joy" in with_arc.sentences[0].labels and "fear" in with_arc.sentences[1].labels
    assert [short[s.start : s.end] for s in with_arc.sentences] == [JOY, FEAR]
    assert with_arc.to_dict()["sentences"][1]["start"] == len(JOY) + 1


def test_a_document_gets_the_same_result_alone_and_in_a_batch():
    document = long_document()
    (alone,) = affectlab.detect(document, sentences=True, intensity=True)
    batch = affectlab.detect(["Okay.", document, "¡Qué alegría!"], sentences=True, intensity=True)
    assert batch[1].to_dict() == alone.to_dict()


def test_intensity_per_sentence_and_per_document():
    (result,) = affectlab.detect(long_document(), sentences=True, intensity=True)
    assert all(s.intensities is not None for s in result.sentences)
    assert result.intensities["joy"] >= 1 and result.intensities["fear"] >= 1
    assert result.sentences[0].intensities["joy"] >= 1


def test_each_sentence_of_a_mixed_language_document_has_its_language():
    ukrainian = "Я дуже щаслива сьогодні, бо приїхала моя сестра. "
    document = JOY + " " + FILLER * 20 + ukrainian * 10
    (result,) = affectlab.detect(document, sentences=True)
    langs = [s.lang for s in result.sentences]
    assert langs[0] == "en" and langs[-1] == "uk"
    assert result.lang in ("en", "uk") and len(document) > WHOLE_UP_TO


def test_a_document_of_whitespace_between_sentences_and_one_of_symbols():
    (spaced,) = affectlab.detect(JOY + " " * 3000 + "\n" * 50 + FEAR, sentences=True)
    assert [s.text for s in spaced.sentences] == [JOY, FEAR]
    (symbols,) = affectlab.detect("!!! ... ??? " * 200, sentences=True)
    assert symbols.sentences and symbols.labels


def test_a_text_over_the_limit_is_refused_in_one_line(cli):
    huge = "a" * (5 * 1024 * 1024)
    with pytest.raises(InputError, match="5,242,880 characters; the limit is 1,000,000"):
        affectlab.detect(["fine", huge])
    assert MAX_TEXT_CHARS == 1_000_000
    code, _, err = cli("detect", huge)
    assert code == 2 and err.count("\n") == 1 and "limit" in err


def test_sentences_with_a_dialogue_taxonomy_are_refused_in_one_line(cli):
    with pytest.raises(InputError, match="does not score sentences"):
        affectlab.detect("you are late again", taxonomy="emocontext", sentences=True)
    code, _, err = cli("detect", "--taxonomy", "emocontext", "--sentences", "you are late")
    assert code == 2 and err.count("\n") == 1


def test_detect_sentences_prints_one_line_per_sentence_and_json(cli):
    code, out, _ = cli("detect", "--sentences", JOY + " " + FEAR)
    assert code == 0 and "sentences:" in out
    assert sum(1 for line in out.splitlines() if line.strip().startswith(("0 ", str(len(JOY) + 1)))) == 2
    code, out, _ = cli("detect", "--sentences", "--json", JOY + " " + FEAR)
    record = json.loads(out)
    assert [s["text"] for s in record["sentences"]] == [JOY, FEAR]


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet", ".csv"])
def test_detect_input_scores_long_cells_whole_with_a_sentences_column(tmp_path, cli, suffix):
    source = tmp_path / "docs.jsonl"
    rows = [{"text": long_document()}, {"text": "What a lovely surprise!"}, {"text": "  "}]
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    target = tmp_path / f"out{suffix}"
    code, _, err = cli("detect", "--input", str(source), "--output", str(target), "--sentences", "--json")
    assert code == 0, err
    if suffix == ".jsonl":
        written = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
        arcs = [row["sentences"] for row in written]
    elif suffix == ".parquet":
        written = pd.read_parquet(target).to_dict("records")
        arcs = [None if row["sentences"] is None else list(row["sentences"]) for row in written]
    else:
        written = pd.read_csv(target, keep_default_na=False).to_dict("records")
        arcs = [json.loads(row["sentences"]) if row["sentences"] else None for row in written]
    assert "fear" in written[0]["labels"] and "joy" in written[0]["labels"]
    assert "sentence by sentence" in written[0]["notes"]
    assert len(arcs[0]) > 40 and arcs[0][-1]["text"] == FEAR and "fear" in list(arcs[0][-1]["labels"])
    assert len(arcs[1]) == 1 and not arcs[2] and written[2]["error"]
    (alone,) = affectlab.detect(rows[0]["text"])
    assert float(written[0]["score_fear"]) == pytest.approx(alone.scores["fear"], abs=1e-4)


def test_detect_input_reads_each_rows_language_from_a_column(tmp_path, cli):
    source = tmp_path / "langs.csv"
    pd.DataFrame(
        {
            "text": ["Ich bin so glücklich!", "I am so happy!", "Je suis très content.", "hola"],
            "language": ["deu", "", "fr", "not a tag!"],
        }
    ).to_csv(source, index=False)
    target = tmp_path / "out.jsonl"
    code, _, err = cli("detect", "--input", str(source), "--output", str(target), "--lang-col", "language")
    assert code == 0, err
    written = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert [row["lang"] for row in written[:3]] == ["deu", "en", "fr"]  # a tag given is shown as given
    assert [row["supported"] for row in written[:3]] == [True, True, False]
    assert "language" in written[3]["error"] and written[3]["score_joy"] is None


def test_a_lang_column_named_lang_is_filled_in_and_lang_with_lang_col_is_refused(tmp_path, cli):
    source = tmp_path / "langs.csv"
    pd.DataFrame({"text": ["Ich bin so glücklich!", "I am so happy!"], "lang": ["deu", ""]}).to_csv(source, index=False)
    target = tmp_path / "out.csv"
    code, _, err = cli("detect", "--input", str(source), "--output", str(target), "--lang-col", "lang")
    assert code == 0, err
    written = pd.read_csv(target, keep_default_na=False)
    assert written["lang"].tolist() == ["deu", "en"] and list(written.columns).count("lang") == 1
    again = tmp_path / "again.csv"
    code, _, err = cli("detect", "--input", str(source), "--output", str(again), "--lang-col", "lang",
                       "--lang", "de")  # fmt: skip
    assert code == 2 and "not both" in err and not again.exists()
    code, _, err = cli("detect", "--input", str(source), "--output", str(again), "--lang-col", "nope")
    assert code == 2 and "no column 'nope'" in err


def test_the_service_takes_sentences_true():
    with running(create_app()) as url:
        answer = httpx.post(url + "/v1/detect", json={"text": JOY + " " + FEAR, "sentences": True}, timeout=60)
        assert answer.status_code == 200
        (result,) = answer.json()["results"]
        assert [s["text"] for s in result["sentences"]] == [JOY, FEAR]
        not_a_bool = httpx.post(url + "/v1/detect", json={"text": "hi", "sentences": []}, timeout=60)
        assert not_a_bool.status_code == 422 and "sentences" in not_a_bool.json()["error"]
        refused = httpx.post(url + "/v1/detect", json={"text": "hi", "taxonomy": "emocontext", "sentences": True},
                             timeout=60)  # fmt: skip
        assert refused.status_code == 422 and "sentences" in refused.json()["error"]
