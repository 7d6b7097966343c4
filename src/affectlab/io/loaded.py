"""Objects loaded from a folder once per process, and loaded again only when the folder's content changes.

A saved model is a folder; the service, ``affectlab.detect`` in a loop and the command line all name it by its path.
:class:`FolderCache` keeps what was loaded from each folder under the folder's resolved path and a fingerprint of its
content (every file's relative name, size and modification time), so that a model rewritten in place (``train --out``
over an earlier one) is loaded anew, and one that did not change is never read twice. Loading holds a lock, so
threads asking for the same folder at once share one load.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")


def folder_fingerprint(folder: Path) -> str:
    """A digest of the names, sizes and modification times of every file under ``folder``: it changes when any file
    is written, replaced, added or removed, and costs one ``stat`` per file (no file is read)."""
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = Path(root, name)
            stat = path.stat()
            digest.update(
                f"{path.relative_to(folder)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode("utf-8", "replace")
            )
    return digest.hexdigest()


class FolderCache(Generic[T]):
    """``get(folder)`` returns ``load(folder)``, loaded once per resolved path and content fingerprint; an object
    loaded from an earlier content of the same folder is dropped. ``loads`` counts the loads done (for tests and
    benchmarks)."""

    def __init__(self, load: Callable[[Path], T]) -> None:
        self._load = load
        self._items: dict[Path, tuple[str, T]] = {}
        self._lock = threading.Lock()
        self.loads = 0

    def get(self, folder: str | os.PathLike[str]) -> T:
        """The object loaded from ``folder`` (a folder that exists; the loader reports anything wrong inside it)."""
        path = Path(folder).resolve()
        with self._lock:
            fingerprint = folder_fingerprint(path)
            held = self._items.get(path)
            if held is None or held[0] != fingerprint:
                self._items[path] = (fingerprint, self._load(path))
                self.loads += 1
            return self._items[path][1]

    def clear(self) -> None:
        """Forget every loaded object."""
        with self._lock:
            self._items.clear()
