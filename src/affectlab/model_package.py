"""The shipped models: the ``affectlab-models`` package (``affectlab-models/`` in the checkout; spaCy's pipelines'
way), found by importing it, and its ``manifest.json``, checked whenever a shipped file is loaded.

The package holds the trained files (the default detector's heads, its fine-tuned encoder, the open-state predictor,
the language identifier's n-grams) under a version of their own, and a manifest: the model version, the affectlab
versions the files fit (a specifier such as ``>=0.1,<0.2``), per model the command and commit that built it, and per
file its path, size and SHA-256 (:mod:`affectlab.build.manifest` writes it). A reader of a shipped file passes it
through :func:`verified` first: a changed, damaged or missing file, and an affectlab outside the specifier, are
refused with one :class:`~affectlab.errors.ModelFileError` line naming the file.

Cost: a file is hashed the first time a process loads it (a process loads each shipped model once), streamed
(``hashlib.file_digest``), so no copy is held: about 20 ms for the 23 MB encoder on a 2-core AMD EPYC with SHA
instructions. No verdict is kept between processes: a record keyed by size and mtime would trust a file changed
without a new mtime (a restored copy, a damaged disk), and the library's cache folder sits in ``io``, above the core.
A saved model folder (:mod:`affectlab.detectors.serialization`) is checked by its ``config.json`` alone: that
file records the SHA-256 of the folder's ``arrays.npz`` and other files, which
reading verifies on the very bytes it reads, so the manifest pinning ``config.json`` pins them too (hashing the
31 MB ekman arrays a second time would add as much again to every cold start).
"""

from __future__ import annotations

import hashlib
import json
import operator
import re
from importlib import resources
from pathlib import Path
from typing import Any

from affectlab.errors import ModelFileError
from affectlab.loaded_once import loaded_once
from affectlab.versions import __version__

DISTRIBUTION = "affectlab-models"
PACKAGE = "affectlab_models"
MANIFEST = "manifest.json"
FORMAT = "affectlab-models-manifest"
FORMAT_VERSION = 1
INSTALL = "python -m pip install ./affectlab-models, from affectlab's checkout"
REGENERATE = "python -m affectlab.build.manifest"
NOT_INSTALLED = Path(f"<{DISTRIBUTION} is not installed>")
"""The stand-in folder of the shipped paths when the package is missing (:func:`verified` then says so)."""
_CLAUSE = re.compile(r"\s*(>=|<=|==|!=|<|>)\s*(\d+(?:\.\d+)*)\s*")
_RELEASE = re.compile(r"\d+(?:\.\d+)*")
_COMPARE = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
}


@loaded_once
def package_dir() -> Path:
    """The folder of the installed ``affectlab_models`` package (imported to find it), or :data:`NOT_INSTALLED`."""
    try:
        root = resources.files(PACKAGE)
    except ModuleNotFoundError:
        return NOT_INSTALLED
    return root if isinstance(root, Path) else NOT_INSTALLED


def shipped_path(relative: str) -> Path:
    """Where the model package keeps ``relative`` (a model's folder or file); load it through :func:`verified`."""
    return package_dir() / relative


def fits(version: str, specifier: str) -> bool:
    """Whether affectlab ``version`` is inside ``specifier``: comma-separated PEP 440 comparison clauses (``>=``,
    ``<=``, ``==``, ``!=``, ``<``, ``>``) on release numbers, compared as numbers with the shorter padded with zeros;
    a pre-release or local part of ``version`` is left out. A manifest needs no more, and ``packaging``, which reads
    every specifier, takes 45 ms to import."""
    release = _numbers(_RELEASE.match(version.strip()))
    for clause in specifier.split(","):
        match = _CLAUSE.fullmatch(clause)
        if match is None:
            raise ModelFileError(f"{clause.strip()!r} is not a version clause this affectlab reads (such as >=0.1)")
        bound = _numbers(_RELEASE.fullmatch(match[2]))
        width = max(len(release), len(bound))
        if not _COMPARE[match[1]](release + (0,) * (width - len(release)), bound + (0,) * (width - len(bound))):
            return False
    return True


def _numbers(match: re.Match[str] | None) -> tuple[int, ...]:
    return tuple(int(part) for part in match[0].split(".")) if match else ()


@loaded_once
def manifest() -> dict[str, Any]:
    """The installed package's manifest, read once per process; refused when the package is missing, the manifest
    is unreadable or this affectlab is outside the versions it fits."""
    root = package_dir()
    if root == NOT_INSTALLED:
        raise ModelFileError(f"the model package {DISTRIBUTION} is not installed: {INSTALL}")
    path = root / MANIFEST
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelFileError(f"{str(path)!r} cannot be read ({exc}): reinstall the model package ({INSTALL})") from None
    if not isinstance(record, dict) or (record.get("format"), record.get("format_version")) != (FORMAT, FORMAT_VERSION):
        raise ModelFileError(f"{str(path)!r} is not a manifest this affectlab reads ({FORMAT} {FORMAT_VERSION})")
    if not fits(__version__, record["affectlab"]):
        raise ModelFileError(
            f"{DISTRIBUTION} {record['version']} fits affectlab {record['affectlab']}, not this affectlab "
            f"{__version__}: install the model package of this affectlab's checkout ({INSTALL})"
        )
    return record


@loaded_once
def listed() -> dict[str, dict[str, Any]]:
    """The manifest's files by path (relative to the package, with ``/``)."""
    return {entry["path"]: entry for entry in manifest()["files"]}


def verified(path: Path) -> Path:
    """``path`` (a shipped file, or a folder: every file the manifest lists under it), once each file's size and
    SHA-256 match the manifest; each file is hashed once per process."""
    name = _relative(path)
    names = [listed_name for listed_name in listed() if listed_name == name or listed_name.startswith(f"{name}/")]
    if not names:
        raise ModelFileError(f"{str(path)!r} is not in the manifest of {_label()}: after a rebuild, run {REGENERATE}")
    for listed_name in names:
        _check(listed_name)
    return path


def _relative(path: Path) -> str:
    manifest()  # the package is there and fits this affectlab
    root = package_dir()
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        raise ModelFileError(f"{str(path)!r} is not a file of the model package at {str(root)!r}") from None


@loaded_once
def _check(name: str) -> bool:
    """True once the listed file ``name`` matches the manifest, which is then kept; a refusal is not kept."""
    entry = listed()[name]
    file = package_dir() / name
    try:
        size = file.stat().st_size
    except OSError:
        raise ModelFileError(f"{str(file)!r} is missing from {_label()} (its manifest lists it): {INSTALL}") from None
    if size != entry["size"] or file_sha256(file) != entry["sha256"]:
        raise ModelFileError(
            f"{str(file)!r} does not match the manifest of {_label()} (changed or damaged): reinstall the model "
            f"package ({INSTALL}), or after a rebuild run {REGENERATE}"
        )
    return True


def _label() -> str:
    return f"{DISTRIBUTION} {manifest()['version']}"


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file, read in chunks."""
    with path.open("rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def forget() -> None:
    """Read the manifest and hash the files anew at their next load (after a build rewrote them)."""
    _check.clear()
    manifest.clear()
    listed.clear()
