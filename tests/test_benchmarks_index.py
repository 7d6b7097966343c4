"""``benchmarks/README.md`` lists every benchmark script (issue 54): one table row per script, under the section of
its folder, and each script says in its docstring what it measures and where its results go. Read with ``ast``:
no script is imported."""

from __future__ import annotations

import ast
import re
from pathlib import Path

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"
INDEX = BENCHMARKS / "README.md"
SECTION = re.compile(r"^## `(?P<folder>[a-z_]+)/`")
ROW = re.compile(r"^\| `(?P<script>[a-z_]+/[a-z_0-9]+\.py)` \|")


def scripts() -> set[str]:
    """Every script under ``benchmarks/``, as its path below that folder."""
    return {path.relative_to(BENCHMARKS).as_posix() for path in BENCHMARKS.rglob("*.py")}


def index_rows() -> list[tuple[str, str | None]]:
    """(script, the folder of the section it is listed under) for each script row of the index."""
    rows, folder = [], None
    for line in INDEX.read_text(encoding="utf-8").splitlines():
        if section := SECTION.match(line):
            folder = section["folder"]
        elif row := ROW.match(line):
            rows.append((row["script"], folder))
    return rows


def test_every_benchmark_script_is_in_the_index() -> None:
    listed = {script for script, _ in index_rows()}
    assert sorted(scripts() - listed) == []


def test_the_index_names_only_scripts_that_exist_each_once() -> None:
    listed = [script for script, _ in index_rows()]
    assert sorted(set(listed) - scripts()) == []
    assert sorted({script for script in listed if listed.count(script) > 1}) == []


def test_each_script_is_listed_under_its_own_folder() -> None:
    misplaced = [script for script, folder in index_rows() if script.split("/")[0] != folder]
    assert misplaced == []


def test_every_benchmark_script_has_a_module_docstring() -> None:
    undocumented = [
        script
        for script in sorted(scripts())
        if not ast.get_docstring(ast.parse((BENCHMARKS / script).read_text(encoding="utf-8")))
    ]
    assert undocumented == []
