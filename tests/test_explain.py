"""Why a label (issue 33): word spans, occlusion weights that are the detector's own score drops, documents,
determinism, and ``explain`` in the API, the command line, files and the service, with the bad input around them."""

import json

import httpx
import numpy as np
import pandas as pd
import pytest

import affectlab
from affectlab.cli import main
from affectlab.detectors.documents import Span
from affectlab.detectors.explain import document_explanation, without, word_spans
from affectlab.detectors.units import VARIANT, add_variants, read_documents
from affectlab.errors import InputError
from affectlab.serve.app import create_app
from serving import running

ANGRY = "I hate you so much, you ruined everything."
FILLER = "The meeting is at ten in the small room on the second floor. "


def words(text: str) -> list[str]:
    return [text[s.start : s.end] for s in word_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm so happy, well-known & 42!", ["I'm", "so", "happy", "well-known", "42"]),
        ("नमस्ते दोस्तों", ["नमस्ते", "दोस्तों"]),  # vowel signs and viramas stay inside their word
        ("ሰላም፡ እንዴት ነህ።", ["ሰላም", "እንዴት", "ነህ"]),  # Ethiopic word separator
        ("so good 😂👍🏽", ["so", "good", "😂", "👍🏽"]),  # each emoji, its skin tone kept
        ("!!! ...", []),
    ],
)
def test_words_are_letters_marks_and_digits_or_one_symbol(text: str, expected: list[str]) -> None:
    assert words(text) == expected


@pytest.mark.parametrize("text", ["我今天非常高兴，但是有点害怕。", "ฉันมีความสุขมากวันนี้", "今日はとても嬉しいです"])
def test_scripts_without_spaces_are_cut_into_several_words_that_spell_the_run(text: str) -> None:
    found = words(text)
    assert len(found) >= 3
    assert all(len(w) <= 9 for w in found)
    assert "".join(found) == "".join(ch for ch in text if ch not in "，。")


def test_removing_a_word_leaves_no_double_space_or_space_before_punctuation() -> None:
    text = "Well , I am so happy today !"
    spans = word_spans(text)
    assert without(text, spans[0]) == ", I am so happy today !"
    assert without(text, spans[3]) == "Well , I am happy today !"
    assert without(text, spans[-1]) == "Well , I am so happy !"


def test_occlusions_are_one_variant_per_word_of_each_wanted_unit() -> None:
    docs = read_documents(["a b c", "d e"], [[], []], ["en", "en"], split_long=True, with_sentences=False)
    add_variants(docs, with_sentences=False)
    variants = [unit for unit in docs.units if unit.kind == VARIANT]
    assert [unit.text for unit in variants] == ["b c", "a c", "a b", "e", "d"]
    assert [(unit.doc, unit.parent) for unit in variants] == [(0, 0)] * 3 + [(1, 1)] * 2
    assert docs.variants(0) == [2, 3, 4] and docs.variants(1) == [5, 6]
    assert [(s.span.start, s.span.end) for s in variants[:3]] == [(0, 1), (2, 3), (4, 5)]


def test_a_document_weight_is_the_change_of_the_document_row() -> None:
    scores = np.array([[0.9, 0.1], [0.2, 0.6]])
    parts = [(0, Span(0, 10)), (1, Span(11, 20))]
    from affectlab.detectors.explain import Explained

    by_unit = {0: Explained([Span(0, 3)], np.array([[0.5, 0.0]])), 1: Explained([Span(2, 4)], np.array([[0.0, 0.3]]))}
    done = document_explanation(parts, by_unit, scores, lambda s: s.max(axis=0))
    assert [(s.start, s.end) for s in done.spans] == [(0, 3), (13, 15)]
    # the first word takes sentence 0's first label from 0.9 to 0.4: the document's falls to sentence 1's 0.2 -> 0.4
    np.testing.assert_allclose(done.weights, [[0.5, 0.0], [0.0, 0.3]])


def test_weights_are_the_detectors_own_score_drops() -> None:
    result = affectlab.detect(ANGRY, lang="en", explain=True)[0]
    assert result.labels[0] == "anger"
    spans = result.explanation["anger"]
    assert [s.text for s in spans] == words(ANGRY)
    assert all(ANGRY[s.start : s.end] == s.text for s in spans)
    hate = next(s for s in spans if s.text == "hate")
    variant = without(ANGRY, Span(hate.start, hate.end))
    alone = affectlab.detect(variant, lang="en")[0]
    assert hate.weight == pytest.approx(result.scores["anger"] - alone.scores["anger"], abs=2e-4)
    assert max(spans, key=lambda s: s.weight).text == "hate"


def test_an_explanation_is_the_same_alone_and_in_any_batch() -> None:
    alone = affectlab.detect(ANGRY, explain=True)[0].explanation
    batch = affectlab.detect(["Ich bin so glücklich heute!", ANGRY, "Я дуже боюся темряви."], explain=True)
    assert batch[1].explanation == alone


def test_labels_asked_for_are_explained_beside_the_given_ones_and_unknown_ones_refused() -> None:
    result = affectlab.detect(ANGRY, explain=["disgust", "joy"], top_k=1)[0]
    assert list(result.explanation) == [result.labels[0], "disgust", "joy"]
    with pytest.raises(InputError, match="cannot explain 'rage'"):
        affectlab.detect(ANGRY, explain=["rage"])
    with pytest.raises(TypeError):
        affectlab.detect(ANGRY, explain=3)
    assert affectlab.detect(ANGRY)[0].explanation is None
    assert "explanation" not in affectlab.detect(ANGRY)[0].to_dict()


def test_short_texts_emoji_and_no_words() -> None:
    # one word is und (issue 41); the language is given so that the English head explains it
    one, emoji, marks = affectlab.detect(["Furious", "😂😂", "!!!"], explain=True, lang="en")
    assert [s.text for s in one.explanation[one.labels[0]]] == ["Furious"]
    assert one.explanation["anger"][0].weight > 0.1
    assert [s.text for s in emoji.explanation[emoji.labels[0]]] == ["😂", "😂"]
    assert marks.explanation == {label: [] for label in marks.labels}


def test_a_long_document_is_explained_word_by_word_within_its_sentences() -> None:
    document = FILLER * 30 + "Then the house caught fire and I was terrified. " + FILLER * 5
    result = affectlab.detect(document, explain=True, sentences=True)[0]
    assert "fear" in result.labels
    top = max(result.explanation["fear"], key=lambda s: s.weight)
    assert top.text in ("terrified", "fire") and document[top.start : top.end] == top.text
    assert len(result.explanation["fear"]) == len(word_spans(document))
    fearful = next(s for s in result.sentences if "terrified" in s.text)
    assert fearful.explanation is not None
    assert all(fearful.start <= w.start < w.end <= fearful.end for w in fearful.explanation["fear"])
    assert "explanation" in result.to_dict()["sentences"][0]


def test_emocontext_explains_the_last_turn_with_its_context_kept() -> None:
    result = affectlab.detect("I hate you", taxonomy="emocontext", context=["hi", "how are you"], explain=True)[0]
    assert result.labels == ["angry"]
    assert [s.text for s in result.explanation["angry"]] == ["I", "hate", "you"]
    assert max(result.explanation["angry"], key=lambda s: s.weight).text == "hate"


def test_fast_explains_the_ngram_member() -> None:
    result = affectlab.detect(ANGRY, fast=True, explain=True)[0]
    assert max(result.explanation[result.labels[0]], key=lambda s: s.weight).text == "hate"


def test_cli_explain_prints_the_words_and_json_has_the_spans(cli) -> None:
    code, out, _ = cli("detect", ANGRY, "--explain")
    assert code == 0
    assert "why anger: hate +" in out
    code, out, _ = cli("detect", ANGRY, "--explain-label", "joy", "--json")
    assert code == 0
    found = json.loads(out)["explanation"]
    assert "joy" in found and "anger" in found
    assert {"start", "end", "text", "weight"} == set(found["anger"][0])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["detect", ANGRY, "--explain-label", "rage"], "cannot explain 'rage'"),
        (["detect", "--open", "I feel <extra_id_0>.", "--explain"], "--explain applies to emotions"),
    ],
)
def test_cli_bad_explain_is_one_line_with_exit_2(cli, args, message) -> None:
    code, out, err = cli(*args)
    assert code == 2
    assert message in err and "Traceback" not in err + out
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet", ".csv"])
def test_files_get_an_explanation_column(tmp_path, suffix) -> None:
    source = tmp_path / "in.csv"
    pd.DataFrame({"text": [ANGRY, "Я така щаслива сьогодні!"]}).to_csv(source, index=False)
    out = tmp_path / f"out{suffix}"
    assert main(["detect", "--input", str(source), "--output", str(out), "--explain"]) == 0
    if suffix == ".jsonl":
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        explanation = rows[0]["explanation"]
    elif suffix == ".parquet":
        explanation = {k: v for k, v in pd.read_parquet(out)["explanation"][0].items() if v is not None}
        explanation = {k: [dict(w) for w in v] for k, v in explanation.items()}
    else:
        explanation = json.loads(pd.read_csv(out)["explanation"][0])
    assert "anger" in explanation
    assert max(explanation["anger"], key=lambda w: w["weight"])["text"] == "hate"


def test_the_service_explains_and_refuses_a_value_that_is_not_a_boolean_or_labels() -> None:
    with running(create_app()) as url:
        answer = httpx.post(url + "/v1/detect", json={"text": ANGRY, "explain": True}, timeout=60)
        assert answer.status_code == 200
        assert "anger" in answer.json()["results"][0]["explanation"]
        answer = httpx.post(url + "/v1/detect", json={"text": ANGRY, "explain": ["joy"]}, timeout=60)
        assert "joy" in answer.json()["results"][0]["explanation"]
        for bad in ("yes", 1):
            answer = httpx.post(url + "/v1/detect", json={"text": ANGRY, "explain": bad}, timeout=60)
            assert answer.status_code == 422
        answer = httpx.post(url + "/v1/detect", json={"text": ANGRY, "explain": ["rage"]}, timeout=60)
        assert answer.status_code == 422 and "cannot explain" in answer.json()["error"]


@pytest.mark.slow
def test_a_3000_word_text_removes_each_word_from_its_own_sentence_only() -> None:
    from affectlab.detectors.documents import SENTENCE_MAX_CHARS

    sentences = [f"On day {i} we walked {i % 7} miles to the old mill and back again." for i in range(230)]
    document = " ".join(sentences)
    assert len(word_spans(document)) >= 3000
    docs = read_documents([document], [[]], [""], split_long=True, with_sentences=False)
    add_variants(docs, with_sentences=False)
    variants = [unit.text for unit in docs.units if unit.kind == VARIANT]
    assert len(variants) == len(word_spans(document))
    assert max(map(len, variants)) < SENTENCE_MAX_CHARS  # the cost grows with the length, not its square
    repeated = " ".join(sentences[:10] * 23)  # each distinct variant is scored once: the test stays quick
    result = affectlab.detect(repeated, explain=True, intensity=True)[0]
    assert len(result.explanation[result.labels[0]]) == len(word_spans(repeated)) >= 3000
    assert result.intensities is not None


def test_a_terminal_tints_the_words_and_a_pipe_lists_them() -> None:
    import io

    from rich.console import Console

    from affectlab.cli.explain_view import print_explanation, tinted_text, top_words
    from affectlab.detectors.explain import SpanWeight

    text = "I hate rain"
    spans = [SpanWeight(0, 1, "I", 0.001), SpanWeight(2, 6, "hate", 0.4), SpanWeight(7, 11, "rain", -0.1)]
    tinted = tinted_text(text, spans)
    styled = {tinted.plain[span.start : span.end]: str(span.style) for span in tinted.spans}
    assert set(styled) == {"hate", "rain"} and "bold" in styled["hate"]  # "I" is too light to tint
    assert top_words(spans) == "hate +0.40 | against: rain -0.10"
    terminal = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=80)
    print_explanation(terminal, text, {"anger": spans})
    assert "\x1b[" in terminal.file.getvalue() and "why anger:" in terminal.file.getvalue()
    pipe = Console(file=io.StringIO(), force_terminal=False, width=80)
    print_explanation(pipe, text, {"anger": spans})
    assert pipe.file.getvalue() == "  why anger: hate +0.40 | against: rain -0.10\n"
