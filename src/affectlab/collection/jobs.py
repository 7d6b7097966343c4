"""The collection's jobs, one per ``affectlab annotate`` command that works on a project file: make it from a
protocol and an items file, open it, invite, revoke, open a stage, rotate the owner's token, status, export,
simulate a crowd, recompute an export's labels. The commands print; these do the work."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from affectlab.collection.creation import create_project
from affectlab.collection.log import EventLog, Item
from affectlab.collection.merging import MergedLabels
from affectlab.collection.project import DEFAULT_RESERVATION, Project
from affectlab.errors import InputError
from affectlab.io.progress import Progress


def read_items(path: Path, text_col: str, id_col: str | None, context_col: str | None) -> list[Item]:
    """The items of a table: ids (``id_col``, else the row number from 1), texts, and earlier dialogue turns
    (``context_col``: a JSON list, or turns joined by `` __eot__ ``)."""
    from affectlab.io.tables import open_table

    items = []
    with open_table(path) as table:
        for name in (text_col, id_col, context_col):
            if name is not None and name not in table.columns:
                raise InputError(f"{path.name} has no column {name!r} (columns: {', '.join(table.columns)})")
        for number, (row, problem) in enumerate(table.rows, 1):
            if problem:
                raise InputError(f"{path.name} row {number}: {problem} (a text with the delimiter must be quoted)")
            text = "" if row.get(text_col) is None else str(row[text_col]).strip()
            if not text:
                raise InputError(f"{path.name} row {number}: the text is empty")
            cell = row.get(context_col) if context_col else None
            context: list[str] = []
            if cell not in (None, ""):
                raw = str(cell)
                context = _turns(raw, path, number)
            items.append(Item(str(row.get(id_col)) if id_col else str(number), text, tuple(map(str, context))))
    if not items:
        raise InputError(f"{path.name} has no rows")
    return items


def _turns(raw: str, path: Path, number: int) -> list[str]:
    import json

    if not raw.startswith("["):
        return [turn for turn in raw.split(" __eot__ ") if turn]
    try:
        turns = json.loads(raw)
    except json.JSONDecodeError:
        raise InputError(f"{path.name} row {number}: the context is not a JSON list of turns") from None
    if not isinstance(turns, list):
        raise InputError(f"{path.name} row {number}: the context is not a JSON list of turns")
    return [str(turn) for turn in turns]


def create_from_files(
    project: Path, protocol: Path, items: Path, text_col: str = "text", id_col: str | None = None,
    context_col: str | None = None, controls: Path | None = None, seed: int = 0,
    reservation: str = DEFAULT_RESERVATION,
) -> tuple[Project, str]:  # fmt: skip
    """A new project file from a protocol file, an items table and the control tasks' answers (``item,label,
    value`` rows over items of the table); the owner token, shown once."""
    from affectlab.annotation.protocol import read_protocol
    from affectlab.annotation.readers import read_controls
    from affectlab.io.tables import read_text

    parsed = read_protocol(protocol)  # one-line errors before anything is written
    gold = read_controls(controls) if controls is not None else {}
    if gold and parsed.controls is None:
        raise InputError(f"{protocol.name} has no controls section, so --controls would never be shown")
    return create_project(str(project), read_text(protocol), read_items(items, text_col, id_col, context_col), gold,
                          seed=seed, reservation=reservation)  # fmt: skip


def open_project(path: Path) -> Project:
    """The project in the file ``path``, to read (``status``, ``export``: the file's state when it is opened)."""
    return Project(EventLog.open(path))


@contextmanager
def project_for_writing(path: Path) -> Iterator[Project]:
    """The project in the file ``path``, held as its only writer (``PATH.lock``) while the block runs: a service
    keeps its state in memory, so a second writer beside it (an ``invite`` from the command line while ``serve``
    runs) would go unseen by it. Another writer gets a one-line error naming the process that holds it."""
    from affectlab.io.outputs import output_lock

    if not Path(path).is_file():
        open_project(path)  # the one-line error for a missing file, before a lock file is made beside it
    with output_lock(path):
        project = open_project(path)
        try:
            yield project
        finally:
            project.log.close()


def project_status(project: Project) -> dict[str, Any]:
    """Progress per stage and each annotator's record (what ``annotate status`` prints)."""
    from affectlab.collection.reports import annotator_records, progress

    return {"protocol": project.protocol.name, "stages": progress(project), "annotators": annotator_records(project)}


def read_truth(path: Path, labels: list[str], id_col: str = "id") -> dict[str, frozenset[str]]:
    """Known labels per item id from a table: a ``labels`` column (comma-separated; ``none`` or empty for none), or
    one numeric column per label (above 0: present), as SemEval-2025's Track A files have."""
    from affectlab.io.tables import open_table

    truth: dict[str, frozenset[str]] = {}
    with open_table(path) as table:
        columns = list(table.columns)
        if id_col not in columns:
            raise InputError(f"{path.name} has no column {id_col!r} (columns: {', '.join(columns)})")
        wide = [label for label in labels if label in columns]
        if "labels" not in columns and not wide:
            raise InputError(f"{path.name} has neither a labels column nor a column per label ({', '.join(labels)})")
        for number, (row, problem) in enumerate(table.rows, 1):
            if problem:
                raise InputError(f"{path.name} row {number}: {problem}")
            truth[str(row[id_col])] = _known(row, wide, path, number)
    return truth


def _known(row: dict[str, Any], wide: list[str], path: Path, number: int) -> frozenset[str]:
    if not wide:
        cell = str(row.get("labels") or "")
        return frozenset(part.strip() for part in cell.split(",") if part.strip() and part.strip() != "none")
    try:
        return frozenset(label for label in wide if float(row[label] or 0) > 0)
    except (TypeError, ValueError):
        raise InputError(f"{path.name} row {number}: a label column holds something that is not a number") from None


def relabel_export(folder: Path) -> MergedLabels:
    """``labels.csv`` and ``unasked.csv`` of an ``annotate export`` folder, recomputed from its own
    ``protocol.yaml``, ``answers-<stage>.csv`` and ``controls.csv`` (equal to those it holds, byte for byte, unless
    a file was changed since)."""
    from affectlab.annotation.protocol import read_protocol
    from affectlab.collection.export import labels_from_files

    if not folder.is_dir():
        raise InputError(f"{str(folder)!r} is not a folder (give the folder `annotate export` wrote)")
    protocol = read_protocol(folder / "protocol.yaml")
    files = {}
    for name in [*(f"answers-{stage.name}.csv" for stage in protocol.stages), "controls.csv"]:
        if not (folder / name).is_file():
            raise InputError(f"{str(folder)!r} has no {name} (is it an export of this protocol?)")
        files[name] = (folder / name).read_bytes()
    return labels_from_files(protocol, files)


@contextmanager
def _refusals_as_input_errors() -> Iterator[None]:
    """A project's refusal (a :class:`~.access.CollectionError`, an HTTP status for the service) as the command
    line's one-line error."""
    from affectlab.collection.access import CollectionError

    try:
        yield
    except CollectionError as exc:
        raise InputError(str(exc)) from None


def invite_annotator(path: Path, name: str, expires: str) -> str:
    """Invite annotator ``name`` to the project in ``path``: their new token (shown once)."""
    with _refusals_as_input_errors(), project_for_writing(path) as project:
        return project.invite(name, expires)


def revoke_annotator(path: Path, name: str) -> None:
    """Revoke the invite of annotator ``name``: their token stops working at once."""
    with _refusals_as_input_errors(), project_for_writing(path) as project:
        project.revoke(name)


def open_gated_stage(path: Path, stage: str) -> dict[str, Any]:
    """Open the gated ``stage`` of the project in ``path`` (:func:`.gates.open_stage`)."""
    from affectlab.collection.gates import open_stage

    with _refusals_as_input_errors(), project_for_writing(path) as project:
        return open_stage(project, stage)


def rotate_owner_token(path: Path) -> str:
    """Replace the owner's token of the project in ``path``: the new one (shown once)."""
    with project_for_writing(path) as project:
        return project.rotate_owner()


def export_to(path: Path, out: Path, progress: Progress) -> dict[str, Any]:
    """Export the project in ``path`` to the folder ``out`` (:func:`.export.export_project`): its manifest."""
    from affectlab.collection.export import export_project

    return export_project(open_project(path), out, progress)


def simulate_crowd(
    path: Path, truth: Path, crowd: str, stage: str | None, pages: int, id_col: str, seed: int, progress: Progress
) -> tuple[str, dict[str, Any]]:
    """Let a simulated ``crowd`` (``diligent=6,fast-clicker=1``) work ``stage`` (default: the first) of the project
    in ``path``, answering from the known labels in ``truth`` (:func:`.simulate.simulate`): the stage and, per kind,
    members, pages and how many were stopped."""
    from affectlab.collection.simulate import parse_crowd, simulate

    members = parse_crowd(crowd)
    with _refusals_as_input_errors(), project_for_writing(path) as project:
        stage_name = project.stage(stage).name if stage else project.protocol.stages[0].name
        known = read_truth(truth, project.protocol.label_names, id_col)
        progress(f"{sum(members.values())} simulated annotators on stage {stage_name}")
        return stage_name, simulate(project, known, members, stage_name, pages, seed)


def relabel_export_to(folder: Path, out: Path, unasked: Path | None = None) -> MergedLabels:
    """:func:`relabel_export` written to ``out`` (and the items with labels never asked to ``unasked``), all at
    once; an output that would replace one of the export's own input files is refused."""
    from affectlab.collection.export import csv_bytes
    from affectlab.io.atomic import write_atomically
    from affectlab.io.outputs import check_output_file

    for path in (out, unasked):
        if path is not None:
            check_output_file(path, exists_ok=True)
            if path.resolve().parent == folder.resolve() and path.name.startswith(("answers-", "controls", "protocol")):
                raise InputError(f"--out {str(path)!r} would replace one of the export's own input files")
    merged = relabel_export(folder)
    write_atomically({out: csv_bytes(merged.labels), **({unasked: csv_bytes(merged.unasked)} if unasked else {})})
    return merged


def serve_project(path: Path, host: str, port: int, run: Callable[..., Any]) -> None:
    """Serve the project in ``path`` on ``host:port`` with ``run`` (uvicorn's), as its only writer while it runs."""
    from affectlab.collection.app import create_app

    with project_for_writing(path) as project:
        run(create_app(project), host=host, port=port, log_level="info")
