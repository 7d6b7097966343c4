"""The facade (``affectlab.detect``, ``detect_file``, ``detect_open``, ``load_detector``) shows the keywords of the
functions it calls, with their defaults and types, so that ``help(affectlab.detect)`` and an editor tell a caller
what it takes; and ``import affectlab`` stays light."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
from collections.abc import Callable

import pytest

import affectlab
from affectlab.detectors.detect import detect
from affectlab.detectors.resolve import resolve_detector
from affectlab.openstates.detect import detect_open
from affectlab.scale.jobs import detect_file


@pytest.mark.parametrize(
    ("facade", "library"),
    [
        (affectlab.detect, detect),
        (affectlab.detect_file, detect_file),
        (affectlab.detect_open, detect_open),
        (affectlab.load_detector, resolve_detector),
    ],
)
def test_facade_names_every_parameter_of_the_function_it_calls(facade: Callable, library: Callable) -> None:
    shown, called = inspect.signature(facade), inspect.signature(library)
    assert [(p.name, p.kind, p.default, p.annotation) for p in shown.parameters.values()] == [
        (p.name, p.kind, p.default, p.annotation) for p in called.parameters.values()
    ]
    assert shown.return_annotation == called.return_annotation


@pytest.mark.parametrize(
    ("facade", "module", "name"),
    [
        (affectlab.detect, "affectlab.detectors.detect", "detect"),
        (affectlab.detect_file, "affectlab.scale.jobs", "detect_file"),
        (affectlab.detect_open, "affectlab.openstates.detect", "detect_open"),
        (affectlab.load_detector, "affectlab.detectors.resolve", "resolve_detector"),
    ],
)
def test_facade_passes_every_argument_on(facade: Callable, module: str, name: str, monkeypatch) -> None:
    library = getattr(importlib.import_module(module), name)
    given = {parameter: object() for parameter in inspect.signature(library).parameters}
    received: dict[str, object] = {}

    def spy(*args: object, **kwargs: object) -> None:
        received.update(inspect.signature(library).bind(*args, **kwargs).arguments)

    monkeypatch.setattr(f"{module}.{name}", spy)
    facade(**given)
    assert received == given


def test_import_affectlab_loads_no_other_affectlab_module() -> None:
    code = "import sys, affectlab; print(sorted(m for m in sys.modules if m.startswith('affectlab')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert ast.literal_eval(loaded) == ["affectlab", "affectlab.versions"]
