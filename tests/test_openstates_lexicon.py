"""The candidate lexicons of affective states (:mod:`affectlab.openstates.lexicon`): the shipped lists, the reader of
a user's ``--states FILE`` and its one-line refusals, Spanish gender forms, and the build (``asi lexicon``,
:mod:`affectlab.openstates.lexicon_build`) on a tiny corpus written here in the layout of shared/data."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from affectlab.cli import main
from affectlab.errors import DataNotFoundError, InputError
from affectlab.openstates import lexicon_build
from affectlab.openstates.collect.seeds import REGIONAL_SEEDS_ES
from affectlab.openstates.lexicon import LEXICON_DIR, MAX_STATES, check_states, default_states, read_states_file
from affectlab.openstates.lexicon_build import build_lexicons, spanish_gender_forms

# --- the shipped lists


@pytest.mark.parametrize(("lang", "at_least"), [("en", 1000), ("es", 300)])
def test_shipped_lexicon_is_large_sorted_unique_and_lowercase(lang: str, at_least: int) -> None:
    states = default_states(lang)
    assert len(states) >= at_least
    assert states == sorted(set(states))
    assert all(state == state.lower().strip() and state for state in states)
    assert all(unicodedata.is_normalized("NFC", state) for state in states)


def test_shipped_lexicons_hold_the_seeds_and_common_states() -> None:
    english, spanish = set(default_states("en")), set(default_states("es"))
    assert {"happy", "sad", "angry", "grateful", "lonely", "anxious", "nervous"} <= english
    assert {"feliz", "triste", "enojado", "enojada", "asustado", "asustada", "tusa", "chipil"} <= spanish


def test_shipped_spanish_adjectives_come_with_both_gender_forms() -> None:
    spanish = set(default_states("es"))
    assert {"nervioso", "nerviosa", "preocupado", "preocupada", "sorprendido", "sorprendida"} <= spanish
    single_form_seeds = set(REGIONAL_SEEDS_ES) | {"nada"}
    missing = {
        form for state in spanish - single_form_seeds for form in spanish_gender_forms(state) if form not in spanish
    }
    assert not missing


def test_shipped_files_say_how_they_were_made() -> None:
    for lang in ("en", "es"):
        lines = (LEXICON_DIR / f"{lang}.txt").read_text(encoding="utf-8").splitlines()
        header = [line for line in lines if line.startswith("#")]
        assert lines[: len(header)] == header and 2 <= len(header) <= 6
        assert "affectlab asi lexicon" in "".join(header)


def test_default_states_gives_a_copy_callers_may_change() -> None:
    first = default_states("en")
    first.clear()
    assert len(default_states("en")) >= 1000


def test_default_states_refuses_another_language() -> None:
    with pytest.raises(InputError, match="'uk'"):
        default_states("uk")


# --- a user's states file


def test_states_file_skips_comments_and_blanks_and_normalises_states(tmp_path: Path) -> None:
    path = tmp_path / "states.txt"
    decomposed = unicodedata.normalize("NFD", "Preocupación")
    path.write_bytes(
        f"\ufeff# my states\n\nHappy\r\n  grateful \n# more\nhappy\n{decomposed}\nfed up\nHAPPY\n".encode()
    )
    assert read_states_file(path) == ["happy", "grateful", "preocupación", "fed up"]


def _refusal(path: Path) -> str:
    with pytest.raises(InputError) as caught:
        read_states_file(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    return message


@pytest.mark.parametrize(
    ("content", "line", "says"),
    [
        ("happy\nsad\tangry\n", 2, "table's row"),
        ("happy,0.5\n", 1, "table's row"),
        ("happy\nsad | 0.5\n", 2, "table's row"),
        ("happy\nsad 0.5\n", 2, "table's row"),
        ("happy\nI feel so very happy today\n", 2, "too long"),
        ("happy\n" + "a" * 41 + "\n", 2, "too long"),
        ("# states\nhappy\nso\x07sad\n", 3, "U+0007"),
        ("happy\n42\n", 2, "no letter"),
        ("i feel <extra_id_0>\n", 1, "mask"),
        ("happy\ni feel ___\n", 2, "mask"),
    ],
)
def test_states_file_refuses_a_line_that_is_not_a_state(tmp_path: Path, content: str, line: int, says: str) -> None:
    path = tmp_path / "states.txt"
    path.write_text(content, encoding="utf-8")
    message = _refusal(path)
    assert f"line {line}" in message and says in message


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"# only a comment\n#another\n"])
def test_states_file_without_states_is_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "states.txt"
    path.write_bytes(content)
    assert "no states" in _refusal(path)


def test_binary_states_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "states.bin"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert "not UTF-8" in _refusal(path)


def test_latin1_states_file_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "states.txt"
    path.write_bytes("feliz\ntriste\nenojado\npreocupación\n".encode("latin-1"))
    message = _refusal(path)
    assert "not UTF-8" in message and "line 4" in message


def test_states_file_with_too_many_states_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "states.txt"
    path.write_text("".join(f"mood{i}\n" for i in range(MAX_STATES + 1)))
    assert f"more than {MAX_STATES:,}" in _refusal(path)


def test_states_folder_is_refused(tmp_path: Path) -> None:
    assert "not a file" in _refusal(tmp_path)


def test_missing_states_file_is_data_not_found(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.txt"
    with pytest.raises(DataNotFoundError) as caught:
        read_states_file(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


# --- Spanish gender forms


@pytest.mark.parametrize(
    ("word", "forms"),
    [
        ("cansado", ["cansado", "cansada"]),
        ("agobiada", ["agobiada", "agobiado"]),
        ("encantador", ["encantador", "encantadora"]),
        ("encantadora", ["encantadora", "encantador"]),
        ("llorón", ["llorón", "llorona"]),
        ("llorona", ["llorona", "llorón"]),
        ("holgazán", ["holgazán", "holgazana"]),
        ("inglés", ["inglés", "inglesa"]),
        ("monótona", ["monótona", "monótono"]),
        ("triste", ["triste"]),
        ("alegre", ["alegre"]),
        ("ilusionante", ["ilusionante"]),
        ("sonriente", ["sonriente"]),
        ("genial", ["genial"]),
        ("feliz", ["feliz"]),
        ("optimista", ["optimista"]),
        ("suicida", ["suicida"]),
        ("idiota", ["idiota"]),
        ("cortés", ["cortés"]),
        ("mejor", ["mejor"]),
        ("fed up", ["fed up"]),
    ],
)
def test_spanish_gender_forms(word: str, forms: list[str]) -> None:
    assert spanish_gender_forms(word) == forms


# --- the build, on a tiny corpus laid out like shared/data

SEMEVAL_HEADER = {
    "eng": "id,text,anger,fear,joy,sadness,surprise",
    "esp": "id,text,anger,disgust,fear,joy,sadness,surprise",
}
NOT_STATES_TEXT = "The national digital budget is global and financial, the regional plan is commercial."


def _carer_lines() -> list[str]:
    lines = ["i feel grateful for my friends;joy"] * 3 + ["i am feeling so uneasy today;fear"] * 3
    lines += ["im feeling really overwhelmed;fear"] * 2 + ["i m married now;joy"] * 3
    lines += ["i feel so cheerful and so cheerful;joy", "i feel very cautious;fear", "i feel sleepy;sadness"]
    lines[8] = "i feel zonked and i feel zonked;fear"  # line 9: a post of the recipe's test set
    return lines


def _write_corpus(root: Path) -> None:
    files = {
        "carer/train.txt": "\n".join(_carer_lines()) + "\n",
        "carer/validation.txt": "sentence;emotion\ni feel hopeful;joy\n",
    }
    for split in ("train", "dev", "test"):
        files[f"goemotions/{split}.tsv"] = "".join(f"{NOT_STATES_TEXT}\t27\tg{split}{i}\n" for i in range(12))
        files[f"emocontext/{split}.txt"] = "0\thi\thello\ti feel so grateful\thappy\r\n1\tok\tyes\tsure\tothers"
        files[f"semeval2025_task11/track_a/{split}/eng.csv"] = (
            f"{SEMEVAL_HEADER['eng']}\neng_{split}_1,I feel so uneasy about it,0,1,0,0,0\n"
        )
        files[f"semeval2025_task11/track_a/{split}/esp.csv"] = (
            f"{SEMEVAL_HEADER['esp']}\nesp_{split}_1,Hoy me siento muy agobiada con todo,0,0,1,0,1,0\n"
            f"esp_{split}_2,Estoy agobiada y cansada,0,0,0,0,1,0\n"
        )
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")


def _record(record_id: str, split: str, term: str) -> str:
    return json.dumps({"id": record_id, "split": split, "masked": "i feel <extra_id_0>", "terms": [term]}) + "\n"


@pytest.fixture
def tiny_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A data folder and a recipe folder; a few words stand for the e5 vocabulary (its 250,002 pieces take a
    minute to embed)."""
    data, recipe = tmp_path / "data", tmp_path / "recipe"
    _write_corpus(data)
    recipe.mkdir()
    (recipe / "en.jsonl").write_text(
        _record("carer:train:14", "train", "sleepy") + _record("carer:train:9", "test", "zonked")
    )
    (recipe / "es.jsonl").write_text(_record("semeval2025-esp:train:esp_train_2", "train", "contenta"))
    monkeypatch.setattr(lexicon_build, "_e5_vocabulary", lambda: {"preocupado", "mercado", "tranquilo", "national"})
    return data, recipe


def test_build_lexicons_from_seeds_recipe_and_feeling_phrases(tiny_data: tuple[Path, Path]) -> None:
    data, recipe = tiny_data
    built = build_lexicons(data, recipe)
    english, spanish = built["en"], built["es"]
    assert english == sorted(set(english)) and spanish == sorted(set(spanish))
    assert {"happy", "afraid", "grateful", "uneasy", "overwhelmed", "sleepy"} <= set(english)
    assert "zonked" not in english  # only in a post of the recipe's test set
    assert "married" not in english and "national" not in english
    assert {"feliz", "tusa", "contenta", "contento", "agobiada", "agobiado"} <= set(spanish)
    assert "tuso" not in spanish  # App. C.2's single-form entry keeps its one form
    assert set(spanish) - set(lexicon_build._seed_states("es")) <= {
        form
        for word in ("contenta", "agobiada", "cansada", "preocupado", "tranquilo")
        for form in spanish_gender_forms(word)
    }


def test_asi_lexicon_writes_both_files_under_a_header(tiny_data: tuple[Path, Path], tmp_path: Path, capsys) -> None:
    data, recipe = tiny_data
    out = tmp_path / "lexicons"
    code = main(["asi", "lexicon", "--data-dir", str(data), "--recipe", str(recipe), "--out", str(out), "--json"])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(stdout)
    assert set(report["sources"]["en"]) == {"seeds", "recipe", "phrases", "probe"}
    assert set(report["sources"]["es"]) == {"seeds", "recipe", "phrases", "counterparts"}
    for lang in ("en", "es"):
        written = read_states_file(out / f"{lang}.txt")
        assert len(written) == report["states"][lang] and written == sorted(written)
        assert (out / f"{lang}.txt").read_text(encoding="utf-8").startswith("# ")


def test_asi_lexicon_without_a_recipe_file_is_one_line(tiny_data: tuple[Path, Path], tmp_path: Path, capsys) -> None:
    data, _ = tiny_data
    empty = tmp_path / "empty"
    empty.mkdir()
    code = main(["asi", "lexicon", "--data-dir", str(data), "--recipe", str(empty), "--out", str(tmp_path / "o")])
    _, err = capsys.readouterr()
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "en.jsonl" in err


@pytest.mark.parametrize(
    ("states", "says"),
    [
        ("elated", "one text, not a list"),
        ([5], "state 1 is 5, a int, not text"),
        (["happy", None], "state 2 is None"),
        ([], "states is empty"),
        (["happy", "  "], "state 2 is empty"),
        (["I feel <extra_id_0>"], "mask"),
        (["happy,0.5"], "table's row"),
        (["happy | 0.5"], "table's row"),
        ({"happy": 1}, "not a list of states"),
        (["a"] * 20_001, "more than the 20,000"),
    ],
)
def test_check_states_refuses_what_is_not_a_list_of_states(states: object, says: str) -> None:
    with pytest.raises(InputError) as refused:
        check_states(states)
    assert says in str(refused.value) and "\n" not in str(refused.value)


def test_check_states_normalises_and_drops_repeats() -> None:
    assert check_states(["  Elated", "elated", "HEARTBROKEN ", "at ease"]) == ["elated", "heartbroken", "at ease"]
    assert check_states(("relieved",)) == ["relieved"]
