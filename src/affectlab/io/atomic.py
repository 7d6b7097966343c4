"""Writing files so that a failure leaves nothing half-written."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from affectlab.errors import InputError


def write_atomically(contents: Mapping[Path, bytes]) -> None:
    """Write each file through a temporary file beside it, renaming them into place only once all are written,
    so that a failure leaves no file half-written and no temporary file behind."""
    temporary: dict[Path, str] = {}
    mode = 0o666 & ~_current_umask()  # mkstemp makes 0600 files; give them the mode open() would
    try:
        for path, data in contents.items():
            descriptor, temporary[path] = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            os.fchmod(descriptor, mode)
            with os.fdopen(descriptor, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
        for path, name in temporary.items():
            os.replace(name, path)
    except OSError as exc:
        raise InputError(f"cannot write {', '.join(map(str, contents))}: {exc.strerror or exc}") from None
    finally:
        for name in temporary.values():
            Path(name).unlink(missing_ok=True)


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
