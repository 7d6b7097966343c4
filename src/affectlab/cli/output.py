"""Rendering shared by the commands: errors, JSON, progress, and Rich tables of scores."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.table import Table

stdout = Console()
stderr = Console(stderr=True)


def print_error(message: str) -> None:
    """One line on stderr: ``error: <message>``."""
    stderr.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)


def print_json(data: Any) -> None:
    """Machine output on stdout, one JSON document."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


@contextmanager
def stage_progress(enabled: bool = True) -> Iterator[Any]:
    """A spinner with elapsed time on stderr; yields a callback that sets the current stage's text."""
    if not enabled or not stderr.is_terminal:
        yield lambda stage: None
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=stderr, transient=True
    ) as progress:
        task = progress.add_task("starting", total=None)
        yield lambda stage: progress.update(task, description=stage)


def scores_table(record: dict[str, Any]) -> Table:
    """Per-label F1 then macro P/R/F1, shaped like EmoBench-UA Table 1, plus the primary metric with its CI."""
    metrics = record["metrics"]
    labels = list(metrics["per_label"])
    table = Table(title=f"{record['model']} on {record['dataset']} ({record['split']}, n={record['n']})")
    for label in labels:
        table.add_column(label, justify="right", no_wrap=True, min_width=len(label))
    for header in ("Pr", "Re", "F1"):
        table.add_column(header, justify="right", style="bold")
    row = [f"{metrics['per_label'][label]['f1']:.2f}" for label in labels]
    row += [f"{metrics[k]:.2f}" for k in ("macro_precision", "macro_recall", "macro_f1")]
    table.add_row(*row)
    primary = metrics["primary"]
    low, high = primary["ci95"]
    table.caption = (
        f"per-label F1; macro precision, recall and F1.  primary: {primary['name']} = "
        f"{primary['value']:.4f} (95% CI {low:.4f}-{high:.4f}); {record['seconds']:.1f} s"
    )
    return table
