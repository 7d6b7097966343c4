"""The facade (``affectlab.detect``, ``detect_file``, ``detect_open``, ``load_detector``) is the functions
themselves, imported at their first use (PEP 562): ``help(affectlab.detect)`` and an editor show their own keywords,
defaults and types, and ``import affectlab`` stays light."""

from __future__ import annotations

import ast
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
    ("name", "function"),
    [
        ("detect", detect),
        ("detect_file", detect_file),
        ("detect_open", detect_open),
        ("load_detector", resolve_detector),
    ],
)
def test_each_facade_name_is_the_function_itself(name: str, function: Callable) -> None:
    assert getattr(affectlab, name) is function


def test_the_facade_shows_the_keywords_of_detect() -> None:
    keywords = ["taxonomy", "context", "top_k", "model", "fast", "lang", "intensity", "sentences", "explain"]
    assert list(inspect.signature(affectlab.detect).parameters) == ["texts", *keywords]


def test_dir_lists_the_facade() -> None:
    assert set(affectlab.__all__) <= set(dir(affectlab))


def test_an_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'detekt'"):
        affectlab.detekt  # noqa: B018


def _modules_after(code: str) -> list[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    probe = f"import sys\n{code}\nprint(sorted(sys.modules))"
    return ast.literal_eval(
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    )


def test_import_affectlab_loads_no_numpy_and_no_other_affectlab_module() -> None:
    loaded = _modules_after("import affectlab")
    assert "numpy" not in loaded
    assert [name for name in loaded if name.startswith("affectlab")] == ["affectlab", "affectlab.versions"]


def test_the_first_use_imports_the_function_s_module() -> None:
    assert "affectlab.scale.jobs" in _modules_after("import affectlab\naffectlab.detect_file")
