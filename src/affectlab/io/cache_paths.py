"""Where affectlab keeps what it can make again: downloaded data files, embeddings, translations and LLM replies,
under ``$AFFECTLAB_CACHE_DIR`` (default ``~/.cache/affectlab``). Here, below every package that caches, so that the
first embedding does not import the dataset registry to find its folder."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_DIR_ENV = "AFFECTLAB_CACHE_DIR"


def cache_dir() -> Path:
    """The folder of affectlab's caches: ``$AFFECTLAB_CACHE_DIR``, else ``~/.cache/affectlab``."""
    return Path(os.environ.get(CACHE_DIR_ENV) or Path.home() / ".cache" / "affectlab").expanduser()
