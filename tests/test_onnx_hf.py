"""``affectlab export-onnx``: a fine-tuned ``hf`` detector (a tiny random BERT built here) exported to ONNX int8
gives the torch model's probabilities and decisions, with and without dialogue context, saves and loads under
checksums, and scores texts in a process that never imports torch."""

import json
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

from affectlab.cli import main
from affectlab.detectors import read_detector
from affectlab.detectors.hf import HFEncoderDetector
from affectlab.errors import InputError
from affectlab.labels import EMOCONTEXT
from tiny_models import TOY_SPACE as SPACE
from tiny_models import TOY_TEXTS as TEXTS
from tiny_models import TOY_Y as Y
from tiny_models import save_tiny_bert

TINY = {"epochs": 10, "batch_size": 4, "lr": 1e-2, "max_length": 32, "patience": None, "pooling": "mean"}


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory):
    return str(save_tiny_bert(tmp_path_factory.mktemp("tiny-bert"), [*TEXTS, "hello how are you", "i feel sad"]))


@pytest.mark.slow
def test_export_gives_the_torch_probabilities_and_loads_without_torch(tiny_encoder, tmp_path, capsys):
    model = HFEncoderDetector(model=tiny_encoder, **TINY).fit(TEXTS, Y, SPACE)
    model.save(tmp_path / "hf")
    assert main(["export-onnx", str(tmp_path / "hf"), "--out", str(tmp_path / "onnx"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["model"] == "hf-onnx"
    exported = read_detector(tmp_path / "onnx")
    probes = [*TEXTS, "happy happy happy and afraid of the dark night " * 5]
    expected, served = model.predict_proba(probes), exported.predict_proba(probes)
    np.testing.assert_allclose(served, expected, atol=0.05)
    assert (exported.predict(probes) == model.predict(probes)).mean() >= 0.9
    code = (
        "import sys, json; from affectlab.detectors import read_detector; "
        f"p = read_detector({str(tmp_path / 'onnx')!r}).predict_proba({probes!r}); "
        "print(json.dumps(p.tolist())); sys.exit('torch' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    np.testing.assert_allclose(json.loads(done.stdout), served, atol=1e-6)


def test_a_dialogue_model_reads_the_earlier_turns_as_the_text_pair(tiny_encoder, tmp_path):
    examples = [{"text": t, "context": ["hello how are you", "what a day"]} for t in TEXTS]
    labels = np.eye(4, dtype=int)[[0, 0, 2, 2, 1, 1, 3, 3]]
    model = HFEncoderDetector(model=tiny_encoder, **TINY).fit(examples, labels, EMOCONTEXT)
    model.save(tmp_path / "hf")
    from affectlab.detectors.onnx_hf import export_hf

    exported = export_hf(read_detector(tmp_path / "hf"), tmp_path / "onnx")
    np.testing.assert_allclose(exported.predict_proba(examples), model.predict_proba(examples), atol=0.05)
    without = exported.predict_proba([{"text": t, "context": []} for t in TEXTS])
    assert not np.allclose(without, exported.predict_proba(examples))


def test_only_an_hf_model_can_be_exported(tmp_path, capsys):
    from affectlab.detectors import create_detector
    from affectlab.detectors.onnx_hf import export_hf

    model = create_detector("keywords").fit(TEXTS, Y, SPACE)
    with pytest.raises(InputError, match="takes a saved hf model"):
        export_hf(model, tmp_path / "x")
    assert main(["export-onnx", str(tmp_path / "missing"), "--out", str(tmp_path / "o")]) == 2
    assert "not an affectlab model directory" in capsys.readouterr().err
