"""The collection wing's shape (issue 53): reads go through views (no ``project.state.`` outside ``project.py``), no
module of ``affectlab.collection`` imports another that imports it back, and ``Project`` stays small."""

from __future__ import annotations

import ast
from pathlib import Path

import affectlab

SOURCE = Path(affectlab.__file__).parent
COLLECTION = SOURCE / "collection"


def _imports(tree: ast.AST) -> set[str]:
    """The ``affectlab.collection`` modules a module imports, for type checking too (a circle only types share
    is a circle still)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("affectlab.collection"):
            parts = node.module.split(".")
            found.update(parts[2:3] if len(parts) > 2 else (alias.name for alias in node.names))
    return found


def test_no_module_of_the_collection_imports_one_that_imports_it_back():
    graph = {path.stem: _imports(ast.parse(path.read_text(encoding="utf-8"))) for path in COLLECTION.glob("*.py")}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(n == goal or (n not in seen and reaches(n, goal, seen | {n})) for n in graph.get(start, ()))

    assert [module for module in graph if reaches(module, module, set())] == []


def test_the_state_is_read_through_views_outside_the_project():
    readers = [str(path.relative_to(SOURCE)) for path in SOURCE.rglob("*.py")
               if path.name != "project.py" and "project.state." in path.read_text(encoding="utf-8")]  # fmt: skip
    assert readers == []


def test_project_stays_small():
    tree = ast.parse((COLLECTION / "project.py").read_text(encoding="utf-8"))
    project = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Project")
    assert project.end_lineno is not None and project.end_lineno - project.lineno + 1 <= 200
