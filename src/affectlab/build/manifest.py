"""Write the model package's ``manifest.json`` (:mod:`affectlab.model_package`): every file of its model folders
with its size and SHA-256, the model version (the package's ``pyproject.toml``), the affectlab versions it fits, and
per model the command and commit of the build that made its files.

    python -m affectlab.build.manifest                      # after any change to the files, in the checkout
    python -m affectlab.build.manifest --built open_states="affectlab asi build-default --data-dir ../shared/data"

``affectlab build-default`` and ``python -m affectlab.build.langid_model`` write it themselves when they write into
the package. It runs on the checkout's copy of the package (installed with ``pip install -e ./affectlab-models``):
a rebuild replaces the files in place, and files that changed need a new version in the package's
``pyproject.toml`` first (:func:`check_new_version`), so a version names one set of bytes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from affectlab.errors import InputError, ModelFileError
from affectlab.io.atomic import write_atomically
from affectlab.model_package import (
    DISTRIBUTION,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    NOT_INSTALLED,
    file_sha256,
    fits,
    forget,
    package_dir,
)
from affectlab.versions import __version__

PYPROJECT = "pyproject.toml"


def package_root() -> Path:
    """The checkout's model package folder (``affectlab-models/src/affectlab_models``), the one a build writes into."""
    root = package_dir()
    if root == NOT_INSTALLED or not (_project(root) / PYPROJECT).is_file():
        raise InputError(
            f"{DISTRIBUTION} is not installed from a checkout (found: {root}); rebuild in affectlab's checkout, with "
            "`python -m pip install -e ./affectlab-models`"
        )
    return root


def _project(root: Path) -> Path:
    """The model package's project folder (``affectlab-models``, above ``src/affectlab_models``)."""
    return root.parents[1]


def project_version(root: Path) -> str:
    """The model package's version, as its ``pyproject.toml`` gives it."""
    return str(tomllib.loads((_project(root) / PYPROJECT).read_text(encoding="utf-8"))["project"]["version"])


def shipped_manifest(root: Path) -> dict[str, Any]:
    """The manifest now in ``root`` (empty when there is none yet)."""
    path = root / MANIFEST
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def check_new_version(root: Path) -> None:
    """Refuse to rebuild into the package under the version of the build it ships (before a build starts)."""
    version = project_version(root)
    if version == shipped_manifest(root).get("version"):
        raise InputError(
            f"{DISTRIBUTION} {version} is the shipped build: give the rebuild a new version first (the date, YYYY.M.D, "
            f"in {_project(root) / PYPROJECT})"
        )


def model_files(root: Path) -> list[Path]:
    """The files of the package's model folders (each folder under ``root`` is one model), sorted; hidden files
    (a build's staging folders) and ``__pycache__`` left out."""
    return sorted(
        path
        for path in root.glob("*/**/*")
        if path.is_file()
        and not any(part.startswith(".") or part == "__pycache__" for part in path.relative_to(root).parts)
        and path.suffix != ".tmp"
    )


def build_commit(root: Path) -> str | None:
    """The checkout's commit, with ``+dirty`` when files outside the model package differ from it (the build ran
    on uncommitted code, which the commit that ships the files holds); None outside a git checkout."""
    try:
        head = _git(root, "rev-parse", "--short=12", "HEAD")
        outside = (":(top)", f":(top,exclude){_project(root).name}")  # the whole checkout but the model package
        changed = _git(root, "status", "--porcelain", "--untracked-files=no", "--", *outside)
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{head}+dirty" if changed else head


def check_clean_tree(root: Path) -> None:
    """Refuse to record a build from a checkout with uncommitted changes outside the model package: the manifest's
    commit must hold the code that built the models (a ``+dirty`` commit names code nobody can check out)."""
    commit = build_commit(root)
    if commit is not None and commit.endswith("+dirty"):
        raise InputError(
            "the checkout has uncommitted changes outside the model package (git status): commit them first, so "
            "that the manifest's commit holds the code that built the models"
        )


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30, check=True)
    return done.stdout.strip()


def write_manifest(
    root: Path | None = None, built: dict[str, str] | None = None, fits_spec: str | None = None
) -> dict[str, Any]:
    """Write ``root``'s manifest (default: the checkout's package) from its files as they are now; ``built``
    (model folder -> the command that built it) records those models' builds with this checkout's commit, and
    ``fits_spec`` the affectlab versions the files fit (default: the manifest's, else this affectlab's minor)."""
    root = root or package_root()
    old = shipped_manifest(root)
    version = project_version(root)
    files = [
        {"path": path.relative_to(root).as_posix(), "size": path.stat().st_size, "sha256": file_sha256(path)}
        for path in model_files(root)
    ]
    if old.get("files") and files != old["files"] and version == old.get("version"):
        raise InputError(
            f"the model files changed but {DISTRIBUTION} is still {version}: give it a new version (YYYY.M.D) in "
            f"{_project(root) / PYPROJECT} and run python -m affectlab.build.manifest again"
        )
    models: dict[str, dict[str, Any]] = {str(entry["path"]).split("/")[0]: {} for entry in files}
    models |= {name: record for name, record in old.get("models", {}).items() if name in models}
    if built:
        check_clean_tree(root)
    for name, command in (built or {}).items():
        if name not in models:
            raise InputError(f"{name!r} is not a model folder of {root} (folders: {', '.join(models)})")
        models[name] = {"command": command, "commit": build_commit(root)}
    record = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "name": DISTRIBUTION,
        "version": version,
        "affectlab": _checked_fits(fits_spec or old.get("affectlab") or _this_minor()),
        "models": models,
        "files": files,
    }
    write_atomically({root / MANIFEST: (json.dumps(record, indent=1, ensure_ascii=False) + "\n").encode("utf-8")})
    forget()
    return record


def _this_minor() -> str:
    major, minor = (int(part) for part in __version__.split(".")[:2])
    return f">={major}.{minor},<{major}.{minor + 1}"


def _checked_fits(spec: str) -> str:
    try:
        fitting = fits(__version__, spec)
    except ModelFileError as exc:
        raise InputError(str(exc)) from None
    if not fitting:
        raise InputError(f"this affectlab {__version__} is outside {spec!r}: its own loads would refuse the package")
    return spec


def main(argv: list[str] | None = None) -> int:
    """``python -m affectlab.build.manifest [--built MODEL=COMMAND ...] [--fits SPEC]``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--built", action="append", default=[], metavar="MODEL=COMMAND",
                        help="record that COMMAND, run on this checkout, built the model folder MODEL")  # fmt: skip
    parser.add_argument("--fits", help="the affectlab versions the files fit (a specifier such as '>=0.1,<0.2')")
    args = parser.parse_args(argv)
    try:
        built = dict(_model_and_command(item) for item in args.built)
        record = write_manifest(built=built, fits_spec=args.fits)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    size = sum(entry["size"] for entry in record["files"])
    print(f"{DISTRIBUTION} {record['version']}: {len(record['files'])} files, {size / 1e6:.1f} MB, fits affectlab "
          f"{record['affectlab']}")  # fmt: skip
    return 0


def _model_and_command(item: str) -> tuple[str, str]:
    model, separator, command = item.partition("=")
    if not separator or not model or not command:
        raise InputError(f"--built takes MODEL=COMMAND, not {item!r}")
    return model, command


if __name__ == "__main__":
    raise SystemExit(main())
