"""``affectlab annotate create|invite|revoke|rotate-owner|open-stage|status|serve|export``: a collection project
file made, worked on by annotators through the service, and exported (:mod:`affectlab.collection`). Registered on
the ``annotate`` group by :func:`register`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Column, Table
from rich.text import Text

from affectlab.cli.options import Json
from affectlab.cli.output import print_json, stage_progress, stdout, styled
from affectlab.extras import require

ProjectFile = typer.Argument(..., help="The project file (SQLite) that `annotate create` made.", show_default=False)
DEFAULT_PORT = 8765


ProtocolOption = typer.Option(
    ..., "--protocol", help="The protocol (YAML; `annotate init` writes one).", show_default=False
)
ItemsOption = typer.Option(
    ...,
    "--items",
    help="The texts to annotate (.csv, .tsv, .jsonl, .parquet; "
    "`annotate select` writes one), control tasks among them.",
    show_default=False,
)
IdColumn = typer.Option(None, "--id-col", help="The items' id column (default: the row number).", show_default=False)
ContextColumn = typer.Option(
    None,
    "--context-col",
    help="Earlier dialogue turns (a JSON list, or turns joined by ' __eot__ ').",
    show_default=False,
)
ControlsOption = typer.Option(
    None,
    "--controls",
    help="Control tasks' known answers (item, label, value rows over ids of --items).",
    show_default=False,
)


def create_command(
    project: Path = typer.Argument(
        ..., help="The project file to make (.sqlite; never overwritten).", show_default=False
    ),
    protocol: Path = ProtocolOption,
    items: Path = ItemsOption,
    text_col: str = typer.Option("text", "--text-col", help="The items' text column."),
    id_col: str | None = IdColumn,
    context_col: str | None = ContextColumn,
    controls: Path | None = ControlsOption,
    seed: int = typer.Option(0, "--seed", help="Seeds where control tasks fall on pages."),
    reservation: str = typer.Option("30m", "--reservation", help="How long a page holds its items (15m, 1h)."),
    as_json: bool = Json,
) -> None:
    """Make a collection project: one SQLite file holding the protocol, the items, the control answers and the
    log of every event to come. Prints the owner's token once (only its hash is kept)."""
    require("yaml", "annotate", "affectlab annotate create")
    from affectlab.collection.jobs import create_from_files

    made, token = create_from_files(project, protocol, items, text_col, id_col, context_col, controls, seed,
                                    reservation)  # fmt: skip
    summary = {"project": str(project), "items": len(made.items), "controls": len({i for i, _ in made.gold}),
               "owner_token": token}  # fmt: skip
    if as_json:
        print_json(summary)
        return
    stdout.print(styled("made {} with {} items ({} control tasks)", project, summary["items"], summary["controls"]))
    stdout.print(styled("owner token (shown once; keep it secret): {}", token))


def invite_command(
    project: Path = ProjectFile,
    name: str = typer.Argument(
        ..., help="The annotator's name (never exported: exports use pseudonyms).", show_default=False
    ),
    expires: str = typer.Option("14d", "--expires", help="How long the invite lasts (12h, 14d)."),
    url: str = typer.Option(f"http://127.0.0.1:{DEFAULT_PORT}", "--url", help="Where the service is reached."),
    as_json: bool = Json,
) -> None:
    """Invite an annotator: a token of their own (a new one replaces the old), shown once, with the link that
    opens the annotation page already signed in."""
    from affectlab.collection.jobs import invite_annotator

    token = invite_annotator(project, name, expires)
    link = f"{url.rstrip('/')}/#token={token}"
    if as_json:
        print_json({"name": name, "token": token, "link": link, "expires": expires})
        return
    stdout.print(styled("invited {} for {}; send them this link (shown once):", name, expires))
    stdout.print(link, soft_wrap=True, markup=False, highlight=False)


def revoke_command(project: Path = ProjectFile, name: str = typer.Argument(..., show_default=False),
                   as_json: bool = Json) -> None:  # fmt: skip
    """Revoke an annotator's invite: their token stops working at once (their answers stay)."""
    from affectlab.collection.jobs import revoke_annotator

    revoke_annotator(project, name)
    if as_json:
        print_json({"name": name, "revoked": True})
        return
    stdout.print(styled("revoked the invite of {}", name))


def open_stage_command(project: Path = ProjectFile, stage: str = typer.Argument(..., show_default=False),
                       as_json: bool = Json) -> None:  # fmt: skip
    """Open a gated stage: it receives the items that pass its gate in the stage before (EmoBench-UA's second
    project: every text with a label other than none there); again later, it adds the items finished since."""
    from affectlab.collection.jobs import open_gated_stage

    opened = open_gated_stage(project, stage)
    if as_json:
        print_json(opened)
        return
    stdout.print(styled("stage {} receives {} of the {} items aggregated in {}", opened["stage"], opened["items"],
                        opened["aggregated"], opened["from"]))  # fmt: skip


def status_command(project: Path = ProjectFile, as_json: bool = Json) -> None:
    """A project's progress per stage and each annotator's pages, speed, control accuracy and standing."""
    from affectlab.collection.jobs import open_project, project_status

    status = project_status(open_project(project))
    if as_json:
        print_json(status)
        return
    stdout.print(_table(["stage", "open", "items", "complete", "answers", "skips", "open_pages"], status["stages"]))
    columns = ["name", "pseudonym", "status", "pages", "skipped_pages", "median_seconds", "control_accuracy"]
    stdout.print(_table(columns, status["annotators"]))


def _table(columns: list[str], rows: list[dict[str, Any]]) -> Table:
    """``rows`` under ``columns``, each cell a :class:`~rich.text.Text` (a name such as ``[/]`` is shown as typed,
    never read as markup) folded onto more lines rather than cut where the terminal is narrow."""
    table = Table(*(Column(column, overflow="fold") for column in columns))
    for row in rows:
        cells = [row[c] for c in columns]
        table.add_row(*(Text("" if v is None else f"{v:.3g}" if isinstance(v, float) else str(v)) for v in cells))
    return table


def serve_command(
    project: Path = ProjectFile,
    host: str = typer.Option("127.0.0.1", "--host", help="Where to listen (0.0.0.0 opens it to the network)."),
    port: int = typer.Option(DEFAULT_PORT, "--port", min=1, max=65535),
) -> None:
    """Serve a project to its annotators and owner: the annotation page at /, the owner's page at /owner, the
    API under /api. Every event is logged before it is answered, so a restart loses nothing and keeps every ban."""
    uvicorn = require("uvicorn", "serve", "affectlab annotate serve")
    require("fastapi", "serve", "affectlab annotate serve")
    from affectlab.collection.jobs import serve_project

    serve_project(project, host, port, uvicorn.run)


def export_command(
    project: Path = ProjectFile,
    out: Path = typer.Option(..., "--out", "-o", help="An empty or new folder for the export.", show_default=False),
    as_json: bool = Json,
) -> None:
    """Export a project: every answer (pseudonymous), the control answers, the merged labels with confidence, each
    annotator's record, agreement with intervals and SHCMP, the protocol; `annotate aggregate/agreement/report`
    and `affectlab train --dataset` read them."""
    from affectlab.collection.jobs import export_to

    with stage_progress(not as_json) as progress:
        manifest = export_to(project, out, progress)
    if as_json:
        print_json({**manifest, "out": str(out)})
        return
    stdout.print(styled("exported {} finished items ({} passing) and {} answers to {}", manifest["finished_items"],
                        manifest["passing_items"], manifest["answers"], out))  # fmt: skip


def relabel_command(
    export: Path = typer.Argument(..., help="The folder `annotate export` wrote.", show_default=False),
    out: Path = typer.Option(..., "--out", "-o", help="The labels file to write (CSV).", show_default=False),
    unasked: Path | None = typer.Option(
        None, "--unasked", help="Also write the items with labels never asked here (CSV).", show_default=False
    ),
    as_json: bool = Json,
) -> None:
    """Recompute an export's labels.csv from its protocol, answers and controls files alone (the same code as the
    export; the result equals its labels.csv byte for byte)."""
    from affectlab.collection.jobs import relabel_export_to

    merged = relabel_export_to(export, out, unasked)
    summary = {"labels": len(merged.labels), "unasked": len(merged.unasked), "out": str(out)}
    if as_json:
        print_json(summary)
        return
    stdout.print(styled("wrote the labels of {} items to {} ({} more have labels never asked)", summary["labels"],
                        str(out), summary["unasked"]))  # fmt: skip


TruthOption = typer.Option(
    ...,
    "--truth",
    help="Known labels per item id: a 'labels' column, or a column per label (SemEval-2025's Track A files).",
    show_default=False,
)
CrowdOption = typer.Option(
    "diligent=5",
    "--crowd",
    help="Simulated annotators, KIND=COUNT: diligent, fast-clicker, skipper, control-failer.",
)
StageOption = typer.Option(None, "--stage", help="The stage to work on (default: the first).", show_default=False)


def simulate_command(
    project: Path = ProjectFile,
    truth: Path = TruthOption,
    crowd: str = CrowdOption,
    stage: str | None = StageOption,
    pages: int = typer.Option(40, "--pages", min=1, help="Pages each member works at most."),
    id_col: str = typer.Option("id", "--id-col", help="The truth file's id column."),
    seed: int = typer.Option(0, "--seed"),
    as_json: bool = Json,
) -> None:
    """Let simulated annotators work a project through its service on a simulated clock, answering from known
    labels: to see what the protocol's rules do before anyone is invited, or to try the whole walk without people.
    Their work is logged like real work: use a project made for trying."""
    require("fastapi", "serve", "affectlab annotate simulate")
    from affectlab.collection.jobs import simulate_crowd

    with stage_progress(not as_json) as progress:
        stage_name, outcome = simulate_crowd(project, truth, crowd, stage, pages, id_col, seed, progress)
    if as_json:
        print_json({"stage": stage_name, "crowd": outcome})
        return
    rows = [{"kind": kind, **tally} for kind, tally in outcome.items()]
    stdout.print(_table(["kind", "members", "pages", "stopped"], rows))


def rotate_owner_command(project: Path = ProjectFile, as_json: bool = Json) -> None:
    """Replace the owner's token: the new one is printed once (only its hash is kept) and the old one is refused
    at once. While the project is served, rotate it from the owner's page (POST /api/owner/token) instead."""
    from affectlab.collection.jobs import rotate_owner_token

    token = rotate_owner_token(project)
    if as_json:
        print_json({"project": str(project), "owner_token": token})
        return
    stdout.print(styled("new owner token (shown once; keep it secret; the old one no longer works): {}", token))


def register(app: typer.Typer) -> None:
    """Add the project commands to the ``annotate`` group."""
    for name, command in (("create", create_command), ("invite", invite_command), ("revoke", revoke_command),
                          ("open-stage", open_stage_command), ("status", status_command),
                          ("serve", serve_command), ("export", export_command), ("relabel", relabel_command),
                          ("simulate", simulate_command), ("rotate-owner", rotate_owner_command)):  # fmt: skip
        app.command(name)(command)
