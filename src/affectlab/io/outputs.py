"""Output locations, checked before any work starts, and a lock so that two runs never write one output at once.

Every command that writes a file or a folder calls :func:`check_output_file` or :func:`check_output_dir` first, so
that an unwritable folder, a file where a folder is needed (or the reverse) or an existing output that is not the
run's own is one :class:`~affectlab.errors.OutputError` line, not a traceback an hour into the work.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from affectlab.errors import OutputError

__all__ = ["check_output_dir", "check_output_file", "output_lock"]


def check_output_file(path: str | os.PathLike[str], exists_ok: bool = False) -> Path:
    """``path`` as a file this run may create: its folder exists and is writable, and it is not a folder; an
    existing file is an error unless ``exists_ok`` (a run that resumes its own output)."""
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"cannot write {str(path)!r}: it is a folder, and a file is needed here")
    if path.exists() and not exists_ok:
        raise OutputError(f"{str(path)!r} already exists; delete it or choose another output path")
    _check_writable_folder(path.parent, path)
    return path


def check_output_dir(path: str | os.PathLike[str], empty: bool = False) -> Path:
    """``path`` as a folder this run may create or write into: not a file, its parent (or itself) writable; with
    ``empty``, an existing folder must have nothing in it."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OutputError(f"cannot write into {str(path)!r}: it is a file, and a folder is needed here")
    if path.is_dir():
        if empty and any(path.iterdir()):
            raise OutputError(f"{str(path)!r} is not empty; choose a new folder or empty it first")
        _check_writable_folder(path, path)
    else:
        _check_writable_folder(_nearest_existing(path.parent), path)
    return path


def _nearest_existing(folder: Path) -> Path:
    """The closest folder up from ``folder`` that exists (the one a ``mkdir -p`` would write into)."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def _check_writable_folder(folder: Path, target: Path) -> None:
    folder = folder if str(folder) else Path(".")
    if not folder.exists():
        raise OutputError(f"cannot write {str(target)!r}: the folder {str(folder)!r} does not exist")
    if not folder.is_dir():
        raise OutputError(f"cannot write {str(target)!r}: {str(folder)!r} is a file, not a folder")
    try:  # a real file, not os.access(): root passes access() on a read-only mount or a folder like /sys
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise OutputError(
            f"cannot write {str(target)!r}: the folder {str(folder)!r} is not writable ({reason})"
        ) from None


@contextlib.contextmanager
def output_lock(output: str | os.PathLike[str]) -> Iterator[None]:
    """Hold ``<output>.lock`` while a run writes ``output``; a second run asking for it at the same time gets an
    :class:`~affectlab.errors.OutputError` naming the run that holds it (process id, start time, command).

    Written with ``fcntl.flock`` rather than the ``filelock`` package because ``filelock`` truncates the lock file
    on every attempt, which would erase the holder's description before the second run could read it. The lock is
    the operating system's, so a run that is killed releases it; the file is removed when the run ends."""
    path = Path(output)
    path = path.with_name(f"{path.name}.lock")
    descriptor = _acquire(path)
    try:
        os.ftruncate(descriptor, 0)
        holder = {"pid": os.getpid(), "started": _now(), "command": " ".join(sys.argv)}
        os.write(descriptor, json.dumps(holder, ensure_ascii=False).encode("utf-8", "replace"))
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(descriptor)


def _acquire(path: Path) -> int:
    """Open and lock ``path``, retrying if the file was replaced between the open and the lock (a holder that
    finished and removed it), so that two runs never hold locks on two different files of one name."""
    while True:
        try:
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise OutputError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _describe_holder(descriptor)
            os.close(descriptor)
            output = path.with_name(path.name.removesuffix(".lock"))
            raise OutputError(
                f"{str(output)!r} is being written by another run ({holder}); wait for it to finish or choose "
                "another output path"
            ) from None
        with contextlib.suppress(FileNotFoundError):
            if os.fstat(descriptor).st_ino == os.stat(path).st_ino:
                return descriptor
        os.close(descriptor)


def _describe_holder(descriptor: int) -> str:
    try:
        holder = json.loads(os.pread(descriptor, 65536, 0).decode("utf-8"))
        return f"process {holder['pid']}, started {holder['started']}: {holder['command']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "a process that has just started"


def _now() -> str:
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")
