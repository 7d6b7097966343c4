"""The seq2seq affective-state predictor end to end on a tiny random T5 built here (no download): training on
masked posts lowers the loss, beam search gives ranked terms per mask, the metrics score them, saving round-trips,
and the gold NLL is the sum of the per-token NLLs."""

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from affectlab.errors import InputError
from affectlab.openstates.collect.bootstrap import bootstrap
from affectlab.openstates.collect.dataset import split_dataset
from affectlab.openstates.metrics import score_open_states
from affectlab.openstates.predictors import load_predictor
from affectlab.openstates.predictors.base import prepare, terms_only
from affectlab.openstates.predictors.seq2seq import Seq2SeqStatePredictor, parse_spans, rank_spans
from tiny_models import save_tiny_t5

POSTS = [f"Today I feel happy and {w}. It was {w} all day." for w in ("calm", "free", "safe", "warm")] * 3 + [
    "I feel sad and lonely tonight.",
    "I don't feel angry and bitter now.",
]


@pytest.fixture(scope="module")
def records():
    result = bootstrap(POSTS, "en", rounds=2)
    records, _ = split_dataset(result, n_unseen=1, test_fraction=0.3, seed=0)
    return records


@pytest.fixture(scope="module")
def tiny_t5(tmp_path_factory, records):
    return save_tiny_t5(tmp_path_factory.mktemp("t5"), [r["text"] + " " + r["target"] for r in records])


def test_parse_and_rank_spans():
    assert parse_spans("<pad> <extra_id_0> calm <extra_id_1> free </s>", 2) == ["calm", "free"]
    assert parse_spans("<extra_id_1> free", 2) == ["", "free"]
    ranked = rank_spans(["<extra_id_0> calm", "<extra_id_0> Calm", "<extra_id_0> free"], [0.5, 0.3, 0.2], 1)
    assert [(t.term, t.score) for t in ranked[0]] == [("calm", 0.5), ("free", 0.2)]


@pytest.mark.slow
def test_train_predict_score_end_to_end(tiny_t5, records, tmp_path):
    train = [r for r in records if r["split"] == "train"]
    test = [r for r in records if r["split"] == "test"]
    model = Seq2SeqStatePredictor(tiny_t5, device="cpu", epochs=15, batch_size=4, lr=3e-3)
    before = model.gold_nll([r["masked"] for r in train], [r["target"] for r in train])
    model.fit([r["masked"] for r in train], [r["target"] for r in train])
    after = model.gold_nll([r["masked"] for r in train], [r["target"] for r in train])
    assert model.history[-1]["loss"] < 0.5 * model.history[0]["loss"]
    assert sum(nll for nll, _ in after) < 0.5 * sum(nll for nll, _ in before)
    assert all(nll >= mean > 0 for nll, mean in after)
    predictions = model.predict([r["masked"] for r in test], k=3)
    assert [len(p) for p in predictions] == [len(r["terms"]) for r in test]
    assert all(len(mask) <= 3 for p in predictions for mask in p)
    report = score_open_states(test, terms_only(predictions), ks=(1, 3))
    assert 0.0 <= report["acc@1"] <= report["acc@3"] <= 1.0 and report["n"] == len(test)
    seen = [r for r in test if not r["unseen"]]
    if seen:  # the masks of seen states were learned
        seen_predictions = model.predict([r["masked"] for r in seen], k=3)
        assert score_open_states(seen, terms_only(seen_predictions), ks=(3,))["acc@3"] > 0.5
    model.save(tmp_path / "m")
    loaded = load_predictor(tmp_path / "m")
    assert terms_only(loaded.predict([test[0]["masked"]], k=3)) == terms_only(predictions[:1])
    assert loaded.history == model.history


def test_prepare_appends_a_mask_and_refuses_bad_input():
    assert prepare("Long day.", "en") == "Long day. I feel <extra_id_0>."
    assert prepare("Día largo.", "es") == "Día largo. Me siento <extra_id_0>."
    assert prepare("I feel <extra_id_0>.", "en") == "I feel <extra_id_0>."
    with pytest.raises(InputError, match="unknown language 'uk'"):
        prepare("text", "uk")
    with pytest.raises(InputError, match="empty"):
        prepare("  ", "en")
    with pytest.raises(InputError, match="100 sentinels"):
        prepare(" ".join(f"<extra_id_{i}>" for i in range(101)), "en")


def test_a_model_without_sentinels_is_refused(tmp_path):
    from tiny_models import save_tiny_bert

    with pytest.raises(InputError, match=r"cannot load the seq2seq model|no T5 sentinels"):
        Seq2SeqStatePredictor(save_tiny_bert(tmp_path / "bert", ["a b c"]))
