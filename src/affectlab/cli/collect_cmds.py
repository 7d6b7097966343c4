"""``affectlab annotate init|check``: an annotation protocol written from a preset, and a protocol file checked
(:mod:`affectlab.annotation.protocol`). Registered on the ``annotate`` group by :func:`register`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from affectlab.cli.options import Json
from affectlab.cli.output import print_json, stdout, styled
from affectlab.errors import InputError

PRESET_NAMES = ("emobench-ua", "goemotions", "emocontext", "brighter")
"""The presets :func:`init_command` offers (checked against :data:`affectlab.annotation.protocol.PRESETS` in the
tests, so that ``--help`` needs no import of pydantic)."""


def init_command(
    preset: str = typer.Option(
        ..., "--preset", help=f"The design to start from: {', '.join(PRESET_NAMES)}.", show_default=False
    ),
    out: Path = typer.Option(
        ..., "--out", "-o", help="Where to write the protocol (.yaml or .yml).", show_default=False
    ),
    force: bool = typer.Option(False, "--force", help="Replace a file that is already there."),
    as_json: bool = Json,
) -> None:
    """Write an annotation protocol (YAML) from a preset that reproduces a paper's design; edit it, then
    `annotate check` it. Its comments say what the paper states and what the preset chose."""
    from affectlab.annotation.protocol import preset as read_preset
    from affectlab.annotation.protocol import preset_text, protocol_summary
    from affectlab.io.atomic import write_atomically

    if preset not in PRESET_NAMES:
        raise InputError(f"unknown preset {preset!r} (presets: {', '.join(PRESET_NAMES)})")
    if out.suffix.lower() not in (".yaml", ".yml"):
        raise InputError(f"--out must be a .yaml or .yml file, not {str(out)!r}")
    if out.exists() and not force:
        raise InputError(f"{str(out)!r} already exists (--force replaces it)")
    if not out.parent.is_dir():
        raise InputError(f"the folder of {str(out)!r} does not exist")
    summary = protocol_summary(read_preset(preset))
    write_atomically({out: preset_text(preset).encode("utf-8")})
    if as_json:
        print_json({**summary, "preset": preset, "out": str(out)})
        return
    _print_summary(summary)
    stdout.print(styled("wrote the {} protocol to {}", preset, out))


def check_command(
    file: Path = typer.Argument(..., help="A protocol file (YAML).", show_default=False),
    as_json: bool = Json,
) -> None:
    """Check an annotation protocol: every field and the facts that join them (stages' labels, gates, overlap
    against the pool, intensity scales, rules). A problem is one line naming the field, exit code 2."""
    from affectlab.annotation.protocol import protocol_summary, read_protocol

    summary = protocol_summary(read_protocol(file))
    if as_json:
        print_json(summary)
        return
    _print_summary(summary)
    stdout.print(styled("{} is a valid protocol", file))


def _print_summary(summary: dict[str, Any]) -> None:
    languages = ", ".join(summary["languages"])
    table = Table(title=f"{summary['name']} (version {summary['version']}): texts in {languages}")
    for header in ("stage", "labels", "after", "training", "exam"):
        table.add_column(header, justify="right" if header in ("training", "exam") else "left", overflow="fold")
    for stage in summary["stages"]:
        table.add_row(
            Text(stage["name"]), Text(", ".join(stage["labels"])), Text(stage["gate"] or "-"),
            f"{stage['training_examples']}", f"{stage['exam_examples']}",
        )  # fmt: skip
    extra = f" (+{summary['extra_per_item']} where no label has enough votes)" if summary["extra_per_item"] else ""
    intensity = f"{summary['intensity_levels']} intensity levels" if summary["intensity_levels"] else "no intensity"
    table.caption = Text(
        f"{summary['per_item']} annotators per item{extra}; pages of {summary['page_size']}; {intensity}; "
        f"controls {summary['control_share']:.0%}; rules: {', '.join(summary['rules']) or 'none'}; "
        f"aggregation: {summary['aggregation']}"
        + (f" (confidence >= {summary['min_confidence']:g})" if summary["min_confidence"] else "")
    )
    stdout.print(table)


def register(app: typer.Typer) -> None:
    """Add ``init`` and ``check`` to the ``annotate`` group."""
    app.command("init")(init_command)
    app.command("check")(check_command)
