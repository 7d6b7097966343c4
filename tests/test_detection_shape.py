"""The shape of the detection path (issue 42), held so it cannot drift back: ``detectors/detect.py`` stays small,
languages are identified from one module of ``detectors/``, and a file run reads through a narrow door."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "affectlab"
IDENTIFIERS = {"detect_language", "detect_language_batch", "ngram_model", "cld3"}


def _imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) of every ``from ... import name`` in ``path`` that runs (not under TYPE_CHECKING)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    checking = {id(node) for top in ast.walk(tree) if isinstance(top, ast.If) and ast.unparse(top.test) ==
                "TYPE_CHECKING" for node in ast.walk(top)}  # fmt: skip
    return [(node.module or "", alias.name) for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and id(node) not in checking for alias in node.names]  # fmt: skip


def test_detect_py_is_at_most_200_lines():
    assert len((SRC / "detectors" / "detect.py").read_text(encoding="utf-8").splitlines()) <= 200


def test_languages_are_identified_from_one_module_of_detectors():
    callers = {path.name for path in (SRC / "detectors").glob("*.py")
               for module, name in _imports(path) if module == "affectlab.langid" and name in IDENTIFIERS}  # fmt: skip
    assert callers == {"identify.py"}


def test_a_file_run_imports_at_most_three_names_from_detectors():
    names = [name for module, name in _imports(SRC / "scale" / "batch.py") if module.startswith("affectlab.detectors")]
    assert len(names) <= 3, names
