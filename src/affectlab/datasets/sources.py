"""Where dataset files come from: a local copy (``--data-dir`` / ``AFFECTLAB_DATA_DIR``, laid out like the
project's shared data folder) or, by default, the official download address, cached under
``~/.cache/affectlab`` (``AFFECTLAB_CACHE_DIR``)."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from affectlab.errors import DataNotFoundError
from affectlab.io.cache_paths import cache_dir

DATA_DIR_ENV = "AFFECTLAB_DATA_DIR"
DOWNLOAD_TIMEOUT_S = 60
REACH_TIMEOUT_S = 5
HUB_URL = "https://huggingface.co"


def resolve_data_dir(data_dir: str | os.PathLike[str] | None) -> Path | None:
    """The local data directory to read: the explicit one, else ``$AFFECTLAB_DATA_DIR``, else None (download)."""
    chosen = data_dir if data_dir is not None else os.environ.get(DATA_DIR_ENV) or None
    if chosen is None:
        return None
    path = Path(chosen).expanduser()
    if not path.is_dir():
        raise DataNotFoundError(f"data directory {str(path)!r} does not exist")
    return path


def data_file(relative_path: str, url: str, data_dir: str | os.PathLike[str] | None) -> Path:
    """Path of a dataset file: ``<data_dir>/<relative_path>`` when a local data directory is set, else the
    file downloaded from ``url`` into the cache (downloaded once, written atomically)."""
    local_dir = resolve_data_dir(data_dir)
    if local_dir is not None:
        path = local_dir / relative_path
        if not path.is_file():
            raise DataNotFoundError(f"missing data file {str(path)!r} (the data directory must hold {relative_path})")
        return path
    cached = cache_dir() / "data" / relative_path
    if not cached.is_file():
        download(url, cached, hint=relative_path)
    return cached


def download(url: str, target: Path, hint: str = "") -> None:
    """Download ``url`` to ``target`` through a temporary file, so a failed download leaves nothing behind."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as response:
            shutil.copyfileobj(response, out)
        os.replace(tmp_name, target)
    except (urllib.error.URLError, OSError) as exc:
        Path(tmp_name).unlink(missing_ok=True)
        raise DataNotFoundError(
            f"could not download {url} ({exc}); put a local copy at <data-dir>/{hint or target.name} "
            f"and pass --data-dir or set {DATA_DIR_ENV}"
        ) from None


def check_reachable(url: str, needed: str, local_copy: str) -> None:
    """Fail in seconds when ``url``'s host cannot be reached, before a library (``datasets``, the Hub client)
    spends minutes retrying: a :class:`DataNotFoundError` names what was ``needed`` and where a local copy goes
    (``local_copy``, under the data directory). Behind a proxy the connection is the proxy's to make, so no check."""
    if any(os.environ.get(name) for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        return
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on") and url.startswith(HUB_URL):
        reason = "HF_HUB_OFFLINE is set"
    else:
        parts = urllib.parse.urlsplit(url)
        try:
            socket.create_connection((parts.hostname, parts.port or 443), timeout=REACH_TIMEOUT_S).close()
            return
        except OSError as exc:
            reason = f"{parts.hostname} cannot be reached: {exc.strerror or exc}"
    raise DataNotFoundError(
        f"could not download {needed} ({reason}); put a local copy at <data-dir>/{local_copy} and pass --data-dir "
        f"or set {DATA_DIR_ENV}"
    )
