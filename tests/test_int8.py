"""Int8 per-row storage: matrices come back within half a quantization step, zero rows stay zero, vectors and
integer tensors pass through unchanged, and a file that is not in the format is refused."""

import numpy as np
import pytest

from affectlab.encoders.int8 import SCALE_SUFFIX, dequantize, dequantize_file, quantize, quantize_file


def test_round_trip_error_is_within_half_a_step_per_row():
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(50, 40)).astype(np.float32) * rng.uniform(0.01, 3, size=(50, 1)).astype(np.float32)
    stored = quantize({"w": matrix})
    assert stored["w"].dtype == np.int8 and stored["w" + SCALE_SUFFIX].dtype == np.float16
    assert np.abs(stored["w"]).max() == 127
    back = dequantize(stored)["w"]
    step = np.abs(matrix).max(axis=1, keepdims=True) / 127
    # half a step from rounding, plus the float16 rounding of the scale itself
    assert (np.abs(back - matrix) <= 0.5 * step + np.abs(matrix) * 1e-3 + 1e-7).all()


def test_hand_computed_row():
    stored = quantize({"w": np.array([[0.0, 1.27, -0.5], [0.0, 0.0, 0.0]], dtype=np.float32)})
    assert stored["w"].tolist() == [[0, 127, -50], [0, 0, 0]]
    assert stored["w" + SCALE_SUFFIX].tolist() == pytest.approx([0.01, 0.0], abs=1e-5)
    np.testing.assert_allclose(dequantize(stored)["w"], [[0, 1.27, -0.5], [0, 0, 0]], atol=2e-3)


def test_vectors_and_integer_tensors_pass_through():
    tensors = {"bias": np.arange(4, dtype=np.float32), "ids": np.arange(6, dtype=np.int64).reshape(2, 3)}
    stored = quantize(tensors)
    assert set(stored) == {"bias", "ids"}
    for name, tensor in dequantize(stored).items():
        np.testing.assert_array_equal(tensor, tensors[name])


def test_files_round_trip_and_foreign_files_are_refused(tmp_path):
    from safetensors.numpy import save_file

    matrix = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    save_file({"w": matrix}, str(tmp_path / "fp32.safetensors"))
    quantize_file(str(tmp_path / "fp32.safetensors"), str(tmp_path / "int8.safetensors"))
    dequantize_file(str(tmp_path / "int8.safetensors"), str(tmp_path / "back.safetensors"))
    from safetensors.numpy import load_file

    np.testing.assert_allclose(load_file(str(tmp_path / "back.safetensors"))["w"], matrix, atol=1 / 127)
    with pytest.raises(ValueError, match="not an affectlab-int8-per-row file"):
        dequantize_file(str(tmp_path / "fp32.safetensors"), str(tmp_path / "x.safetensors"))
