"""The embedded open-state predictor: mask windows, training on a few contexts, ranking without the no-feeling
word, likelihood ranking of fixed words, and the saved format (JSON + npz, no pickle)."""

import numpy as np
import pytest

from affectlab.errors import InputError, ModelFileError
from affectlab.openstates.predictors import load_predictor
from affectlab.openstates.predictors.embedded import EmbeddedStatePredictor, mask_contexts

EXAMPLES = {
    "en": (
        ["I won the prize, I feel ___", "Best day of my life", "My dog died, I feel ___", "I miss her so much",
         "Nothing happened today", "The bus comes at ten"],
        ["happy", "happy", "sad", "sad", "nothing", "nothing"],
    )
}  # fmt: skip


@pytest.fixture(scope="module")
def predictor():
    return EmbeddedStatePredictor().fit(EXAMPLES, progress=lambda _s: None)


def test_each_mask_gets_its_own_window():
    text = "a " * 60 + "I feel <extra_id_0> today and later <extra_id_1>."
    first, second = mask_contexts(text)
    assert first.count("___") == 2 and first.split()[40] == "___"
    assert second.endswith("later ___.")


def test_ranking_never_answers_nothing(predictor):
    ranked = predictor.predict(["We won the final! I feel <extra_id_0>."], ["en"], k=5)
    terms = [t.term for t in ranked[0][0]]
    assert terms[0] == "happy" and "nothing" not in terms and len(terms) == 2
    assert ranked[0][0][0].score > ranked[0][0][1].score


def test_score_terms_ranks_fixed_words_and_knows_its_vocabulary(predictor):
    scores = predictor.score_terms(["My cat died. I feel <extra_id_0>."], ["en"], ["happy", "sad", "nothing", "bored"])
    assert scores[0, 1] > scores[0, 0] and scores[0, 3] == -np.inf
    assert np.exp(scores[0, :3]).sum() == pytest.approx(1.0, abs=1e-5)


def test_save_and_load(predictor, tmp_path):
    predictor.save(tmp_path / "p")
    loaded = load_predictor(tmp_path / "p")
    text = ["I feel <extra_id_0> after the funeral."]
    assert [t.to_dict() for t in loaded.predict(text, ["en"])[0][0]] == [
        t.to_dict() for t in predictor.predict(text, ["en"])[0][0]
    ]
    with pytest.raises(InputError, match="no 'es' vocabulary"):
        loaded.predict(text, ["es"])
    (tmp_path / "p" / "heads.npz").write_bytes(b"not npz")
    with pytest.raises(ModelFileError, match="cannot load the open-state predictor"):
        load_predictor(tmp_path / "p")


def test_needs_two_terms():
    with pytest.raises(InputError, match="at least two terms"):
        EmbeddedStatePredictor().fit({"en": (["a", "b"], ["happy", "happy"])}, progress=lambda _s: None)


@pytest.mark.parametrize(
    ("states", "says"),
    [("elated", "one text, not a list"), ([5], "not text"), ([], "states is empty"), (["happy | 0.5"], "table")],
)
def test_detect_open_refuses_bad_states_in_one_line(states, says):
    from affectlab import detect_open
    from affectlab.errors import AffectlabError

    with pytest.raises(AffectlabError) as refused:
        detect_open("I feel <extra_id_0>.", lang="en", states=states)
    assert says in str(refused.value) and "\n" not in str(refused.value)


def test_a_states_file_of_table_rows_is_exit_2_in_one_line(tmp_path, capsys):
    from affectlab.cli import main

    states = tmp_path / "states.csv"
    states.write_text("happy,0.5\nsad,0.2\n", encoding="utf-8")
    code = main(["detect", "--open", "I feel <extra_id_0>.", "--states", str(states)])
    error = capsys.readouterr().err.strip()
    assert code == 2 and "line 1" in error and "table's row" in error and "\n" not in error
