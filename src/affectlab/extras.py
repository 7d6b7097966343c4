"""Importing the packages of optional extras, with one clear line when one is not installed."""

from __future__ import annotations

import importlib
from types import ModuleType

from affectlab.errors import AffectlabError


class MissingExtraError(AffectlabError, ImportError):
    """An optional package that a feature needs is not installed."""


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingExtraError` saying which extra brings it, e.g.
    ``require("pymorphy3", "ua", "UA-CBT generation")``."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(f"{purpose} needs the {module} package: pip install 'affectlab[{extra}]'") from None
