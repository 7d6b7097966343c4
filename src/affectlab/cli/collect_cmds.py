"""``affectlab annotate init|check|select``: an annotation protocol written from a preset, a protocol file checked
(:mod:`affectlab.annotation.protocol`), and texts selected from a pool for it (:mod:`affectlab.annotation.selection`).
Registered on the ``annotate`` group by :func:`register`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from affectlab.cli.options import Json
from affectlab.cli.output import print_json, stdout, styled
from affectlab.errors import InputError

PRESET_NAMES = ("emobench-ua", "emobench-ua-plus", "goemotions", "emocontext", "brighter")
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


Pool = typer.Argument(..., help="The texts to choose from: CSV, TSV, JSON Lines or Parquet.", show_default=False)
ProtocolFile = typer.Option(
    ..., "--protocol", help="The protocol whose selection settings apply (`annotate init`).", show_default=False
)
Size = typer.Option(..., "--size", help="How many texts to select.", min=1, show_default=False)
SelectedOut = typer.Option(
    ..., "--out", "-o", show_default=False,
    help="Where to write them (.csv, .tsv or .jsonl); the manifest goes beside it as OUT.manifest.json.",
)  # fmt: skip
TextCol = typer.Option("text", "--text-col", help="The pool's column of texts.")
IdCol = typer.Option(None, "--id-col", help="The pool's column of ids (default: the row number).", show_default=False)
ToxicWords = typer.Option(
    None, "--toxic-words", show_default=False,
    help="Drop texts holding a word of this list (one a line): no toxicity model ships.",
)  # fmt: skip
ToxicityCol = typer.Option(
    None, "--toxicity-col", show_default=False,
    help="The pool's column of toxicity scores (from a classifier of your choice).",
)  # fmt: skip
MaxToxicity = typer.Option(
    None, "--max-toxicity", help="Drop texts whose --toxicity-col score is above this.", show_default=False
)
Seed = typer.Option(0, "--seed", help="Seed of the draw.")


def select_command(
    pool: Path = Pool,
    protocol: Path = ProtocolFile,
    size: int = Size,
    out: Path = SelectedOut,
    text_col: str = TextCol,
    id_col: str | None = IdCol,
    toxic_words: Path | None = ToxicWords,
    toxicity_col: str | None = ToxicityCol,
    max_toxicity: float | None = MaxToxicity,
    seed: int = Seed,
    force: bool = typer.Option(False, "--force", help="Replace --out and its manifest when they exist."),
    as_json: bool = Json,
) -> None:
    """Select texts to annotate from a pool (EmoBench-UA section 3.2): length, language, duplicates and near
    duplicates, toxicity (your word list or score column), then a draw spread over the emotions the default
    detector reads, with the protocol's share of texts it reads as no emotion. Every stage is counted in the
    manifest."""
    from affectlab.annotation.jobs import select_pool
    from affectlab.cli.output import stage_progress
    from affectlab.detectors.first_emotions import first_emotions

    if out.resolve() == pool.resolve():
        raise InputError(f"--out {str(out)!r} is the pool itself; choose another path")
    if out.exists() and not force:
        raise InputError(f"{str(out)!r} already exists (--force replaces it)")
    with stage_progress(not as_json) as progress:
        manifest = select_pool(
            pool, protocol, size, out, text_col, id_col, toxic_words, toxicity_col, max_toxicity, seed, progress,
            read_emotions=first_emotions,
        )  # fmt: skip
    if as_json:
        print_json(manifest)
        return
    _print_selection(manifest, pool, out)


def _print_selection(manifest: dict[str, Any], pool: Path, out: Path) -> None:
    table = Table(title=f"selecting for {manifest['protocol']} from {pool.name}")
    for header in ("stage", "kept", "dropped"):
        table.add_column(header, justify="left" if header == "stage" else "right")
    for stage in manifest["stages"]:
        table.add_row(Text(stage["stage"]), f"{stage['kept']:,}", f"{stage['dropped']:,}")
    by_emotion = ", ".join(f"{emotion} {n:,}" for emotion, n in sorted(manifest["selected_by_emotion"].items()))
    table.caption = Text(f"selected: {by_emotion or 'none'}")
    stdout.print(table)
    stdout.print(Text(f"toxicity: {manifest['toxicity']}"))
    stdout.print(styled("wrote {:,} texts to {} and the manifest beside it", manifest["stages"][-1]["kept"], out))


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
    app.command("select")(select_command)
