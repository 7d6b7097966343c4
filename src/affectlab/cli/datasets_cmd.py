"""``affectlab datasets list|show``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.columns import Columns
from rich.table import Table

from affectlab.cli.options import DataDir, Json
from affectlab.cli.output import print_json, stdout, styled
from affectlab.datasets import DATASETS, DatasetSpec, get_dataset

app = typer.Typer(help="List the datasets affectlab knows and show one in detail.", no_args_is_help=True)


@app.command("list")
def list_datasets(as_json: bool = Json) -> None:
    """List the registered datasets with their label space and primary metric (in a terminal too narrow for the
    whole table, such as 80 columns, each family of datasets as one block of names)."""
    specs = [spec for _, spec in DATASETS.items()]
    if as_json:
        print_json([spec.describe() for spec in specs])
        return
    table = Table(title="datasets")
    table.add_column("name", no_wrap=True, min_width=max(len(spec.name) for spec in specs))  # the names to type
    for column in ("labels", "languages", "primary metric", "title"):
        table.add_column(column, overflow="fold")
    for spec in specs:
        table.add_row(spec.name, _labels(spec), ",".join(spec.languages), spec.primary_metric, spec.title)
    if stdout.measure(table, options=stdout.options.update_width(10_000)).maximum <= stdout.width:
        stdout.print(table)
    else:
        _print_compact(specs)


FAMILY_SIZE = 3
"""Datasets sharing a title before its last comma (the language) and a primary metric, at least this many, are
one family in the compact list."""


def _labels(spec: DatasetSpec) -> str:
    return f"{spec.label_space.name} ({len(spec.label_space)})"


def _print_compact(specs: list[DatasetSpec]) -> None:
    """The list in about 80 columns: one row per dataset outside a family, then per family (the SemEval-2025 track
    A languages, the track B ones) a line of what its datasets share and their names side by side, each name whole
    (the names are what a user types); languages and titles are left to ``datasets show`` and ``--json``."""
    families: dict[tuple[str, str], list[DatasetSpec]] = {}
    for spec in specs:
        families.setdefault((spec.title.rpartition(", ")[0] or spec.title, spec.primary_metric), []).append(spec)
    table = Table(title="datasets", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)
    table.add_column("name", no_wrap=True)
    table.add_column("labels", no_wrap=True)
    table.add_column("primary metric", no_wrap=True)
    table.add_column("title", overflow="fold")
    for members in families.values():
        for spec in members if len(members) < FAMILY_SIZE else ():
            table.add_row(spec.name, _labels(spec), spec.primary_metric, spec.title)
    stdout.print(table)
    for (title, metric), members in families.items():
        if len(members) < FAMILY_SIZE:
            continue
        usual = Counter(_labels(spec) for spec in members).most_common(1)[0][0]
        others = [f"{spec.name} {_labels(spec)}" for spec in members if _labels(spec) != usual]
        stdout.print(styled("\n[bold]{}[/], {} languages: {}, {}", title, len(members), usual, metric))
        if others:
            stdout.print(f"other labels: {', '.join(others)}", highlight=False)
        stdout.print(Columns([spec.name for spec in members], padding=(0, 2)))
    stdout.print("\nlanguages and titles: `affectlab datasets show NAME` or --json", highlight=False)


@app.command("show")
def show_dataset(
    name: str = typer.Argument(..., help="A dataset name (see `affectlab datasets list`)."),
    data_dir: Path | None = DataDir,
    as_json: bool = Json,
) -> None:
    """Describe one dataset and count its rows and labels per split (loads the data)."""
    spec = get_dataset(name)
    data = spec.load(data_dir)
    counts: dict[str, dict[str, Any]] = {
        split: {"rows": len(rows), "labels": dict(Counter(label for labels in rows["labels"] for label in labels))}
        for split, rows in data.items()
    }
    if as_json:
        print_json({**spec.describe(), "splits": counts})
        return
    for key, value in spec.describe().items():
        if key != "splits" and value:
            stdout.print(styled("[bold]{}[/]: {}", key, ", ".join(value) if isinstance(value, list) else value))
    table = Table(title=f"{spec.name}: rows and label counts")
    table.add_column("split")
    table.add_column("rows", justify="right")
    for label in spec.label_space.labels:
        table.add_column(label, justify="right")
    for split, info in counts.items():
        table.add_row(split, str(info["rows"]), *(str(info["labels"].get(lab, 0)) for lab in spec.label_space.labels))
    stdout.print(table)
