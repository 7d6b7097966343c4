"""Saved models: a directory with ``config.json`` (what the model is, its parameters, label space, decision and
small state) and ``arrays.npz`` (its numeric state), never pickle.

A model whose state is already a file in a safe format of its own (a fine-tuned encoder's ``model.safetensors``,
its Hugging Face ``config.json`` and tokenizer files) hands it over as a ``uint8`` array named ``file:`` + a
relative path; such an entry is written as that file instead of going into ``arrays.npz``, and reading gives it
back under the same name. The state therefore travels through the one ``_get_state``/``_set_state`` path of every
detector, and the bytes a model loads are the very bytes whose checksum was verified.

``config.json`` carries the SHA-256 of ``arrays.npz``, of every such file (``files``: path -> digest; absent in
models without files, so older models read unchanged) and of its own content, so a file that was edited, swapped
or truncated fails to load with a clear :class:`ModelFileError` instead of giving silently different results.
Writing goes through a temporary directory renamed into place, so a failed save leaves nothing half-written.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tempfile
import threading
import zipfile
from collections.abc import Callable, Iterator, Mapping
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.errors import ModelFileError
from affectlab.io.outputs import check_output_dir

FORMAT = "affectlab-model"
FORMAT_VERSION = 1
CONFIG = "config.json"
ARRAYS = "arrays.npz"
FILE_PREFIX = "file:"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _config_digest(config: dict[str, Any]) -> str:
    body = {k: v for k, v in config.items() if k != "config_sha256"}
    return _sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode())


def write_model_dir(directory: str | os.PathLike[str], config: dict[str, Any], arrays: dict[str, np.ndarray]) -> Path:
    """Write ``config`` and ``arrays`` to ``directory`` atomically (replacing an earlier model there); entries of
    ``arrays`` named ``file:PATH`` become the file ``PATH`` (see the module docstring)."""
    target = check_output_dir(directory)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists() and not (target / CONFIG).is_file() and any(target.iterdir()):
        raise ModelFileError(f"{str(target)!r} exists and is not an affectlab model directory; not overwriting it")
    files = {
        _file_name(k): np.ascontiguousarray(v, dtype=np.uint8).tobytes()
        for k, v in arrays.items()
        if k.startswith(FILE_PREFIX)
    }
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.tmp-"))
    try:
        stored: dict[str, Any] = {k: v for k, v in arrays.items() if not k.startswith(FILE_PREFIX)}
        np.savez_compressed(staging / ARRAYS, **stored)
        full = {"format": FORMAT, "format_version": FORMAT_VERSION, **config}
        full["arrays_sha256"] = _sha256((staging / ARRAYS).read_bytes())
        if files:
            full["files"] = {name: _write_file(staging, name, data) for name, data in sorted(files.items())}
        full["config_sha256"] = _config_digest(full)
        (staging / CONFIG).write_text(json.dumps(full, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return target


def _file_name(key: str) -> str:
    """The relative path of a ``file:`` entry, refused when it could leave the model directory or hide its
    config.json and arrays.npz (a crafted config.json must not make loading read elsewhere)."""
    name = key.removeprefix(FILE_PREFIX)
    if "\\" in name or name in (CONFIG, ARRAYS) or any(part in ("", ".", "..") for part in name.split("/")):
        raise ModelFileError(f"{name!r} is not a valid file name inside a model directory")
    return name


def _write_file(staging: Path, name: str, data: bytes) -> str:
    path = staging / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return _sha256(data)


class SavedArrays(Mapping[str, np.ndarray]):
    """The arrays of a verified ``arrays.npz``, each unpacked when first read: a model routed over 29 languages
    reads only the members of the languages it meets (unpacking all of the default's took 0.3 s of every
    ``detect``). The bytes are the ones whose checksum was verified, held in memory, so the file changing on disk
    afterwards changes nothing. ``extra`` holds the arrays of the model's own files (``file:`` entries)."""

    def __init__(self, data: bytes, path: Path, extra: dict[str, np.ndarray] | None = None) -> None:
        self._path = path
        try:
            self._npz = np.load(io.BytesIO(data), allow_pickle=False)
        except (ValueError, OSError, zipfile.BadZipFile) as exc:
            raise ModelFileError(f"{str(path)!r} cannot be read safely ({exc})") from None
        self._extra = dict(extra or {})
        self._names = [*self._npz.files, *self._extra]
        self._lock = threading.Lock()  # one zip reader: members built in several threads unpack one at a time

    def __getitem__(self, name: str) -> np.ndarray:
        if name in self._extra:
            return self._extra[name]
        if name not in self._npz.files:
            raise KeyError(name)
        try:
            with self._lock:
                array = np.asarray(self._npz[name])
        except (ValueError, OSError, zipfile.BadZipFile) as exc:
            raise ModelFileError(f"{str(self._path)!r}: array {name!r} cannot be read safely ({exc})") from None
        # Checked here, as each array is unpacked, rather than in read_model_dir: checking there would unpack every
        # array (the laziness above); every array passes here before a model computes with it, and the check costs
        # one pass over an array just decompressed. A model's own files (``extra``) are bytes, left to their readers.
        if np.issubdtype(array.dtype, np.inexact) and not np.isfinite(array).all():
            raise ModelFileError(
                f"{str(self._path)!r}: array {name!r} holds NaN or infinite values (damaged, or saved from a training "
                "run that diverged)"
            )
        return array

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def read_model_dir(directory: str | os.PathLike[str]) -> tuple[dict[str, Any], SavedArrays]:
    """Read and verify a model directory written by :func:`write_model_dir` (the arrays unpacked when read)."""
    path = Path(directory)
    config_path = path / CONFIG
    if not config_path.is_file():
        raise ModelFileError(f"{str(path)!r} is not an affectlab model directory (no {CONFIG})")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"), parse_constant=_non_finite(config_path))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"{str(config_path)!r} is not valid JSON ({exc})") from None
    if not isinstance(config, dict) or config.get("format") != FORMAT:
        raise ModelFileError(f"{str(path)!r} is not an affectlab model (foreign {CONFIG})")
    if config.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(
            f"{str(path)!r} has model format version {config.get('format_version')}, "
            f"this affectlab reads version {FORMAT_VERSION}"
        )
    if config.get("config_sha256") != _config_digest(config):
        raise ModelFileError(f"{str(config_path)!r} was modified after saving (checksum mismatch)")
    arrays_path = path / ARRAYS
    if not arrays_path.is_file():
        raise ModelFileError(f"{str(path)!r} has no {ARRAYS}")
    stored = arrays_path.read_bytes()
    if _sha256(stored) != config.get("arrays_sha256"):
        raise ModelFileError(f"{str(arrays_path)!r} does not match its checksum (tampered or corrupted)")
    files = config.get("files") or {}
    if not isinstance(files, dict):
        raise ModelFileError(f"{str(config_path)!r} lists its files in an unknown form")
    extra = {
        FILE_PREFIX + name: np.frombuffer(_read_file(path, _file_name(name), digest), dtype=np.uint8)
        for name, digest in files.items()
    }
    return config, SavedArrays(stored, arrays_path, extra)


def _non_finite(config_path: Path) -> Callable[[str], float]:
    """What config.json's reader does with ``NaN``, ``Infinity`` and ``-Infinity`` (which Python's JSON writes and
    reads, but a model's thresholds and weights must not hold): refuse the model, as a non-finite array is refused."""

    def refuse(constant: str) -> float:
        raise ModelFileError(
            f"{str(config_path)!r} holds {constant} (damaged, or saved from a training run that diverged)"
        )

    return refuse


def _read_file(directory: Path, name: str, digest: str) -> bytes:
    """The bytes of a model's extra file, verified against the digest in its config.json."""
    file_path = directory / name
    if not file_path.is_file():
        raise ModelFileError(f"{str(directory)!r} has no {name} (the model lists it)")
    data = file_path.read_bytes()
    if _sha256(data) != digest:
        raise ModelFileError(f"{str(file_path)!r} does not match its checksum (tampered or corrupted)")
    return data


def strings_to_arrays(prefix: str, strings: list[str]) -> dict[str, np.ndarray]:
    """Pack strings as UTF-8 bytes plus offsets (no object arrays, so no pickle on load)."""
    encoded = [s.encode("utf-8") for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(b) for b in encoded])
    return {f"{prefix}.bytes": np.frombuffer(b"".join(encoded), dtype=np.uint8), f"{prefix}.offsets": offsets}


def arrays_to_strings(prefix: str, arrays: Mapping[str, np.ndarray]) -> list[str]:
    """Inverse of :func:`strings_to_arrays`."""
    data = arrays[f"{prefix}.bytes"].tobytes()
    offsets = arrays[f"{prefix}.offsets"].tolist()  # Python ints: slicing by numpy scalars took 0.3 s a start-up
    return [data[start:end].decode("utf-8") for start, end in pairwise(offsets)]


def nest_arrays(prefix: str, arrays: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A member's arrays under ``prefix/``; its ``file:`` entries (files of their own, such as a fine-tuned
    encoder's weights) become files in the subdirectory ``prefix`` of the saved model."""
    return {
        f"{FILE_PREFIX}{prefix}/{key[len(FILE_PREFIX) :]}" if key.startswith(FILE_PREFIX) else f"{prefix}/{key}": value
        for key, value in arrays.items()
    }


class NestedArrays(Mapping[str, np.ndarray]):
    """The arrays and files of the member saved under ``prefix`` (see :func:`unnest_arrays`), read from the
    whole model's arrays only when asked for (so a lazily read model stays lazy)."""

    def __init__(self, prefix: str, arrays: Mapping[str, np.ndarray]) -> None:
        nested, files = f"{prefix}/", f"{FILE_PREFIX}{prefix}/"
        self._arrays = arrays
        self._keys = {}
        for key in arrays:
            if key.startswith(files):
                self._keys[FILE_PREFIX + key[len(files) :]] = key
            elif key.startswith(nested):
                self._keys[key[len(nested) :]] = key

    def __getitem__(self, name: str) -> np.ndarray:
        return self._arrays[self._keys[name]]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


def unnest_arrays(prefix: str, arrays: Mapping[str, np.ndarray]) -> NestedArrays:
    """The inverse of :func:`nest_arrays`: the arrays and files of the member saved under ``prefix``."""
    return NestedArrays(prefix, arrays)
