"""A persistent cache of text embeddings keyed by encoder id + SHA-1 of the text, so that re-evaluating or
re-training heads never embeds the same text twice. One SQLite file per encoder under
``$AFFECTLAB_CACHE_DIR/embeddings`` (default ``~/.cache/affectlab/embeddings``); SQLite gives atomic,
crash-safe writes and concurrent readers and writers (processes too) without any server. The cache is only ever a
saving: a file it cannot use (damaged, read-only, locked past the timeout) is passed by and the texts are encoded,
and a stored vector that is not one (another length, not bytes, not finite) is encoded again and replaced."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from affectlab.io.cache_paths import cache_dir
from affectlab.io.sqlite import SqliteMemo, memoized


def text_key(text: str) -> bytes:
    """The cache key of a text: SHA-1 of its UTF-8 bytes."""
    return hashlib.sha1(text.encode("utf-8")).digest()


class EmbeddingCache:
    """Vectors of one encoder, stored as float32 bytes by text key (a :class:`~affectlab.io.sqlite.SqliteMemo`)."""

    def __init__(self, encoder_id: str, dim: int, directory: Path | None = None) -> None:
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", encoder_id)
        folder = directory or cache_dir() / "embeddings"
        self.memo = SqliteMemo(folder / f"{safe}.sqlite", "vectors", "vector", best_effort=True)
        self.path = self.memo.path
        self.dim = dim

    def vector(self, stored: object) -> np.ndarray | None:
        """A stored vector, or None when it is not one of this encoder's (another dimension: a file of an earlier
        encoder; not bytes, or not finite: a damaged row)."""
        if not isinstance(stored, bytes) or len(stored) != 4 * self.dim:
            return None
        vector = np.frombuffer(stored, dtype=np.float32)
        return vector if np.isfinite(vector).all() else None

    def __len__(self) -> int:
        return len(self.memo)


def embed_with_cache(
    texts: Sequence[str],
    encode: Callable[[list[str]], np.ndarray],
    cache: EmbeddingCache,
    batch_size: int = 256,
    on_batch: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Embed ``texts``, taking what the cache has and encoding (then caching) the rest in batches; duplicate
    texts are encoded once. ``on_batch(n)`` is called after each batch of ``n`` newly encoded texts."""
    vectors = memoized(
        texts, [text_key(t) for t in texts], lambda batch: list(encode(batch)), cache.memo, batch_size,
        load=cache.vector, store=lambda v: np.ascontiguousarray(v, dtype=np.float32).tobytes(), on_chunk=on_batch,
    )  # fmt: skip
    return np.asarray(vectors, dtype=np.float32).reshape(len(texts), cache.dim)
