"""Ensembles with an optional member (the default GoEmotions head's fine-tuned encoder): where the member's extra
is missing the ensemble loads without it, with the weights and decision tuned for the other members, and says so;
``build-default --english-encoder`` machinery fine-tunes, stores int8 and re-tunes the weights on dev."""

import numpy as np
import pytest

from affectlab.detectors import read_detector
from affectlab.detectors.ensemble import EnsembleDetector
from affectlab.detectors.keywords import KeywordDetector
from affectlab.errors import InputError, ModelFileError
from affectlab.extras import MissingExtraError
from affectlab.labels import LabelSpace
from affectlab.metrics.thresholds import Decision

SPACE = LabelSpace(name="tiny", labels=("joy", "anger"), multi_label=True)
TEXTS = ["so happy and glad", "happy happy joy", "angry and mad", "furious angry day", "glad but mad", "calm"] * 3
Y = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [1, 1], [0, 0]] * 3)


def fitted_ensemble() -> EnsembleDetector:
    model = EnsembleDetector(members=["tfidf-lr", "keywords"], optional=[1], weights=[0.3, 0.7]).fit(TEXTS, Y, SPACE)
    model.decision_ = Decision.default(SPACE, "thresholds")
    model.without_optional_ = {"weights": [1.0], "decision": {**model.decision_.to_dict()}}
    return model


def test_optional_members_must_come_last():
    with pytest.raises(InputError, match="must be the last ones"):
        EnsembleDetector(members=["tfidf-lr", "keywords"], optional=[0])


def test_saving_needs_the_fallback_weights_and_decision(tmp_path):
    model = EnsembleDetector(members=["tfidf-lr", "keywords"], optional=[1]).fit(TEXTS, Y, SPACE)
    with pytest.raises(InputError, match="without_optional_"):
        model.save(tmp_path / "m")


def test_loads_with_all_members_where_their_extras_are_installed(tmp_path):
    model = fitted_ensemble()
    model.save(tmp_path / "m")
    loaded = read_detector(tmp_path / "m")
    assert loaded.capabilities.left_out == () and len(loaded.members_) == 2
    np.testing.assert_allclose(loaded.predict_proba(TEXTS), model.predict_proba(TEXTS))


def test_a_missing_extra_leaves_the_optional_member_out(tmp_path, monkeypatch):
    model = fitted_ensemble()
    model.save(tmp_path / "m")

    def missing(*_args):
        raise MissingExtraError("the keywords member needs the torch package: pip install 'affectlab[hf]'")

    monkeypatch.setattr(KeywordDetector, "_set_state", missing)
    loaded = read_detector(tmp_path / "m")
    assert loaded.capabilities.left_out == (
        "keywords member left out: the keywords member needs the torch package: pip install 'affectlab[hf]'",
    )
    assert [m.name for m in loaded.members_] == ["tfidf-lr"] and loaded.weights_.tolist() == [1.0]
    np.testing.assert_allclose(loaded.predict_proba(TEXTS), model.members_[0].predict_proba(TEXTS))
    np.testing.assert_allclose(loaded.predict_proba(TEXTS), model.without_optional_members().predict_proba(TEXTS))
    with pytest.raises(ModelFileError, match="loaded without some members"):
        loaded.save(tmp_path / "again")


def test_a_required_member_with_a_missing_extra_is_an_error(tmp_path, monkeypatch):
    model = EnsembleDetector(members=["keywords", "tfidf-lr"]).fit(TEXTS, Y, SPACE)
    model.save(tmp_path / "m")

    def missing(*_args):
        raise MissingExtraError("needs torch")

    monkeypatch.setattr(KeywordDetector, "_set_state", missing)
    with pytest.raises(MissingExtraError, match="needs torch"):
        read_detector(tmp_path / "m")


@pytest.mark.slow
def test_english_encoder_member_is_fine_tuned_stored_int8_and_joins_the_head(data_dir, tmp_path, monkeypatch):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from affectlab.build import english as default
    from affectlab.detectors.serialization import read_model_dir
    from affectlab.labels import EKMAN
    from tiny_models import save_tiny_bert

    encoder_dir = save_tiny_bert(tmp_path / "bert", ["Я так чекала на цей день", "мені страшно і сумно", "злий"])
    monkeypatch.setattr(default, "ENGLISH_ENCODER_RECIPE", {**default.ENGLISH_ENCODER_RECIPE, "epochs": 1})
    recipe = default.HeadRecipe("tiny", EKMAN, {"": ("emobench-ua",)}, scored_on=("emobench-ua",))
    base = EnsembleDetector(members=["keywords", "tfidf-lr"])
    from affectlab.datasets import resolve_dataset
    from affectlab.evaluation.training import train_detector

    spec, data = resolve_dataset("emobench-ua", data_dir)
    train_detector(base, spec, data)
    member = default.english_encoder_member(encoder_dir, recipe, data_dir, progress=lambda _s: None)
    assert member.params["weight_storage"] == "int8" and member.params["max_length"] == 64
    head = default.add_optional_member(base, member, recipe, data_dir, progress=lambda _s: None)
    assert head.params["members"] == ["keywords", "tfidf-lr", "hf"] and head.params["optional"] == [2]
    assert head.weights_.sum() == pytest.approx(1.0) and len(head.weights_) == 3
    head.save(tmp_path / "head")
    config, _ = read_model_dir(tmp_path / "head")
    assert any(name.endswith("model.int8.safetensors") for name in config["files"])
    loaded = read_detector(tmp_path / "head")
    np.testing.assert_allclose(
        loaded.predict_proba(data["test"][:20]["text"]), head.predict_proba(data["test"][:20]["text"]), atol=1e-6
    )
    # the saved member is read back as a finished model by a second build
    member.save(tmp_path / "member")
    again = default.english_encoder_member(tmp_path / "member", recipe, data_dir, progress=lambda _s: None)
    np.testing.assert_allclose(again.predict_proba(["злий"]), member.predict_proba(["злий"]), atol=1e-6)
    fallback = head.without_optional_members()
    np.testing.assert_array_equal(fallback.predict(data["test"][:20]["text"]), base.predict(data["test"][:20]["text"]))
