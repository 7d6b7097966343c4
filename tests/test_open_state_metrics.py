"""Open-ended affective-state metrics (MASIVE 4.2.1, App. E) on hand-computed cases: several masks per text,
ties, Spanish gender mismatch, breakdowns, and the first-sub-word contextual embedding."""

import numpy as np
import pytest

from affectlab.errors import InputError
from affectlab.openstates.metrics import (
    context_items,
    mask_hit,
    sample_accuracy,
    sample_similarities,
    score_open_states,
)


class LetterEmbedder:
    """Embeds a term as its letter counts: similarity by hand."""

    name = "letters"

    def embed(self, items):
        rows = []
        for _left, term, _right in items:
            row = np.zeros(26)
            for ch in term:
                if "a" <= ch <= "z":
                    row[ord(ch) - 97] += 1
            rows.append(row)
        return np.array(rows)


def test_sample_level_accuracy_averages_the_masks_of_a_text():
    predicted = [["calm", "happy", "free"], ["tired", "sad", "low"]]
    assert sample_accuracy(predicted, ["happy", "low"], 1) == 0.0
    assert sample_accuracy(predicted, ["happy", "low"], 2) == 0.5
    assert sample_accuracy(predicted, ["happy", "low"], 3) == 1.0
    assert sample_accuracy([["Happy."]], ["happy"], 1) == 1.0  # case and punctuation are not differences


def test_spanish_gender_strict_and_lenient():
    assert not mask_hit(["enojado"], "enojada", 1, "es")
    assert mask_hit(["enojado"], "enojada", 1, "es", gender_strict=False)
    assert not mask_hit(["enojado"], "enojada", 1, "en", gender_strict=False)  # English has no gender rule


def test_similarity_is_the_best_cosine_among_the_top_k():
    # cos(sad, mad) = 2/3, cos(sad, sad) = 1, cos(sad, happy) = 1/sqrt(3 * 5) * 1 ... computed here:
    vec = LetterEmbedder().embed([("", w, "") for w in ("sad", "mad", "happy")])
    cos = vec @ vec[0] / (np.linalg.norm(vec, axis=1) * np.linalg.norm(vec[0]))
    sims = sample_similarities("I feel <extra_id_0>.", [["mad", "happy", "sad"]], ["sad"], LetterEmbedder(), (1, 2, 3))
    assert sims[1] == pytest.approx(cos[1]) and sims[2] == pytest.approx(max(cos[1], cos[2]))
    assert sims[3] == pytest.approx(1.0)


def test_ties_and_two_masks_in_the_report():
    records = [
        {"lang": "en", "masked": "I feel <extra_id_0> and <extra_id_1>.", "terms": ["calm", "free"], "unseen": False,
         "negated": [False, False], "gender": [None, None]},
        {"lang": "es", "masked": "No estoy <extra_id_0> y ya.", "terms": ["cansada"], "unseen": True,
         "negated": [True], "gender": ["fem"]},
    ]  # fmt: skip
    predictions = [
        [["calm", "calm", "x"], ["x", "y", "free"]],  # a repeated (tied) term counts once; 'free' only at k=3
        [["cansado", "cansada", "z"]],
    ]
    report = score_open_states(records, predictions, LetterEmbedder(), ks=(1, 3))
    assert report["acc@1"] == pytest.approx((0.5 + 0.0) / 2)
    assert report["acc@3"] == pytest.approx((1.0 + 1.0) / 2)
    assert report["acc_lenient@1"] == 1.0  # only the Spanish text has a lenient score
    unseen = report["by_subset"]["unseen"]
    assert {k: unseen[k] for k in ("n", "acc@1", "acc@3", "acc_lenient@1", "sim@3")} == {
        "n": 1, "acc@1": 0.0, "acc@3": 1.0, "acc_lenient@1": 1.0, "sim@3": 1.0
    }  # fmt: skip
    assert report["by_mask"]["negated"]["masks"] == 1 and report["by_mask"]["gender_fem"]["acc@1"] == 0.0
    assert report["by_mask"]["not_negated"] == {"masks": 2, "acc@1": 0.5, "acc@3": 1.0}
    assert report["similarity_model"] == "letters"


def test_context_fills_the_other_masks_with_gold_terms():
    left, term, right = context_items("I feel <extra_id_0> and <extra_id_1>.", ["calm", "free"], 1, "light")
    assert (left, term, right) == ("I feel calm and ", "light", ".")


def test_bad_input_is_refused():
    with pytest.raises(InputError, match="1 predicted masks for 2 gold"):
        sample_accuracy([["a"]], ["a", "b"], 1)
    with pytest.raises(InputError, match="no texts"):
        score_open_states([], [])


def test_first_subword_embedding_of_a_term_in_context(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from affectlab.openstates.contextual import FirstSubwordEmbedder
    from tiny_models import save_tiny_bert

    model_dir = save_tiny_bert(tmp_path / "bert", ["i feel calm and free today", "so tired and sad"])
    embedder = FirstSubwordEmbedder(str(model_dir), window=8)
    ids, position = embedder._ids("i feel ", "calm", " and free today")
    assert embedder.tokenizer.convert_ids_to_tokens(ids[position]) == "calm"
    long_left = "so tired and sad " * 20
    ids, position = embedder._ids(long_left, "calm", " today")
    assert len(ids) == 10 and embedder.tokenizer.convert_ids_to_tokens(ids[position]) == "calm"
    rows = embedder.embed([("i feel ", "calm", ""), ("i feel ", "calm", " and free"), ("", "sad", "")])
    assert rows.shape == (3, 32) and not np.allclose(rows[0], rows[1])  # contextual: the right side matters
