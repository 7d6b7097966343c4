"""affectlab: emotion and affect analysis of text in 28 languages (Ukrainian, English and Spanish first).

>>> import affectlab
>>> affectlab.detect("Я так чекала на цей день!")[0].labels
['joy']
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from affectlab.versions import __version__

__all__ = ["__version__", "detect", "detect_file", "detect_open", "load_detector"]

if TYPE_CHECKING:  # mypy and editors see the real functions; at run time __getattr__ imports them when first asked
    from affectlab.detectors.detect import detect
    from affectlab.detectors.resolve import resolve_detector as load_detector
    from affectlab.openstates.detect import detect_open
    from affectlab.scale.jobs import detect_file

_FACADE = {
    "detect": ("affectlab.detectors.detect", "detect"),
    "detect_file": ("affectlab.scale.jobs", "detect_file"),
    "detect_open": ("affectlab.openstates.detect", "detect_open"),
    "load_detector": ("affectlab.detectors.resolve", "resolve_detector"),
}
"""Each name of the facade and the function it is: ``import affectlab`` stays light (no numpy, no model code)."""


def __getattr__(name: str) -> object:
    """The facade's function ``name``, imported at its first use (PEP 562), then held as a module attribute."""
    if name not in _FACADE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _FACADE[name]
    function = getattr(importlib.import_module(module), attribute)
    globals()[name] = function  # later uses find it without coming here
    return function


def __dir__() -> list[str]:
    """The public names, the facade's included before its first use."""
    return sorted(__all__)
