"""The package layout of DESIGN.md ("Layout"): every module belongs to a known package, imports point only
downward in the order below (a package may use only those listed after it, and itself), and no module imports
itself back through others. Imports inside functions count; those under ``if TYPE_CHECKING:`` do not run and are
left out."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import affectlab

SOURCE = Path(affectlab.__file__).parent
DESIGN = Path(__file__).parents[1] / "docs" / "DESIGN.md"


def layout_block(design: str) -> list[str]:
    """The lines of the fenced block under DESIGN.md's "## Layout" heading."""
    section = design.split("\n## Layout", 1)[1]
    return section.split("```", 2)[1].splitlines()[1:]


def layers_of(block: list[str]) -> tuple[tuple[str, ...], ...]:
    """One layer per line of the block that starts at its entries' indentation: a package (``cli/ ...``), or the
    core modules (``labels.py  text.py ...``), all one layer; lines indented further continue a description."""
    indent = min(len(line) - len(line.lstrip()) for line in block[1:] if line.strip())
    layers = []
    for line in block[1:]:
        if not line.strip() or len(line) - len(line.lstrip()) != indent:
            continue
        words = line.split()
        if words[0].endswith("/"):
            layers.append((words[0].removesuffix("/"),))
        else:
            layers.append(tuple(word.removesuffix(".py") for word in words if word.endswith(".py")))
    return tuple(layers)


LAYERS = layers_of(layout_block(DESIGN.read_text(encoding="utf-8")))
"""DESIGN.md's layout, top to bottom: a package may import only those listed after it (the core: one layer)."""
ENTRY_POINTS = {"affectlab", "affectlab.__main__"}
"""The package's facade (``affectlab.detect``, ...) and ``python -m affectlab``: above everything, imported by none."""
RANK = {name: depth for depth, names in enumerate(LAYERS) for name in names}
CORE = len(LAYERS) - 1


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(SOURCE.rglob("*.py"))}


def runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node that can run, skipping the bodies of ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in {"TYPE_CHECKING", "typing.TYPE_CHECKING"}:
            yield from (n for child in node.orelse for n in [child, *runtime_nodes(child)])
            continue
        yield node
        yield from runtime_nodes(node)


def imported_modules(name: str) -> set[str]:
    """The affectlab modules ``name`` imports (``from package import submodule`` counts as the submodule)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
    return {module for module in found if module in MODULES and module != name}


GRAPH = {name: imported_modules(name) for name in MODULES}


def package_of(module: str) -> str:
    return module.split(".")[1]


@pytest.mark.parametrize("module", sorted(set(MODULES) - ENTRY_POINTS))
def test_every_module_sits_in_a_package_of_the_layout(module):
    assert package_of(module) in RANK, f"{module}: add its package to DESIGN.md's layout"


def test_the_layout_names_every_package_and_only_packages_that_exist():
    packages = {path.parent.name for path in SOURCE.glob("*/__init__.py")}
    listed = {name for layer in LAYERS[:-1] for name in layer}
    assert listed == packages, (
        f"only in DESIGN.md: {sorted(listed - packages)}; only in src: {sorted(packages - listed)}"
    )


def test_the_layout_is_read_from_design_md():
    """The parser sees every line of the block as one layer: cli first, the core (errors.py ...) last."""
    assert LAYERS[0] == ("cli",) and LAYERS[1] == ("serve",) and LAYERS[-2] == ("io",)
    assert {"labels", "text", "errors", "versions"} <= set(LAYERS[-1])


def test_imports_point_only_downward():
    upward = []
    for module, imported in GRAPH.items():
        if module in ENTRY_POINTS:
            continue
        for target in imported:
            if target in ENTRY_POINTS:
                upward.append(f"{module} -> {target} (the facade)")
                continue
            source_package, target_package = package_of(module), package_of(target)
            same = source_package == target_package or RANK[source_package] == RANK[target_package] == CORE
            if not same and RANK[target_package] <= RANK[source_package]:
                upward.append(f"{module} -> {target}")
    assert not upward, "imports that point up or sideways:\n" + "\n".join(sorted(upward))


def test_no_module_imports_itself_back_through_others():
    cycles = [component for component in strongly_connected(GRAPH) if len(component) > 1]
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(sorted(c)) for c in cycles)


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (the import graph is deeper than Python's recursion allows, on a bad day)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    return components


def test_the_checks_see_a_cycle_and_an_upward_import():
    """The checks themselves: a made-up graph with a cycle is caught, and the real graph has edges to check."""
    assert [sorted(c) for c in strongly_connected({"a": {"b"}, "b": {"a"}, "c": {"a"}}) if len(c) > 1] == [["a", "b"]]
    assert "affectlab.detectors.base" in GRAPH["affectlab.detectors.tfidf"]
    assert "affectlab.openstates.collect.masking" in GRAPH["affectlab.openstates.predictors.base"]
