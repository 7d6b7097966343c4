"""Resuming an interrupted :func:`affectlab.io.batchfile.score_file` run: the sidecar ``<output>.progress.json``
records the input a run is for and how far it got, after each batch is on disk."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from affectlab.errors import InputError
from affectlab.io.table_writers import AppendWriter, PartsWriter, fsync_file


def progress_path(output: str | Path) -> Path:
    """The sidecar ``<output>.progress.json`` that marks ``output`` as an unfinished run's."""
    output = Path(output)
    return output.with_name(f"{output.name}.progress.json")


def is_finished(output: str | Path) -> bool:
    """Whether ``output`` was written to the end by a run (it exists, and no sidecar marks it unfinished)."""
    return Path(output).is_file() and not progress_path(output).exists()


class Sidecar:
    """``<output>.progress.json``: the input a run is for and how many rows (and bytes or parts) it has finished."""

    def __init__(self, output: Path, identity: dict[str, Any], unit: str) -> None:
        self._output, self._identity, self._unit = output, identity, unit
        self.path = progress_path(output)

    def resume_point(self, writer_type: type[AppendWriter] | type[PartsWriter]) -> tuple[int, int]:
        """Rows done and writer position of an unfinished earlier run for this input; (0, 0) to start afresh."""
        if not self.path.exists():
            if self._output.exists():
                raise InputError(
                    f"{str(self._output)!r} already exists and was not written by an unfinished run for this input; "
                    "delete it or choose another output path"
                )
            return 0, 0
        saved = self._load()
        if any(saved.get(key) != value for key, value in self._identity.items()):
            raise InputError(
                f"{str(self._output)!r} belongs to an unfinished run for another input, text column or labels "
                f"(see {self.path.name}); finish that run, or delete both files to start over"
            )
        rows_done, position = saved.get("rows_done"), saved.get(self._unit)
        if not isinstance(rows_done, int) or not isinstance(position, int):
            raise InputError(f"{str(self.path)!r} is damaged; delete it and {self._output.name} to start over")
        if not writer_type.holds(self._output, position):
            return 0, 0  # the output lost what was recorded (deleted, truncated): it is ours, so start it again
        return rows_done, position

    def _load(self) -> dict[str, Any]:
        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            saved = None
        if not isinstance(saved, dict):
            raise InputError(f"{str(self.path)!r} is damaged; delete it and {self._output.name} to start over")
        return saved

    def save(self, rows_done: int, position: int) -> None:
        """Record progress atomically: a crash leaves the previous record or this one, never half of one."""
        temporary = self.path.with_name(f"{self.path.name}.tmp")
        record = {**self._identity, "rows_done": rows_done, self._unit: position}
        temporary.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
        fsync_file(temporary)
        os.replace(temporary, self.path)

    def remove(self) -> None:
        self.path.unlink()
