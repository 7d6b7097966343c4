"""Translation (a tiny random NLLB model built here), its cache, translate-train, the translate-test detector and
ensembles of any registered detectors.

The tiny model translates into gibberish, but deterministic, input-dependent gibberish: enough to check order,
batching, caching and that a detector sees exactly the translator's output. MarianMT's tokenizer needs
sentencepiece models, which cannot be built here, so Marian is checked up to its direction handling only."""

import json

import numpy as np
import pytest

from affectlab.detectors import create_detector, read_detector
from affectlab.detectors.ensemble import (
    EnsembleDetector,
    combine,
    member_specs,
    nest_arrays,
    unnest_arrays,
    weight_grid,
)
from affectlab.detectors.translated import TranslateTestDetector, label_columns, shared_translator
from affectlab.encoders.translation import (
    CachedTranslator,
    HFTranslator,
    marian_direction,
    nllb_code,
    short_code,
    translate_dataset,
)
from affectlab.errors import InputError, UnknownNameError
from affectlab.labels import EKMAN, LabelSpace

pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

UK_TEXTS = ["я дуже щасливий", "а", "мені сумно", "жах", "дуже дуже страшно сьогодні", "мені страшно", "злий"]
CHARS = "abcdefghijklmnopqrstuvwxyzабвгґдеєжзиіїйклмнопрстуфхцчшщьюя▁"


@pytest.fixture(scope="module")
def nllb_dir(tmp_path_factory):
    """A tiny random NLLB (M2M100 architecture, NLLB tokenizer with a character vocabulary) saved to disk.
    ``init_std`` is raised from 0.02 so that the random model's output depends on its input."""
    import torch

    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, **{c: i + 4 for i, c in enumerate(CHARS)}}
    tokenizer = transformers.NllbTokenizer(
        vocab=vocab, merges=[], additional_special_tokens=["eng_Latn", "ukr_Cyrl", "spa_Latn"]
    )
    config = transformers.M2M100Config(
        vocab_size=len(tokenizer),
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        max_position_embeddings=64,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        decoder_start_token_id=2,
        init_std=0.7,
    )
    torch.manual_seed(2)
    path = tmp_path_factory.mktemp("models") / "tiny-nllb"
    transformers.M2M100ForConditionalGeneration(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


class CountingTranslator:
    """Passes every call on to a real translator and records the texts it was asked for."""

    def __init__(self, inner):
        self.inner = inner
        self.identity = inner.identity
        self.calls = []

    def translate(self, texts, source, target):
        self.calls.append(list(texts))
        return self.inner.translate(texts, source, target)


@pytest.fixture(scope="module")
def translator(nllb_dir):
    return HFTranslator(nllb_dir, batch_size=2, max_length=8)


@pytest.fixture(autouse=True)
def _fresh_shared_translators():
    """Each test's translate-test detectors open their translator (and cache) anew, in that test's cache dir."""
    shared_translator.clear()
    yield
    shared_translator.clear()


# --- the translator ---------------------------------------------------------------------------------------------


def test_length_sorted_batches_give_each_text_its_own_translation(translator):
    batched = translator.translate(UK_TEXTS, "uk", "en")
    one_by_one = [translator.translate([text], "uk", "en")[0] for text in UK_TEXTS]
    assert len(set(one_by_one)) >= 4  # the random model must tell inputs apart for this test to mean anything
    assert batched == one_by_one


def test_blank_texts_stay_blank(translator):
    out = translator.translate(["", UK_TEXTS[0], "  "], "uk", "en")
    assert out[0] == "" and out[2] == "" and out[1] == translator.translate([UK_TEXTS[0]], "uk", "en")[0]


def test_nllb_sets_the_source_code_and_forces_the_target_code(translator):
    tokenizer = translator.tokenizer
    inputs, kwargs = translator.encode(["мені сумно"], "uk", "en")
    assert inputs["input_ids"][0, 0] == tokenizer.convert_tokens_to_ids("ukr_Cyrl")
    assert kwargs["forced_bos_token_id"] == tokenizer.convert_tokens_to_ids("eng_Latn")
    generated = translator.model.generate(**inputs, **kwargs)
    assert generated[0, 1] == tokenizer.convert_tokens_to_ids("eng_Latn")
    _, to_spanish = translator.encode(["мені сумно"], "ukr_Cyrl", "spa_Latn")
    assert to_spanish["forced_bos_token_id"] == tokenizer.convert_tokens_to_ids("spa_Latn")


def test_unknown_languages_are_refused(translator):
    with pytest.raises(InputError, match="no NLLB code"):
        translator.translate(["x"], "uk", "xx")
    with pytest.raises(InputError, match="no language code 'fra_Latn'"):
        translator.translate(["x"], "uk", "fr")  # a real NLLB code this tiny model lacks


def test_language_codes():
    assert [nllb_code(lang) for lang in ("uk", "eng", "spa_Latn")] == ["ukr_Cyrl", "eng_Latn", "spa_Latn"]
    assert [short_code(lang) for lang in ("ukr_Cyrl", "eng", "es", "")] == ["uk", "en", "es", ""]


def test_marian_translates_one_direction_only(tmp_path):
    named = tmp_path / "opus-mt-uk-en"
    transformers.MarianConfig(vocab_size=10, d_model=16).save_pretrained(named)
    assert marian_direction(named) == ("uk", "en")
    configured = tmp_path / "my-marian"
    transformers.MarianConfig(vocab_size=10, d_model=16).save_pretrained(configured)
    (configured / "tokenizer_config.json").write_text(json.dumps({"source_lang": "en", "target_lang": "uk"}))
    translator = HFTranslator(configured)
    assert translator.family == "marian" and marian_direction(configured) == ("en", "uk")
    with pytest.raises(InputError, match="en->uk only"):
        translator.translate(["мені сумно"], "uk", "en")


def test_cache_translates_each_distinct_text_once(translator, tmp_path):
    counting = CountingTranslator(translator)
    first = CachedTranslator(counting, directory=tmp_path).translate([*UK_TEXTS, UK_TEXTS[0]], "uk", "en")
    assert len(counting.calls) == 1 and sorted(counting.calls[0]) == sorted(UK_TEXTS)  # the repeat went once
    assert first[-1] == first[0] and first[:-1] == translator.translate(UK_TEXTS, "uk", "en")
    reopened = CachedTranslator(counting, directory=tmp_path)  # a later run reads the same database
    assert reopened.translate(UK_TEXTS[::-1], "uk", "en") == first[:-1][::-1]
    assert len(counting.calls) == 1 and len(reopened) == len(UK_TEXTS)
    reopened.translate(UK_TEXTS[:1], "uk", "es")  # another direction is another translation
    assert counting.calls[-1] == UK_TEXTS[:1]


# --- translate-train ----------------------------------------------------------------------------------------------


def test_translate_dataset_keeps_ids_and_labels_and_marks_the_language(translator):
    from affectlab.datasets.schema import example, to_dataset_dict

    rows = [
        example("1", "мені сумно", ["sadness"], "uk", context=["жах", "а"], meta={"source": "x"}),
        example("2", "я дуже щасливий", ["joy"], "uk"),
    ]
    data = to_dataset_dict({"train": rows, "test": rows[:1]})
    translated = translate_dataset(data, translator, "uk", "en")
    train = translated["train"]
    assert train["id"] == ["1", "2"] and train["labels"] == [["sadness"], ["joy"]]
    assert train["lang"] == ["en", "en"] and train.features == data["train"].features
    assert train["text"] == translator.translate(["мені сумно", "я дуже щасливий"], "uk", "en")
    assert train["context"] == [translator.translate(["жах", "а"], "uk", "en"), []]
    meta = json.loads(train["meta"][0])
    assert meta["source"] == "x" and meta["translation"]["source_text"] == "мені сумно"
    assert meta["translation"]["translator"] == translator.identity
    assert len(translated["test"]) == 1


# --- translate-test -----------------------------------------------------------------------------------------------

EN_TRAIN = [
    ("I am so happy and glad", ["joy"]),
    ("what a joyful wonderful day", ["joy"]),
    ("happy happy joy", ["joy"]),
    ("I am scared and afraid", ["fear"]),
    ("this is terrifying, I am afraid", ["fear"]),
    ("so scared of the dark", ["fear"]),
    ("I am sad and crying", ["sadness"]),
    ("such a sad lonely evening", ["sadness"]),
    ("sad news, I miss her", ["sadness"]),
    ("the bus leaves at noon", ["none"]),
    ("the meeting is on tuesday", ["none"]),
    ("a table and a chair", ["none"]),
]


@pytest.fixture
def english_base(tmp_path):
    """A tfidf-lr detector trained on a tiny English set, saved to disk."""
    texts = [text for text, _ in EN_TRAIN]
    base = create_detector("tfidf-lr").fit(texts, EKMAN.encode([labels for _, labels in EN_TRAIN]), EKMAN)
    base.save(tmp_path / "english-base")
    return tmp_path / "english-base"


def test_translate_test_scores_translated_inputs_with_the_saved_base(nllb_dir, english_base, tmp_path):
    model = TranslateTestDetector(translator=str(nllb_dir), base=str(english_base), max_length=8)
    model.fit(UK_TEXTS, np.zeros((len(UK_TEXTS), len(EKMAN))), EKMAN)  # nothing is trained
    base = read_detector(english_base)
    translated = model.translator.translate(UK_TEXTS, "uk", "en")
    np.testing.assert_allclose(model.predict_proba(UK_TEXTS), base.predict_proba(translated))
    np.testing.assert_array_equal(model.decision_.values, base.decision_.values)
    model.save(tmp_path / "translate-test")
    loaded = read_detector(tmp_path / "translate-test")
    np.testing.assert_allclose(loaded.predict_proba(UK_TEXTS), model.predict_proba(UK_TEXTS))
    np.testing.assert_array_equal(loaded.predict(UK_TEXTS), model.predict(UK_TEXTS))


def test_translate_test_passes_target_language_rows_through(nllb_dir, english_base):
    model = TranslateTestDetector(translator=str(nllb_dir), base=str(english_base), max_length=8)
    model.fit(UK_TEXTS[:1], np.zeros((1, len(EKMAN))), EKMAN)
    counting = CountingTranslator(model.translator)
    model.use_translator(counting)
    rows = [{"text": "I am so scared", "lang": "en"}, {"text": "мені страшно", "lang": "uk"}]
    probs = model.predict_proba(rows)
    assert counting.calls == [["мені страшно"]]
    expected = read_detector(english_base).predict_proba(["I am so scared"])
    np.testing.assert_allclose(probs[0], expected[0])


def test_translate_test_serves_a_subset_of_the_base_labels(nllb_dir, english_base):
    no_disgust = LabelSpace("ekman-no-disgust", tuple(x for x in EKMAN.labels if x != "disgust"), True, "none")
    model = TranslateTestDetector(translator=str(nllb_dir), base=str(english_base), max_length=8)
    model.fit(UK_TEXTS[:1], np.zeros((1, len(no_disgust))), no_disgust)
    full = TranslateTestDetector(translator=str(nllb_dir), base=str(english_base), max_length=8)
    full.fit(UK_TEXTS[:1], np.zeros((1, len(EKMAN))), EKMAN)
    columns = [EKMAN.labels.index(label) for label in no_disgust.labels]
    np.testing.assert_allclose(model.predict_proba(UK_TEXTS), full.predict_proba(UK_TEXTS)[:, columns])
    with pytest.raises(InputError, match="lacks disgust"):
        label_columns(no_disgust, EKMAN)


def test_translate_test_with_a_model_kind_trains_it_on_translated_texts(nllb_dir):
    texts, y = UK_TEXTS, EKMAN.encode([["joy"], ["none"], ["sadness"], ["fear"], ["fear"], ["fear"], ["anger"]])
    model = TranslateTestDetector(translator=str(nllb_dir), base="tfidf-lr", max_length=8).fit(texts, y, EKMAN)
    translated = model.translator.translate(texts, "uk", "en")
    direct = create_detector("tfidf-lr").fit(translated, y, EKMAN)
    np.testing.assert_allclose(model.predict_proba(texts), direct.predict_proba(translated))


def test_training_a_translate_test_detector_translates_dev_only(nllb_dir, english_base):
    from affectlab.datasets.schema import example, to_dataset_dict
    from affectlab.datasets.spec import DatasetSpec
    from affectlab.evaluation.training import train_detector

    labels = [["joy"], ["none"], ["sadness"], ["fear"], ["fear"], ["fear"], ["anger"]]
    rows = [example(str(i), text, y, "uk") for i, (text, y) in enumerate(zip(UK_TEXTS, labels, strict=True))]
    data = to_dataset_dict({"train": rows, "dev": rows[:4]})
    spec = DatasetSpec("tiny-uk", "tiny", EKMAN, "macro_f1", ("uk",), ("train", "dev"), lambda _: data, "", "", "")
    model = TranslateTestDetector(translator=str(nllb_dir), base=str(english_base), max_length=8)
    counting = CountingTranslator(model.translator)
    model.use_translator(counting)
    train_detector(model, spec, data)
    assert counting.calls == [UK_TEXTS[:4]]  # no training, and no out-of-fold translation of train
    assert not model.capabilities.cheap_to_refit


def test_translate_test_needs_a_translator_and_base_params_only_for_kinds(english_base):
    with pytest.raises(InputError, match="translator=DIR"):
        TranslateTestDetector(base="tfidf-lr")
    with pytest.raises(InputError, match="base_params"):
        TranslateTestDetector(translator="x", base=str(english_base), base_params={"C": 1.0})


# --- ensembles of any registered detectors --------------------------------------------------------------------------


def test_member_specs_read_both_forms():
    specs = member_specs(["keywords", {"model": "tfidf-lr", "params": {"max_features": 50}}])
    assert specs == [("keywords", {}), ("tfidf-lr", {"max_features": 50})]
    assert member_specs(["embedding-lr", "tfidf-lr"], [{}, {"max_features": 9}])[1] == ("tfidf-lr", {"max_features": 9})
    with pytest.raises(InputError, match="member_params"):
        member_specs(["keywords"], [{}, {}])
    with pytest.raises(UnknownNameError, match="did you mean 'keywords'"):
        create_detector("ensemble", members=["keyword", "tfidf-lr"])


def test_the_two_member_grid_is_the_grid_the_shipped_heads_were_tuned_on():
    shipped = [np.array([w, 1.0 - w]) for w in np.round(np.arange(0.0, 1.01, 0.1), 2)]
    assert all(np.array_equal(a, b) for a, b in zip(weight_grid(2), shipped, strict=True))
    three = list(weight_grid(3))
    assert len(three) == 66 and all(np.isclose(w.sum(), 1.0) and (w >= -1e-12).all() for w in three)
    assert 20 <= len(list(weight_grid(5))) <= 100


def test_default_ensemble_is_still_embedding_and_ngrams():
    from affectlab.detectors.default import load_default

    model = create_detector("ensemble")
    assert [member.name for member in model.members_] == ["embedding-lr", "tfidf-lr"]
    head = load_default("ekman")
    for member in head.members_.values():  # saved in the short form; loads as before
        assert isinstance(member, EnsembleDetector)
        assert [m.name for m in member.members_] == ["embedding-lr", "tfidf-lr"]
        assert len(member.weights_) == 2 and abs(sum(member.weights_) - 1) < 1e-9  # tuned on dev, not a parameter


@pytest.fixture(scope="module")
def emobench_small(data_dir):
    from datasets import DatasetDict

    from affectlab.datasets import resolve_dataset

    spec, data = resolve_dataset("emobench-ua", data_dir)
    small = DatasetDict(
        {"train": data["train"].select(range(200)), "dev": data["dev"].select(range(80)), "test": data["test"]}
    )
    return spec, small, data["test"].select(range(40))


def test_ensemble_of_keywords_and_tfidf_tunes_weights_on_dev_and_round_trips(emobench_small, tmp_path):
    from affectlab.evaluation.training import train_detector

    spec, data, test = emobench_small
    members = [{"model": "keywords"}, {"model": "tfidf-lr", "params": {"max_features": 2000}}]
    model = create_detector("ensemble", members=members)
    train_detector(model, spec, data, cv_thresholds=False)
    weights = model.weights_
    assert any(np.array_equal(weights, w) for w in weight_grid(2))
    np.testing.assert_allclose(model.predict_proba(test), combine(model.member_probas(test), weights))
    model.save(tmp_path / "ensemble")
    loaded = read_detector(tmp_path / "ensemble")
    assert [m.name for m in loaded.members_] == ["keywords", "tfidf-lr"]
    np.testing.assert_array_equal(loaded.predict_proba(test), model.predict_proba(test))
    np.testing.assert_array_equal(loaded.predict(test), model.predict(test))


def test_member_files_are_saved_in_the_member_subdirectory(tmp_path):
    from affectlab.detectors.serialization import read_model_dir, write_model_dir

    member = {"coef": np.arange(3.0), "file:encoder/model.safetensors": np.frombuffer(b"weights", dtype=np.uint8)}
    nested = nest_arrays("member1", member)
    assert set(nested) == {"member1/coef", "file:member1/encoder/model.safetensors"}
    write_model_dir(tmp_path / "m", {"model": "ensemble"}, {**nested, "member0/coef": np.zeros(1)})
    assert (tmp_path / "m" / "member1" / "encoder" / "model.safetensors").read_bytes() == b"weights"
    _, arrays = read_model_dir(tmp_path / "m")
    back = unnest_arrays("member1", arrays)
    assert set(back) == set(member) and back["file:encoder/model.safetensors"].tobytes() == b"weights"
    np.testing.assert_array_equal(back["coef"], member["coef"])


def test_ensemble_members_may_be_composite_detectors(nllb_dir, tmp_path):
    members = [
        {"model": "translate-test", "params": {"translator": str(nllb_dir), "max_length": 8}},
        {"model": "tfidf-lr"},
    ]
    y = EKMAN.encode([["joy"], ["none"], ["sadness"], ["fear"], ["fear"], ["fear"], ["anger"]])
    model = create_detector("ensemble", members=members, weights=[0.25, 0.75]).fit(UK_TEXTS, y, EKMAN)
    translated, ngrams = model.member_probas(UK_TEXTS)
    np.testing.assert_allclose(model.predict_proba(UK_TEXTS), 0.25 * translated + 0.75 * ngrams)
    model.save(tmp_path / "ensemble")
    np.testing.assert_array_equal(
        read_detector(tmp_path / "ensemble").predict_proba(UK_TEXTS), model.predict_proba(UK_TEXTS)
    )
