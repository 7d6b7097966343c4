"""affectlab's own version, and the installed versions of the libraries a result depends on (for run records)."""

from __future__ import annotations

from collections.abc import Iterable
from importlib import metadata

__version__ = "0.1.0"


def library_versions(names: Iterable[str]) -> dict[str, str]:
    """``{name: version}`` for each distribution in ``names`` ("not installed" where it is missing)."""
    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions
