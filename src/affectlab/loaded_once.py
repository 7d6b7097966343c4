"""What a process loads once: a model file, a dictionary, a tokenizer, an encoder, a shipped list.

The one policy for process-wide state (issue 42): whatever is read from a file or built at some cost and then only
read is held by a :class:`LoadedOnce` store, keyed by the loader's arguments (in the core, so that the language
identifier, which every package may use, can hold its model in one too). The first call for a key loads it;
threads asking for the same key at once share that one load (another key is not held up); later calls return the
same object. ``forget(*key)`` drops one key (its files were rewritten) and ``clear()`` all of them (tests).

Two neighbours keep their own shape: a saved model's folder is held by :class:`~affectlab.io.loaded.FolderCache`,
which also loads it anew when the folder's content changes; and a pure function's results over many inputs (a
word's n-grams, a tag's match) stay a bounded ``functools.lru_cache``, which reads no file.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Hashable
from typing import Generic, ParamSpec, TypeVar, cast

P = ParamSpec("P")
T = TypeVar("T")
_MISSING = object()


class LoadedOnce(Generic[P, T]):
    """``store(*key)`` returns ``load(*key)``, loaded once per process per key (positional arguments, hashable).
    ``loads`` counts the loads done (for tests and benchmarks)."""

    def __init__(self, load: Callable[P, T]) -> None:
        self._load = load
        self._items: dict[tuple[Hashable, ...], T] = {}
        self._key_locks: dict[tuple[Hashable, ...], threading.Lock] = {}
        self._lock = threading.Lock()
        self.loads = 0
        functools.update_wrapper(self, load)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> T:
        if kwargs:
            raise TypeError(f"{self._load.__name__}() is keyed by positional arguments only")
        held = self._items.get(args, _MISSING)
        if held is not _MISSING:
            return cast(T, held)
        with self._lock:
            key_lock = self._key_locks.setdefault(args, threading.Lock())
        with key_lock:  # threads asking for this key wait for one load; other keys go on
            held = self._items.get(args, _MISSING)
            if held is not _MISSING:
                return cast(T, held)
            try:
                value = self._load(*args, **kwargs)
            except BaseException:
                with self._lock:  # a failed key keeps nothing: a service asked for unknown keys does not grow
                    self._key_locks.pop(args, None)
                raise
            with self._lock:
                self._items[args] = value
                self.loads += 1
            return value

    def forget(self, *key: Hashable) -> None:
        """Drop what was loaded for ``key`` (its files were rewritten): the next call loads it anew."""
        with self._lock:
            self._items.pop(key, None)

    def clear(self) -> None:
        """Drop everything loaded."""
        with self._lock:
            self._items.clear()


def loaded_once(load: Callable[P, T]) -> LoadedOnce[P, T]:
    """Decorate a loader: its result is loaded once per process per arguments (:class:`LoadedOnce`)."""
    return LoadedOnce(load)
