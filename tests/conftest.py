"""Shared fixtures: the real data directory (``AFFECTLAB_DATA_DIR`` or ``../shared/data`` beside the checkout)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def _data_dir() -> Path | None:
    candidates = [os.environ.get("AFFECTLAB_DATA_DIR"), REPO.parent / "shared" / "data"]
    for candidate in candidates:
        if candidate and (Path(candidate) / "goemotions").is_dir():
            return Path(candidate)
    return None


DATA_DIR = _data_dir()


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The local copy of the public datasets; tests that need it are skipped without it."""
    if DATA_DIR is None:
        pytest.skip("no data directory: set AFFECTLAB_DATA_DIR or put shared/data beside the checkout")
    return DATA_DIR


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Runs ``affectlab`` in this process with the given arguments (each made a string): its exit code, stdout and
    stderr."""
    from affectlab.cli import main

    def run(*args: object) -> tuple[int, str, str]:
        code = main([str(arg) for arg in args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads a developer's data dir setting, API keys or proxies (loopback requests must not go to a
    proxy), or writes to the real cache or results store."""
    for name in ("AFFECTLAB_DATA_DIR", "AFFECTLAB_LLM_API_KEY", "OPENAI_API_KEY", *PROXY_VARIABLES):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AFFECTLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("AFFECTLAB_RUNS_DB", str(tmp_path / "runs.sqlite"))
