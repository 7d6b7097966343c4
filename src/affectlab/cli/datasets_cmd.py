"""``affectlab datasets list|show``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from affectlab.cli.options import DataDir, Json
from affectlab.cli.output import print_json, stdout
from affectlab.datasets import DATASETS, get_dataset

app = typer.Typer(help="List the datasets affectlab knows and show one in detail.", no_args_is_help=True)


@app.command("list")
def list_datasets(as_json: bool = Json) -> None:
    """List the registered datasets with their label space and primary metric."""
    specs = [spec for _, spec in DATASETS.items()]
    if as_json:
        print_json([spec.describe() for spec in specs])
        return
    table = Table(title="datasets")
    table.add_column("name", no_wrap=True, min_width=max(len(spec.name) for spec in specs))  # the names to type
    for column in ("labels", "languages", "primary metric", "title"):
        table.add_column(column, overflow="fold")
    for spec in specs:
        table.add_row(
            spec.name,
            f"{spec.label_space.name} ({len(spec.label_space)})",
            ",".join(spec.languages),
            spec.primary_metric,
            spec.title,
        )
    stdout.print(table)


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
            stdout.print(f"[bold]{key}[/]: {', '.join(value) if isinstance(value, list) else value}", highlight=False)
    table = Table(title=f"{spec.name}: rows and label counts")
    table.add_column("split")
    table.add_column("rows", justify="right")
    for label in spec.label_space.labels:
        table.add_column(label, justify="right")
    for split, info in counts.items():
        table.add_row(split, str(info["rows"]), *(str(info["labels"].get(lab, 0)) for lab in spec.label_space.labels))
    stdout.print(table)
