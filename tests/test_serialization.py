"""Model directories with extra files (a fine-tuned encoder's safetensors, config and tokenizer): written beside
config.json and arrays.npz, checked by SHA-256 on reading, and refused when tampered with, missing or named so
that they would leave the directory. Models without files keep the old layout."""

import json

import numpy as np
import pytest

from affectlab.detectors.serialization import (
    ARRAYS,
    CONFIG,
    FILE_PREFIX,
    nest_arrays,
    read_model_dir,
    unnest_arrays,
    write_model_dir,
)
from affectlab.errors import ModelFileError

WEIGHTS = b"\x00\x01binary weights\xff"


def as_file(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype=np.uint8)


@pytest.fixture
def saved(tmp_path):
    arrays = {"head": np.arange(4.0), FILE_PREFIX + "encoder/model.safetensors": as_file(WEIGHTS)}
    return write_model_dir(tmp_path / "m", {"model": "test"}, arrays)


def test_extra_files_are_written_beside_the_arrays_and_read_back(saved):
    assert (saved / "encoder" / "model.safetensors").read_bytes() == WEIGHTS
    with np.load(saved / ARRAYS) as npz:
        assert npz.files == ["head"]
    config, arrays = read_model_dir(saved)
    assert set(config["files"]) == {"encoder/model.safetensors"}
    assert arrays[FILE_PREFIX + "encoder/model.safetensors"].tobytes() == WEIGHTS
    np.testing.assert_array_equal(arrays["head"], np.arange(4.0))


def test_models_without_files_keep_the_old_layout(tmp_path):
    target = write_model_dir(tmp_path / "m", {"model": "test"}, {"w": np.ones(2)})
    assert sorted(p.name for p in target.iterdir()) == [ARRAYS, CONFIG]
    config, arrays = read_model_dir(target)
    assert "files" not in config and set(arrays) == {"w"}


def test_a_tampered_extra_file_is_refused(saved):
    (saved / "encoder" / "model.safetensors").write_bytes(WEIGHTS[:-1] + b"\x00")
    with pytest.raises(ModelFileError, match="checksum"):
        read_model_dir(saved)


def test_a_missing_extra_file_is_refused(saved):
    (saved / "encoder" / "model.safetensors").unlink()
    with pytest.raises(ModelFileError, match="lists it"):
        read_model_dir(saved)


def test_a_listed_file_cannot_be_swapped_by_editing_the_config(saved):
    config = json.loads((saved / CONFIG).read_text())
    config["files"]["encoder/model.safetensors"] = "0" * 64
    (saved / CONFIG).write_text(json.dumps(config))
    with pytest.raises(ModelFileError, match="modified"):
        read_model_dir(saved)


@pytest.mark.parametrize("name", ["../outside", "/etc/passwd", "a//b", "config.json", "", "a\\b"])
def test_file_names_that_leave_the_directory_are_refused(tmp_path, name):
    with pytest.raises(ModelFileError, match="not a valid file name"):
        write_model_dir(tmp_path / "m", {"model": "test"}, {FILE_PREFIX + name: as_file(b"x")})
    assert not (tmp_path / "m").exists()


def test_nested_member_arrays_and_files_round_trip():
    member = {"coef": np.arange(3.0), "file:encoder/model.safetensors": np.frombuffer(b"weights", dtype=np.uint8)}
    nested = nest_arrays("uk", member)
    assert set(nested) == {"uk/coef", "file:uk/encoder/model.safetensors"}
    others = nest_arrays("en", {"coef": np.zeros(2)})
    back = unnest_arrays("uk", {**nested, **others})
    assert set(back) == set(member) and back["coef"].tolist() == [0.0, 1.0, 2.0]


def _rewrite_arrays(target, **arrays):
    """Replace a model's arrays.npz (uncompressed, object arrays allowed) and re-sign it, as a crafted file would."""
    import hashlib

    from affectlab.detectors.serialization import _config_digest

    np.savez(target / ARRAYS, **arrays)
    config = json.loads((target / CONFIG).read_text())
    config["arrays_sha256"] = hashlib.sha256((target / ARRAYS).read_bytes()).hexdigest()
    config["config_sha256"] = _config_digest(config)
    (target / CONFIG).write_text(json.dumps(config))


def test_arrays_are_unpacked_when_read_and_an_unsafe_one_fails_then(tmp_path):
    # a routed model builds only the members of the languages it meets, so their arrays are unpacked on demand;
    # an array only pickle could load still fails, as a model file error, when it is read
    target = write_model_dir(tmp_path / "m", {"model": "test"}, {"uk/w": np.ones(2)})
    _rewrite_arrays(target, **{"uk/w": np.arange(3.0), "en/w": np.array([{"a": 1}], dtype=object)})
    _, arrays = read_model_dir(target)
    assert set(arrays) == {"uk/w", "en/w"}
    assert unnest_arrays("uk", arrays)["w"].tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ModelFileError, match="'en/w' cannot be read safely"):
        unnest_arrays("en", arrays)["w"]


def test_arrays_read_are_the_verified_bytes_even_if_the_file_changes_later(tmp_path):
    target = write_model_dir(tmp_path / "m", {"model": "test"}, {"w": np.arange(3.0)})
    _, arrays = read_model_dir(target)
    np.savez(target / ARRAYS, w=np.zeros(3))
    assert arrays["w"].tolist() == [0.0, 1.0, 2.0]
