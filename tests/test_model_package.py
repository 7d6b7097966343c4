"""The shipped models are a package of their own, ``affectlab-models`` (:mod:`affectlab.model_package`): its
committed manifest matches its files, every listed file is packaged, and what affectlab loads from it is checked
against the manifest: a changed file, a missing package and an affectlab outside the versions the models fit are
each refused in one line. Tiny model packages are built here from the saved test models, never by editing the
installed one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from affectlab import model_package
from affectlab.build.manifest import check_new_version, model_files, project_version, write_manifest
from affectlab.errors import InputError, ModelFileError
from affectlab.langid import MODEL_FILE
from affectlab.model_package import file_sha256, fits, verified
from affectlab.versions import __version__

REPO = Path(__file__).resolve().parents[1]
PROJECT = REPO / "affectlab-models"
TINY_HEAD = Path(__file__).parent / "fixtures" / "saved_models_0.1.0" / "tfidf-lr"
"""A saved ekman-space model of a few kilobytes, standing in for a shipped head."""


def tiny_package(tmp_path: Path, version: str = "2026.1.1") -> Path:
    """A model package project in ``tmp_path`` (pyproject.toml + src/affectlab_models) with the tiny head as its
    ekman head and the shipped language identifier, its manifest written; returns the package folder."""
    project = tmp_path / "affectlab-models"
    root = project / "src" / "affectlab_models"
    shutil.copytree(TINY_HEAD, root / "default_heads" / "ekman")
    (root / "langid").mkdir()
    shutil.copy(MODEL_FILE, root / "langid" / MODEL_FILE.name)
    (root / "__init__.py").write_text('"""A tiny model package."""\n', encoding="utf-8")
    (project / "pyproject.toml").write_text(f'[project]\nname = "affectlab-models"\nversion = "{version}"\n')
    write_manifest(root)
    return root


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A tiny package that affectlab takes for the installed one (this process only)."""
    root = tiny_package(tmp_path)
    monkeypatch.setattr(model_package, "package_dir", lambda: root)
    model_package.forget()
    yield root
    model_package.forget()


def test_the_committed_manifest_lists_every_model_file_with_its_size_and_sha256():
    root = model_package.package_dir()
    manifest = json.loads((root / model_package.MANIFEST).read_text(encoding="utf-8"))
    on_disk = [
        {"path": path.relative_to(root).as_posix(), "size": path.stat().st_size, "sha256": file_sha256(path)}
        for path in model_files(root)
    ]
    assert manifest["files"] == on_disk, "run python -m affectlab.build.manifest (with a new version if files changed)"
    assert manifest["version"] == project_version(root)
    assert fits(__version__, manifest["affectlab"])
    assert set(manifest["models"]) == {"default_heads", "e5_affect", "langid", "open_states"}
    assert all(record["command"] and record["commit"] for record in manifest["models"].values())


PACKAGE_LIMIT_MB = 66.0
"""The model files' total (63.2 MB as shipped by 2026.11.30.1, 81.6 MB before its n-gram members stored their
weights in float16: :data:`affectlab.build.heads.TFIDF_MEMBER`, issue 54): a rebuild that grows the package past it
fails here."""


def test_the_model_package_stays_under_its_size_line():
    root = model_package.package_dir()
    manifest = json.loads((root / model_package.MANIFEST).read_text(encoding="utf-8"))
    total = sum(entry["size"] for entry in manifest["files"]) / 1e6
    assert total <= PACKAGE_LIMIT_MB, f"the model files take {total:.1f} MB, over the {PACKAGE_LIMIT_MB} MB line"


def test_every_listed_file_is_package_data_of_the_model_package():
    settings = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    root = PROJECT / "src" / "affectlab_models"
    packaged = {path for pattern in settings["package-data"]["affectlab_models"] for path in root.glob(pattern)}
    listed = {root / entry["path"] for entry in model_package.manifest()["files"]}
    assert listed <= packaged, f"not packaged: {sorted(map(str, listed - packaged))}"
    assert root / model_package.MANIFEST in packaged


def test_the_shipped_paths_are_in_the_installed_model_package():
    from affectlab.detectors.default import HEADS_DIR
    from affectlab.encoders.sentence import E5_AFFECT_DIR
    from affectlab.openstates.predictors.open_vocabulary import HEADS_DIR as OPEN_STATES_DIR

    root = model_package.package_dir()
    assert [path.relative_to(root).as_posix() for path in (HEADS_DIR, E5_AFFECT_DIR, OPEN_STATES_DIR, MODEL_FILE)] == [
        "default_heads",
        "e5_affect",
        "open_states",
        "langid/langid_ngrams.npz",
    ]


def test_a_listed_file_passes_and_is_hashed_once_per_process(installed, monkeypatch):
    hashed = []
    monkeypatch.setattr(model_package, "file_sha256", lambda path: hashed.append(path) or file_sha256(path))
    langid = installed / "langid" / MODEL_FILE.name
    assert verified(langid) == langid
    assert verified(langid) == langid
    assert hashed == [langid]


def test_threads_verifying_a_file_at_once_hash_it_once(installed, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    hashed = []
    monkeypatch.setattr(model_package, "file_sha256", lambda path: hashed.append(path) or file_sha256(path))
    head = installed / "default_heads" / "ekman"
    with ThreadPoolExecutor(8) as pool:
        assert set(pool.map(verified, [head] * 8)) == {head}
    assert sorted(hashed) == sorted(path for path in head.iterdir() if path.is_file())


def test_a_changed_file_is_refused_in_one_line(installed):
    config = installed / "default_heads" / "ekman" / "config.json"
    config.write_bytes(config.read_bytes().replace(b'"format"', b'"Format"', 1))  # the same size, other bytes
    with pytest.raises(ModelFileError) as refused:
        verified(config)
    message = str(refused.value)
    assert "\n" not in message and str(config) in message and "does not match the manifest" in message


def test_a_changed_array_file_of_a_head_is_refused_through_its_config(installed):
    """A head is checked by its config.json, which pins its arrays.npz: reading verifies the bytes it reads."""
    from affectlab.detectors.registry import read_detector

    arrays = installed / "default_heads" / "ekman" / "arrays.npz"
    data = bytearray(arrays.read_bytes())
    data[-30] ^= 1
    arrays.write_bytes(bytes(data))
    with pytest.raises(ModelFileError) as refused:
        read_detector(verified(arrays.parent / "config.json").parent)
    assert "\n" not in str(refused.value) and str(arrays) in str(refused.value)


def test_a_file_the_manifest_does_not_list_is_refused(installed):
    (installed / "default_heads" / "goemotions").mkdir()
    with pytest.raises(ModelFileError, match=r"not in the manifest .* python -m affectlab\.build\.manifest"):
        verified(installed / "default_heads" / "goemotions" / "config.json")


def test_an_affectlab_outside_the_versions_the_models_fit_is_refused(installed):
    path = installed / model_package.MANIFEST
    path.write_text(path.read_text(encoding="utf-8").replace('">=0.1,<0.2"', '">=9.0"'), encoding="utf-8")
    model_package.forget()
    with pytest.raises(ModelFileError, match=r"affectlab-models 2026\.1\.1 fits affectlab >=9\.0, not this affectlab"):
        verified(installed / "langid" / MODEL_FILE.name)


def test_a_missing_model_package_is_refused_with_how_to_install_it(monkeypatch):
    monkeypatch.setattr(model_package, "package_dir", lambda: model_package.NOT_INSTALLED)
    model_package.forget()
    try:
        with pytest.raises(ModelFileError, match=r"affectlab-models is not installed: python -m pip install \./"):
            verified(model_package.NOT_INSTALLED / "default_heads")
    finally:
        model_package.forget()


@pytest.mark.parametrize(
    ("version", "specifier", "expected"),
    [
        ("0.1.0", ">=0.1,<0.2", True),
        ("0.1.7", ">=0.1, <0.2", True),
        ("0.2.0", ">=0.1,<0.2", False),
        ("0.0.9", ">=0.1,<0.2", False),
        ("0.2", "==0.2.0", True),
        ("1.0.0", "!=1.0", False),
        ("0.2.0rc1", "<0.2", False),
    ],
)
def test_fits_compares_release_numbers(version, specifier, expected):
    assert fits(version, specifier) is expected


def test_fits_refuses_a_clause_it_cannot_read():
    with pytest.raises(ModelFileError, match="not a version clause"):
        fits("0.1.0", "~=0.1")


def test_rewriting_changed_files_needs_a_new_version(tmp_path):
    root = tiny_package(tmp_path)
    (root / "langid" / MODEL_FILE.name).write_bytes(b"rebuilt")
    with pytest.raises(InputError, match=r"still 2026\.1\.1: give it a new version"):
        write_manifest(root)
    with pytest.raises(InputError, match=r"2026\.1\.1 is the shipped build"):
        check_new_version(root)
    pyproject = root.parents[1] / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace("2026.1.1", "2026.1.2"), encoding="utf-8")
    check_new_version(root)
    record = write_manifest(root, built={"langid": "python -m affectlab.build.langid_model --data-dir DIR"})
    assert record["version"] == "2026.1.2"
    rebuilt = {"path": "langid/langid_ngrams.npz", "size": 7, "sha256": file_sha256(root / "langid" / MODEL_FILE.name)}
    assert rebuilt in record["files"]
    assert record["models"]["langid"] == {
        "command": "python -m affectlab.build.langid_model --data-dir DIR",
        "commit": None,  # no git checkout around tmp_path
    }


def test_detect_refuses_a_changed_shipped_file_in_one_line(tmp_path):
    """The command line, with a tiny package found first on the path: it answers, then refuses once a file of the
    head changed, in one line on stderr (exit code 2)."""
    root = tiny_package(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(root.parent)}
    command = [sys.executable, "-m", "affectlab", "detect", "I am so happy today", "--json"]
    answered = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert answered.returncode == 0, answered.stderr
    assert json.loads(answered.stdout)["text"] == "I am so happy today"
    config = root / "default_heads" / "ekman" / "config.json"
    config.write_bytes(config.read_bytes() + b" ")
    refused = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1, refused.stderr
    assert str(config) in refused.stderr and "does not match the manifest" in refused.stderr


def test_a_build_is_not_recorded_from_uncommitted_code(tmp_path):
    """A manifest names the commit that built its models, so a checkout with changes outside the model package is
    refused until they are committed (issue 54: one manifest entry said ``+dirty``)."""
    root = tiny_package(tmp_path)
    project = root.parents[1]
    (tmp_path / "code.py").write_text("print(1)\n", encoding="utf-8")

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path,
                              capture_output=True, text=True, check=True)  # fmt: skip
        return done.stdout.strip()

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "first")
    (tmp_path / "code.py").write_text("print(2)\n", encoding="utf-8")
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace("2026.1.1", "2026.1.2"), encoding="utf-8")
    (root / "langid" / MODEL_FILE.name).write_bytes(b"rebuilt")
    with pytest.raises(InputError, match="uncommitted changes outside the model package"):
        write_manifest(root, built={"langid": "python -m affectlab.build.langid_model --data-dir DIR"})
    git("commit", "-qam", "the code that builds")
    record = write_manifest(root, built={"langid": "python -m affectlab.build.langid_model --data-dir DIR"})
    assert record["models"]["langid"]["commit"] == git("rev-parse", "--short=12", "HEAD")
