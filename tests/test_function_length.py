"""Every function fits on a screen (STYLE.md, "Everyday habits"): none in ``src/affectlab`` is longer than
:data:`MOST_LINES`, none in the command line (``src/affectlab/cli``) longer than :data:`MOST_COMMAND_LINES`."""

from __future__ import annotations

import ast
from pathlib import Path

import affectlab

SOURCE = Path(affectlab.__file__).parent
MOST_LINES = 80
MOST_COMMAND_LINES = 40
"""Issue 22: a command's body calls one job function and prints its result."""


def function_lengths() -> dict[str, int]:
    """``path:name`` (path below src/affectlab; a nested function as ``outer.inner``) -> lines, decorators
    excluded."""
    lengths = {}
    for path in sorted(SOURCE.rglob("*.py")):
        where = path.relative_to(SOURCE).as_posix()
        stack: list[tuple[ast.AST, str]] = [(ast.parse(path.read_text(encoding="utf-8")), "")]
        while stack:
            node, prefix = stack.pop()
            for child in ast.iter_child_nodes(node):
                name = prefix
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    name = f"{prefix}{child.name}"
                    if not isinstance(child, ast.ClassDef):
                        assert child.end_lineno is not None
                        lengths[f"{where}:{name}"] = child.end_lineno - child.lineno + 1
                    name += "."
                stack.append((child, name))
    return lengths


def limit_of(function: str) -> int:
    return MOST_COMMAND_LINES if function.startswith("cli/") else MOST_LINES


def test_no_function_is_longer_than_its_limit():
    long = {name: n for name, n in function_lengths().items() if n > limit_of(name)}
    assert not long, f"functions over {MOST_LINES} lines ({MOST_COMMAND_LINES} in cli/): {long}"
