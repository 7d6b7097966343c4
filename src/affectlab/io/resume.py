"""Resuming an interrupted batch run (:class:`affectlab.scale.batch.BatchScorer`): the sidecar
``<output>.progress.json`` records the run an output is for (the input file, every option that changes the output,
the columns) and how far it got, after each batch is on disk. A run resumes only an output made from the same input
with the same options: otherwise its rows would silently mix two models' (or two languages', two text columns')
scores."""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import asdict, dataclass
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


def input_identity(path: Path) -> dict[str, Any]:
    """The input file a resumed run must share with the run that wrote the output so far: its resolved path, size
    and modification time (``path`` is a file the run has checked)."""
    stat = path.stat()
    return {"path": str(path.resolve()), "bytes": stat.st_size, "mtime_ns": stat.st_mtime_ns}


@dataclass(frozen=True)
class RunIdentity:
    """What a resumed run must share with the run that wrote the output so far. ``options`` are the caller's
    options that change the output, by the name a message gives them (the command line's: ``--fast``, ``--lang``)
    -> value (JSON: str, number, bool, None or a list); ``details`` are what follows from them and changes the
    output too (a model's checksum, the text column, the labels, the extra columns), named in a refusal only when no
    option differs, since an option is what the user can set again."""

    input: dict[str, Any]  # the input file's resolved path, size and modification time
    options: dict[str, Any]
    details: dict[str, Any]


class Sidecar:
    """``<output>.progress.json``: the run an output is for and how many rows (and bytes or parts) it has
    finished."""

    def __init__(self, output: Path, identity: RunIdentity, unit: str) -> None:
        self._output, self._unit = output, unit
        self._identity = json.loads(json.dumps(asdict(identity)))  # as it reads back: tuples are lists
        self.path = progress_path(output)

    def resume_point(self, writer_type: type[AppendWriter] | type[PartsWriter]) -> tuple[int, int]:
        """Rows done and writer position of an unfinished earlier run for this input and these options; (0, 0) to
        start afresh. An unfinished output of another input or other options is refused in one line."""
        if not self.path.exists():
            if self._output.exists():
                raise InputError(
                    f"{str(self._output)!r} already exists and was not written by an unfinished run for this input; "
                    "delete it or choose another output path"
                )
            return 0, 0
        saved = self._load()
        self._check_same_run(saved)
        rows_done, position = saved.get("rows_done"), saved.get(self._unit)
        if not isinstance(rows_done, int) or not isinstance(position, int):
            raise InputError(f"{str(self.path)!r} is damaged; {self.start_over()}")
        if not writer_type.holds(self._output, position):
            return 0, 0  # the output lost what was recorded (deleted, truncated): it is ours, so start it again
        return rows_done, position

    def start_over(self) -> str:
        """How to start over instead of resuming: which of the output and the sidecar to delete."""
        names = [path.name for path in (self._output, self.path) if path.exists()] or [self.path.name]
        return f"delete {' and '.join(names)} to start over"

    def _check_same_run(self, saved: dict[str, Any]) -> None:
        name = self._output.name
        if "options" not in saved:  # written before options were recorded: it cannot show the model was the same
            raise InputError(
                f"{name} is an unfinished run of an earlier version of affectlab, which did not record the options "
                f"it was made with, so it cannot be resumed safely; {self.start_over()}"
            )
        if not all(isinstance(saved.get(part), dict) for part in ("input", "options", "details")):
            raise InputError(f"{str(self.path)!r} is damaged; {self.start_over()}")
        was, now = saved["input"], self._identity["input"]
        if was.get("path") != now["path"]:
            raise InputError(
                f"{name} is an unfinished run for another input, {was.get('path')}; run that again to finish it, or "
                f"{self.start_over()}"
            )
        if was != now:
            raise InputError(
                f"{name} is an unfinished run for {Path(now['path']).name} as it was before it changed; "
                f"{self.start_over()}"
            )
        difference = other_options(saved, self._identity)
        if difference:
            raise InputError(
                f"{name} is an unfinished run made {difference}; run it again with the same options to resume it, or "
                f"{self.start_over()}"
            )

    def _load(self) -> dict[str, Any]:
        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            saved = None
        if not isinstance(saved, dict):
            raise InputError(f"{str(self.path)!r} is damaged; {self.start_over()}")
        return saved

    def save(self, rows_done: int, position: int) -> None:
        """Record progress atomically: a crash leaves the previous record or this one, never half of one."""
        temporary = self.path.with_name(f"{self.path.name}.tmp")
        record = {**self._identity, "rows_done": rows_done, self._unit: position}
        temporary.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
        fsync_file(temporary)
        os.replace(temporary, self.path)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def other_options(saved: dict[str, Any], identity: dict[str, Any]) -> str:
    """How the ``options`` (else the ``details``) of a saved run differ from this run's, as a phrase ("with --fast
    (this run: without --fast)"); "" when they are the same."""
    for part in ("options", "details"):
        was, now = saved.get(part) or {}, identity.get(part) or {}
        keys = _differences(was, now)
        if keys:
            made = " and ".join(_phrase(key, was.get(key)) for key in keys)
            asked = " and ".join(_phrase(key, now.get(key)) for key in keys)
            return f"{made} (this run: {asked})"
    return ""


FOLDER_RECORD = ".affectlab-score.json"
"""In a folder of outputs (``affectlab score --output DIR``): the options its files were scored with."""


def check_folder_run(folder: Path, options: dict[str, Any], details: dict[str, Any], finished: list[Path]) -> None:
    """Refuse to add to ``folder``, which holds the ``finished`` outputs of an earlier run (kept, not scored again),
    when that run had other options (:func:`record_folder_run`): the folder would hold two models' scores."""
    if not finished:
        return
    try:
        saved = json.loads((folder / FOLDER_RECORD).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        saved = None
    if not isinstance(saved, dict):
        raise InputError(
            f"{folder} already holds {finished[0].name}, scored by an earlier version of affectlab or with its "
            f"record ({FOLDER_RECORD}) lost, so whether it was scored with these options is unknown; choose "
            "another output folder, or delete its outputs to score them again"
        )
    difference = other_options(saved, _as_read_back(options, details))
    if difference:
        raise InputError(
            f"{folder} holds files scored {difference}; run it again with the same options to finish it, or "
            "choose another output folder"
        )


def record_folder_run(folder: Path, options: dict[str, Any], details: dict[str, Any]) -> None:
    """Record in ``folder`` the options its finished outputs were scored with, once the first is finished (a run
    that fails before leaves nothing behind)."""
    record = folder / FOLDER_RECORD
    temporary = record.with_name(f"{record.name}.tmp")
    temporary.write_text(json.dumps(_as_read_back(options, details), ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(temporary, record)


def _as_read_back(options: dict[str, Any], details: dict[str, Any]) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(json.dumps({"options": options, "details": details}))  # tuples are lists
    return loaded


def _differences(was: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """The names whose values differ; a name only one run has (``--taxonomy`` of the default model, not of a saved
    one) only when no shared name differs, since the difference that explains it is then among those."""
    shared = [key for key in now if key in was and was[key] != now[key]]
    return shared or [*(key for key in now if key not in was), *(key for key in was if key not in now)]


def _phrase(name: str, value: Any) -> str:
    """An option as a run was made with it: "with --fast", "without --lang", "with --lang uk"."""
    if value is None or value is False or value == []:
        return f"without {name}"
    if value is True:
        return f"with {name}"
    shown = ",".join(map(str, value)) if isinstance(value, list) else str(value)
    return f"with {name} {shlex.quote(shown)}"
