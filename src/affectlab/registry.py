"""A name registry with "did you mean ...?" suggestions, shared by datasets, models and label spaces."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Generic, TypeVar

from affectlab.errors import UnknownNameError

T = TypeVar("T")


class Registry(Generic[T]):
    """Maps names to entries; unknown names raise :class:`UnknownNameError` with close matches."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}

    def add(self, name: str, entry: T) -> T:
        """Register ``entry`` under ``name``; a name may be registered only once."""
        if name in self._entries:
            raise ValueError(f"{self.kind} {name!r} is already registered")
        self._entries[name] = entry
        return entry

    def get(self, name: str) -> T:
        """Return the entry for ``name`` or raise :class:`UnknownNameError` naming the closest matches."""
        try:
            return self._entries[name]
        except KeyError:
            raise UnknownNameError(self.unknown_message(name)) from None

    def unknown_message(self, name: str) -> str:
        """One line saying ``name`` is unknown, with suggestions and the list of known names."""
        close = difflib.get_close_matches(name, list(self._entries), n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        return f"unknown {self.kind} {name!r}{hint} (known: {', '.join(self._entries)})"

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def items(self) -> list[tuple[str, T]]:
        """All (name, entry) pairs in registration order."""
        return list(self._entries.items())
