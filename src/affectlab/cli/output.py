"""Rendering shared by the commands: errors, JSON, progress, and Rich tables of scores."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

stdout = Console()
stderr = Console(stderr=True)


# Line breaks and other control characters a message may quote from a user's file (a column name with a newline),
# and lone surrogates, which a strict UTF-8 stream cannot encode: shown escaped, so an error stays one printable line.
_UNPRINTABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_LONGEST_ERROR = 1000  # characters; a message quoting a 200,000-character cell keeps its start and its end


def print_error(message: str, prefix: str = "error") -> None:
    """One line on stderr: ``error: <message>`` (or another ``prefix``), any line break or control character in it
    escaped, and the middle of a very long one left out."""
    message = _UNPRINTABLE.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), message)
    if len(message) > _LONGEST_ERROR:
        left_out = len(message) - 800
        message = f"{message[:600]} ... ({left_out:,} characters left out) ... {message[-200:]}"
    stderr.print(f"[bold red]{prefix}:[/] {escape(message)}", highlight=False, soft_wrap=True)


def print_left_out(detector: Any) -> None:
    """A note on stderr for each optional member a model runs without (e.g. an encoder that needs torch)."""
    print_notes(getattr(detector, "left_out_", []))


def print_notes(notes: list[str]) -> None:
    """One ``note:`` line on stderr per note."""
    for note in notes:
        stderr.print(f"[yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=True)


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


@contextmanager
def file_progress(enabled: bool = True) -> Iterator[Any]:
    """A progress bar with rows done and ETA on stderr; yields a callback taking the scorer's progress report."""
    if not enabled or not stderr.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=stderr, transient=True) as progress:
        task = progress.add_task("scoring", total=1.0)

        def update(report: Any) -> None:
            progress.update(task, completed=report.fraction, description=f"{report.rows_done} rows")

        yield update


@contextmanager
def count_progress(description: str, enabled: bool = True) -> Iterator[Any]:
    """A progress bar with items done and ETA on stderr; yields a callback ``(done, total)`` (None when off)."""
    if not enabled or not stderr.is_terminal:
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn(description), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=stderr, transient=True) as progress:
        task = progress.add_task(description, total=None)
        yield lambda done, total: progress.update(task, completed=done, total=total)


def print_scores(record: dict[str, Any]) -> None:
    """The scores of EmoBench-UA Table 1 (per-label F1, macro precision/recall/F1), one row per label so that
    28 GoEmotions labels fit a terminal too, then the primary metric with its 95 % bootstrap interval."""
    metrics = record["metrics"]
    table = Table(title=f"{record['model']} on {Path(record['dataset']).name} ({record['split']}, n={record['n']})")
    for header in ("label", "precision", "recall", "F1", "support"):
        table.add_column(header, justify="left" if header == "label" else "right", no_wrap=True)
    for label, scores in metrics["per_label"].items():
        table.add_row(label, *(f"{scores[k]:.2f}" for k in ("precision", "recall", "f1")), str(scores["support"]))
    table.add_section()
    macro = (metrics["macro_precision"], metrics["macro_recall"], metrics["macro_f1"])
    table.add_row("macro avg", *(f"{v:.2f}" for v in macro), str(record["n"]), style="bold")
    stdout.print(table)
    primary = metrics["primary"]
    low, high = primary["ci95"]
    stdout.print(
        f"{primary['name']} = {primary['value']:.4f} (95% CI {low:.4f}-{high:.4f}); {record['seconds']:.1f} s",
        highlight=False,
        soft_wrap=True,
    )
