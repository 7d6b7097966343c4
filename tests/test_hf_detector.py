"""The ``hf`` detector on a tiny random BERT with a WordPiece tokenizer built here (no download): fine-tuning
lowers the loss, probabilities come in label-space order, saving keeps the safetensors weights under checksums,
dialogue context is encoded as a text pair, and train_detector early-stops on dev and tunes the thresholds."""

import json

import numpy as np
import pytest
from sklearn.metrics import f1_score

pytest.importorskip("torch")
pytest.importorskip("transformers")

from datasets import Dataset, DatasetDict

from affectlab.datasets import DatasetSpec, resolve_dataset
from affectlab.detectors.batch import as_inputs
from affectlab.detectors.hf import HFEncoderDetector
from affectlab.detectors.serialization import CONFIG, read_model_dir
from affectlab.errors import InputError, ModelFileError
from affectlab.evaluation.training import train_detector
from affectlab.labels import EKMAN, EMOCONTEXT
from tiny_models import TOY_SPACE as SPACE
from tiny_models import TOY_TEXTS as TEXTS
from tiny_models import TOY_Y as Y
from tiny_models import save_tiny_bert

TINY = {"epochs": 20, "batch_size": 4, "lr": 1e-2, "max_length": 32, "patience": None}


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory):
    """A 2-layer BERT (hidden 32) with a WordPiece vocabulary trained on the test sentences, saved locally."""
    return str(save_tiny_bert(tmp_path_factory.mktemp("tiny-bert"), [*TEXTS, "hello how are you", "i feel sad"]))


@pytest.fixture(scope="module")
def trained(tiny_encoder):
    reports = []
    model = HFEncoderDetector(model=tiny_encoder, **TINY).fit(TEXTS, Y, SPACE, progress=reports.append)
    return model, reports


def test_fine_tuning_lowers_the_training_loss(trained):
    model, reports = trained
    losses = [epoch["train_loss"] for epoch in model.history_]
    assert len(losses) == TINY["epochs"]
    assert losses[-1] < 0.7 * losses[0]
    assert reports[-1].fraction == pytest.approx(1.0) and "epoch 20/20" in str(reports[-1])


def test_probabilities_are_in_label_space_order(trained):
    model, _ = trained
    probs = model.predict_proba(TEXTS)
    assert probs.shape == (len(TEXTS), len(SPACE))
    assert ((probs > 0) & (probs < 1)).all()
    assert (probs.argmax(axis=1)[:6] == Y[:6].argmax(axis=1)).mean() >= 5 / 6  # learned the training labels
    # one text at a time gives the same numbers as the length-sorted batches
    np.testing.assert_allclose(model.predict_proba([TEXTS[3]])[0], probs[3], atol=1e-5)


def test_save_and_load_round_trip_gives_identical_probabilities(trained, tmp_path, capfd):
    model, _ = trained
    capfd.readouterr()
    model.save(tmp_path / "m")
    config, _ = read_model_dir(tmp_path / "m")
    assert "encoder/model.safetensors" in config["files"]
    assert not [p for p in (tmp_path / "m").rglob("*") if p.suffix in (".bin", ".pt", ".pkl")]
    loaded = HFEncoderDetector.from_saved(*read_model_dir(tmp_path / "m"))
    np.testing.assert_array_equal(loaded.predict_proba(TEXTS), model.predict_proba(TEXTS))
    assert loaded.history_ == model.history_
    assert capfd.readouterr() == ("", "")  # the library draws no progress bars of its own


def test_int8_storage_is_smaller_and_predicts_almost_the_same(trained, tmp_path):
    model, _ = trained
    model.save(tmp_path / "fp32")
    small = HFEncoderDetector.from_saved(*read_model_dir(tmp_path / "fp32"))
    small.params["weight_storage"] = "int8"
    small.save(tmp_path / "int8")
    config, _ = read_model_dir(tmp_path / "int8")
    assert "encoder/model.int8.safetensors" in config["files"] and "encoder/model.safetensors" not in config["files"]
    sizes = {name: (tmp_path / name / "encoder").stat().st_size for name in ("fp32", "int8")}
    weights = {
        name: (tmp_path / name / "encoder" / file).stat().st_size
        for name, file in (("fp32", "model.safetensors"), ("int8", "model.int8.safetensors"))
    }
    assert weights["int8"] < 0.4 * weights["fp32"], sizes
    loaded = HFEncoderDetector.from_saved(*read_model_dir(tmp_path / "int8"))
    np.testing.assert_allclose(loaded.predict_proba(TEXTS), model.predict_proba(TEXTS), atol=0.02)
    assert (loaded.predict(TEXTS) == model.predict(TEXTS)).mean() > 0.9


def test_a_tampered_safetensors_file_is_refused(trained, tmp_path):
    model, _ = trained
    model.save(tmp_path / "m")
    weights = tmp_path / "m" / "encoder" / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match="checksum"):
        read_model_dir(tmp_path / "m")


def test_context_turns_are_encoded_as_the_text_pair(tiny_encoder):
    space = EMOCONTEXT
    texts = ["i am so happy", "i am angry", "i feel sad", "hello how are you"] * 2
    contexts = [["hello how are you", "what a day"]] * 8
    examples = [{"text": t, "context": c} for t, c in zip(texts, contexts, strict=True)]
    y = space.encode([["happy"], ["angry"], ["sad"], ["others"]] * 2)
    model = HFEncoderDetector(model=tiny_encoder, **{**TINY, "epochs": 2}).fit(examples, y, space)
    encoded = model._encode(as_inputs(examples))
    ids, segments = encoded["input_ids"][0], encoded["token_type_ids"][0]
    assert ids.count(model.tokenizer_.sep_token_id) == 3  # text [SEP] turn [SEP] turn [SEP]
    assert segments[0] == 0 and segments[-1] == 1
    probs = model.predict_proba(examples)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-6)
    assert (model.predict(examples).sum(axis=1) == 1).all()
    # the context changes the prediction input: without it the probabilities differ
    assert not np.allclose(model.predict_proba(texts), probs)


def test_train_detector_stops_early_on_dev_and_tunes_thresholds(tiny_encoder):
    rows = [{"text": t, "labels": [SPACE.labels[j] for j in np.flatnonzero(y)]} for t, y in zip(TEXTS, Y, strict=True)]

    def split(part):
        return Dataset.from_dict(
            {
                "id": [str(i) for i in range(len(part))],
                "text": [r["text"] for r in part],
                "context": [[] for _ in part],
                "labels": [r["labels"] for r in part],
                "lang": ["en"] * len(part),
                "meta": ["{}"] * len(part),
            }
        )

    data = DatasetDict({"train": split(rows), "dev": split(rows[::-1])})
    spec = DatasetSpec("tiny", "tiny", SPACE, "macro_f1", ("en",), ("train", "dev"), lambda _d: data, "", "", "")
    model = HFEncoderDetector(model=tiny_encoder, **{**TINY, "epochs": 30, "patience": 2})
    stages = []
    summary = train_detector(model, spec, data, progress=stages.append)
    assert len(model.history_) < 30  # stopped early: dev macro-F1 stopped improving
    assert all(epoch["dev_score"] is not None for epoch in model.history_)
    assert any("dev macro-F1" in stage for stage in stages)
    assert summary["n_tuning"] == len(data["dev"])  # no five-fold refits of an encoder
    # tuned on dev, never worse there than the untuned thresholds (where they land depends on the tiny model, whose
    # WordPiece vocabulary the tokenizers trainer may order differently from one process to the next)
    assert model.decision_.rule == "thresholds"
    dev_texts, y_dev = list(data["dev"]["text"]), SPACE.encode(data["dev"]["labels"])
    untuned = (model.predict_proba(dev_texts) >= 0.5).astype(int)
    tuned_f1 = f1_score(y_dev, model.predict(dev_texts), average="macro", zero_division=0)
    assert tuned_f1 >= f1_score(y_dev, untuned, average="macro", zero_division=0)


def test_presets_set_the_app_h_learning_rate_unless_given():
    assert HFEncoderDetector(model="x", preset="labse").params["lr"] == 1e-4
    assert HFEncoderDetector(model="x", preset="xlm-roberta-large").params["batch_size"] == 64
    assert HFEncoderDetector(model="x", preset="labse", lr=3e-5).params["lr"] == 3e-5
    with pytest.raises(InputError, match="unknown hf preset"):
        HFEncoderDetector(model="x", preset="labsee")
    with pytest.raises(InputError, match="pooling"):
        HFEncoderDetector(model="x", pooling="max")


def test_a_missing_encoder_is_one_clear_error(tmp_path):
    with pytest.raises(InputError, match="cannot load the Hugging Face encoder"):
        HFEncoderDetector(model=str(tmp_path), **TINY).fit(TEXTS, Y, SPACE)


def test_real_emobench_slice_with_mean_pooling_and_capped_weights(tiny_encoder, data_dir, tmp_path):
    spec, data = resolve_dataset("emobench-ua", data_dir)
    train = data["train"].select(range(64))
    model = HFEncoderDetector(model=tiny_encoder, pooling="mean", class_weight="capped", epochs=1, max_length=32)
    model.fit(train, EKMAN.encode(train["labels"]), spec.label_space)
    probs = model.predict_proba(data["test"].select(range(16)))
    assert probs.shape == (16, len(EKMAN))
    model.save(tmp_path / "m")
    saved = json.loads((tmp_path / "m" / CONFIG).read_text())
    assert saved["params"]["pooling"] == "mean" and saved["state"]["uses_context"] is False


def test_length_grouped_batches_cover_every_text_once_with_less_padding():
    from affectlab.encoders.hf_training import training_batches

    lengths = np.random.default_rng(1).integers(5, 120, size=1000)
    grouped = training_batches(lengths, 10, np.random.default_rng(0), by_length=True)
    plain = training_batches(lengths, 10, np.random.default_rng(0), by_length=False)
    for batches in (grouped, plain):
        assert sorted(np.concatenate(batches).tolist()) == list(range(1000))

    def padded(batches):
        return sum(len(rows) * lengths[rows].max() for rows in batches)

    assert padded(grouped) < 0.7 * padded(plain)
