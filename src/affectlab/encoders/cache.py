"""A persistent cache of text embeddings keyed by encoder id + SHA-1 of the text, so that re-evaluating or
re-training heads never embeds the same text twice. One SQLite file per encoder under
``$AFFECTLAB_CACHE_DIR/embeddings`` (default ``~/.cache/affectlab/embeddings``); SQLite gives atomic,
crash-safe writes and concurrent readers without any server."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from affectlab.datasets.sources import cache_dir
from affectlab.io.sqlite import select_by_keys


def text_key(text: str) -> bytes:
    """The cache key of a text: SHA-1 of its UTF-8 bytes."""
    return hashlib.sha1(text.encode("utf-8")).digest()


class EmbeddingCache:
    """Vectors of one encoder, stored as float32 bytes by text key."""

    def __init__(self, encoder_id: str, dim: int, directory: Path | None = None) -> None:
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", encoder_id)
        folder = directory or cache_dir() / "embeddings"
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{safe}.sqlite"
        self.dim = dim
        self._db = sqlite3.connect(self.path, timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")

    def get(self, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        """The cached vectors among ``keys``."""
        found: dict[bytes, np.ndarray] = {}
        for key, blob in select_by_keys(self._db, "SELECT key, vector FROM vectors WHERE key IN ({marks})", keys):
            vector = np.frombuffer(blob, dtype=np.float32)
            if len(vector) == self.dim:
                found[key] = vector
        return found

    def put(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        """Store ``vectors`` (one row per key) in one transaction."""
        rows = [
            (key, np.ascontiguousarray(v, dtype=np.float32).tobytes()) for key, v in zip(keys, vectors, strict=True)
        ]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)", rows)

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        self._db.close()


def embed_with_cache(
    texts: Sequence[str],
    encode: Callable[[list[str]], np.ndarray],
    cache: EmbeddingCache | None,
    batch_size: int = 256,
    on_batch: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Embed ``texts``, taking what the cache has and encoding (then caching) the rest in batches; duplicate
    texts are encoded once. ``on_batch(n)`` is called after each batch of ``n`` newly encoded texts."""
    keys = [text_key(t) for t in texts]
    known = cache.get(keys) if cache is not None else {}
    missing: dict[bytes, str] = {}
    for key, text in zip(keys, texts, strict=True):
        if key not in known and key not in missing:
            missing[key] = text
    todo = list(missing.items())
    for start in range(0, len(todo), batch_size):
        batch = todo[start : start + batch_size]
        vectors = encode([text for _, text in batch])
        batch_keys = [key for key, _ in batch]
        known.update(zip(batch_keys, vectors, strict=True))
        if cache is not None:
            cache.put(batch_keys, vectors)
        if on_batch is not None:
            on_batch(len(batch))
    dim = cache.dim if cache is not None else (len(next(iter(known.values()))) if known else 0)
    out = np.empty((len(texts), dim), dtype=np.float32)
    for i, key in enumerate(keys):
        out[i] = known[key]
    return out
