"""Detectors on slices of the real data: the protocol, saving as JSON + npz, and refusing bad model files."""

import json

import numpy as np
import pytest

from affectlab.datasets import resolve_dataset
from affectlab.detectors import MODELS, create_detector, detector_class, read_detector
from affectlab.detectors.serialization import ARRAYS, CONFIG
from affectlab.errors import InputError, ModelFileError, UnknownNameError


@pytest.fixture(scope="module")
def emobench(data_dir):
    spec, data = resolve_dataset("emobench-ua", data_dir)
    return spec.label_space, data["train"].select(range(600)), data["test"].select(range(200))


@pytest.fixture(scope="module")
def emocontext(data_dir):
    spec, data = resolve_dataset("emocontext", data_dir)
    return spec.label_space, data["train"].select(range(1500)), data["test"].select(range(200))


def small(name):
    params = {"n_estimators": 10, "n_jobs": 1} if name == "tfidf-rf" else {}
    return create_detector(name, **params)


@pytest.mark.parametrize("name", ["keywords", "tfidf-lr", "tfidf-rf"])  # embedding kinds: test_embeddings.py
def test_multilabel_protocol_and_round_trip(name, emobench, tmp_path):
    space, train, test = emobench
    model = small(name).fit(train, space.encode(train["labels"]), space)
    probs = model.predict_proba(test)
    assert probs.shape == (len(test), len(space))
    assert ((probs >= 0) & (probs <= 1)).all()
    predicted = model.predict(test)
    assert predicted.sum(axis=1).min() >= 1  # every text gets at least one label
    model.save(tmp_path / "m")
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == [ARRAYS, CONFIG]
    loaded = read_detector(tmp_path / "m")
    assert type(loaded) is type(model) and loaded.label_space == space
    np.testing.assert_array_equal(loaded.predict_proba(test), probs)
    np.testing.assert_array_equal(loaded.predict(test), predicted)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tfidf-lr", "tfidf-rf"])
def test_single_label_probabilities_sum_to_one(name, emocontext, tmp_path):
    space, train, test = emocontext
    model = small(name).fit(train, space.encode(train["labels"]), space)
    probs = model.predict_proba(test)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-6)
    assert (model.predict(test).sum(axis=1) == 1).all()
    model.save(tmp_path / "m")
    np.testing.assert_allclose(read_detector(tmp_path / "m").predict_proba(test), probs)


def test_context_turns_become_a_feature_block(emocontext):
    space, train, _ = emocontext
    model = create_detector("tfidf-lr").fit(train, space.encode(train["labels"]), space)
    assert list(model.features_.blocks_) == ["word", "char", "context"]


def test_keywords_are_lemmas_typical_of_each_label(emobench):
    space, train, _ = emobench
    model = create_detector("keywords").fit(train, space.encode(train["labels"]), space)
    keywords = model.keywords()
    assert all(len(words) <= 20 for words in keywords.values())
    assert {"боятися", "страшно"} & set(keywords["fear"])  # fear: "to be afraid", "scary"
    assert model.predict_labels(["Я дуже боюся, мені страшно"]) == [["fear"]]
    assert model.predict_labels(["Сьогодні вівторок"]) == [["none"]]  # no keyword hit


def test_plain_strings_are_accepted(emobench):
    space, train, _ = emobench
    model = create_detector("tfidf-lr").fit(train, space.encode(train["labels"]), space)
    assert model.predict_proba("Яка радість!").shape == (1, 7)
    assert model.predict_proba([]).shape == (0, 7)


def test_unknown_parameter_and_model_name():
    with pytest.raises(InputError, match="no parameter"):
        create_detector("tfidf-lr", C_value=3)
    with pytest.raises(UnknownNameError, match="did you mean 'tfidf-lr'"):
        create_detector("tfidf-lrr")


def test_unfitted_model_says_so():
    with pytest.raises(InputError, match="not trained"):
        create_detector("keywords").predict_proba(["x"])


@pytest.fixture
def saved(emobench, tmp_path):
    space, train, _ = emobench
    model = create_detector("tfidf-lr").fit(train, space.encode(train["labels"]), space)
    model.save(tmp_path / "m")
    return tmp_path / "m"


def test_tampered_arrays_are_refused(saved):
    data = bytearray((saved / ARRAYS).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (saved / ARRAYS).write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match="checksum"):
        read_detector(saved)


def test_edited_config_is_refused(saved):
    config = json.loads((saved / CONFIG).read_text())
    config["decision"]["values"][0] = 0.01
    (saved / CONFIG).write_text(json.dumps(config))
    with pytest.raises(ModelFileError, match="modified"):
        read_detector(saved)


def test_foreign_directories_are_refused(tmp_path):
    with pytest.raises(ModelFileError, match=r"no config\.json"):
        read_detector(tmp_path)
    (tmp_path / CONFIG).write_text('{"architectures": ["BertModel"]}')
    with pytest.raises(ModelFileError, match="foreign"):
        read_detector(tmp_path)
    (tmp_path / CONFIG).write_text("not json")
    with pytest.raises(ModelFileError, match="not valid JSON"):
        read_detector(tmp_path)


def test_pickled_arrays_are_never_loaded(saved):
    # an npz holding an object array (which only pickle can load) with a matching checksum must still fail
    import hashlib

    with np.load(saved / ARRAYS) as npz:
        arrays = {name: npz[name] for name in npz.files}
    unsafe = next(name for name in arrays if "coef" in name)
    np.savez(saved / ARRAYS, **{**arrays, unsafe: np.array([{"a": 1}], dtype=object)})
    config = json.loads((saved / CONFIG).read_text())
    config["arrays_sha256"] = hashlib.sha256((saved / ARRAYS).read_bytes()).hexdigest()
    from affectlab.detectors.serialization import _config_digest

    config["config_sha256"] = _config_digest(config)
    (saved / CONFIG).write_text(json.dumps(config))
    with pytest.raises(ModelFileError, match="cannot be read safely"):
        read_detector(saved)


@pytest.mark.parametrize("kind", list(MODELS))
def test_every_registered_kind_is_the_name_of_its_class(kind):
    assert detector_class(kind).name == kind
