"""The download path used by real users, exercised against a server on loopback."""

import functools
import http.server
import threading

import pytest

from affectlab.datasets import sources
from affectlab.errors import DataNotFoundError


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "served"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_download_goes_to_the_cache_once(served):
    root, base = served
    (root / "train.tsv").write_text("hello\t27\tid1\n", encoding="utf-8")
    path = sources.data_file("goemotions/train.tsv", f"{base}/train.tsv", None)
    assert path.read_text(encoding="utf-8") == "hello\t27\tid1\n"
    assert path.is_relative_to(sources.cache_dir())
    (root / "train.tsv").unlink()  # cached: no second download
    assert sources.data_file("goemotions/train.tsv", f"{base}/train.tsv", None) == path


def test_failed_download_says_how_to_use_a_local_copy_and_leaves_nothing(served):
    _, base = served
    with pytest.raises(DataNotFoundError, match="--data-dir"):
        sources.data_file("goemotions/dev.tsv", f"{base}/missing.tsv", None)
    folder = sources.cache_dir() / "data" / "goemotions"
    assert not folder.exists() or not any(folder.iterdir())


def test_local_data_dir_wins_over_download(tmp_path, monkeypatch):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "f.txt").write_text("local", encoding="utf-8")
    monkeypatch.setenv(sources.DATA_DIR_ENV, str(tmp_path))
    assert sources.data_file("x/f.txt", "http://127.0.0.1:9/never", None).read_text() == "local"


def test_missing_data_dir_is_reported(tmp_path):
    with pytest.raises(DataNotFoundError, match="does not exist"):
        sources.resolve_data_dir(tmp_path / "absent")
