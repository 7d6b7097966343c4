"""``affectlab runs list|show|compare`` and ``affectlab leaderboard``: the results store of every ``eval`` run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from affectlab.cli.options import Json
from affectlab.cli.output import print_json, stdout
from affectlab.errors import InputError
from affectlab.evaluation.store import RUNS_DB_ENV, RunStore, model_label

app = typer.Typer(
    help="The results store: every `affectlab eval` run, listed, shown and compared.", no_args_is_help=True
)

RunsDb = typer.Option(
    None, "--runs-db", envvar=RUNS_DB_ENV, help="Results store file (default: runs.sqlite in the user data dir)."
)
COLUMNS = (("primary", "primary"), ("macro_f1", "macro-F1"), ("macro_precision", "macro P"),
           ("macro_recall", "macro R"), ("micro_f1", "micro-F1"))  # fmt: skip


def _value(record: dict[str, Any], key: str) -> float | None:
    metrics = record.get("metrics") or {}
    value = metrics.get(key)
    return value.get("value") if isinstance(value, dict) else value


@app.command("list")
def list_command(
    dataset: str | None = typer.Option(None, "--dataset", "-d", help="Only runs on this dataset."),
    model: str | None = typer.Option(None, "--model", "-m", help="Only runs of this model (kind or name part)."),
    limit: int = typer.Option(50, "--limit", min=1, help="At most this many runs, newest first."),
    runs_db: Path | None = RunsDb,
    as_json: bool = Json,
) -> None:
    """The newest runs: id, date, model, dataset, split, n and the primary metric."""
    runs = RunStore(runs_db).list(dataset, model, limit)
    if as_json:
        print_json(runs)
        return
    table = Table(title=f"runs in {RunStore(runs_db).path}")
    for header in ("id", "created", "model", "dataset", "split", "n", "metric", "value", "seconds"):
        table.add_column(header, justify="right" if header in ("id", "n", "value", "seconds") else "left")
    for run in runs:
        value = "" if run["value"] is None else f"{run['value']:.4f}"
        seconds = "" if run["seconds"] is None else f"{run['seconds']:.1f}"
        created = run["created"][:16].replace("T", " ")
        table.add_row(str(run["id"]), created, run["model"], Path(run["dataset"]).name, run["split"],
                      str(run["n"]), run["metric"] or "", value, seconds)  # fmt: skip
    stdout.print(table)


@app.command("show")
def show_command(
    run_id: int = typer.Argument(..., help="Run id (from `runs list`)."), runs_db: Path | None = RunsDb
) -> None:
    """One run's whole record as JSON."""
    print_json(RunStore(runs_db).get(run_id))


@app.command("compare")
def compare_command(
    run_ids: list[int] = typer.Argument(..., help="Two or more run ids."),
    runs_db: Path | None = RunsDb,
    as_json: bool = Json,
) -> None:
    """Runs side by side: the summary metrics and per-label F1, the best of each row marked."""
    if len(run_ids) < 2:
        raise InputError("give at least two run ids to compare")
    store = RunStore(runs_db)
    records = [store.get(run_id) for run_id in run_ids]
    rows: dict[str, list[float | None]] = {name: [_value(r, key) for r in records] for key, name in COLUMNS}
    labels = dict.fromkeys(label for r in records for label in (r.get("metrics") or {}).get("per_label", {}))
    for label in labels:
        rows[f"F1 {label}"] = [((r["metrics"].get("per_label") or {}).get(label) or {}).get("f1") for r in records]
    if as_json:
        print_json({"runs": [{"id": r["id"], "model": model_label(r), "dataset": r["dataset"]} for r in records],
                    "rows": rows})  # fmt: skip
        return
    table = Table(title="runs compared (best of each row in bold)")
    table.add_column("")
    for record in records:
        table.add_column(f"#{record['id']} {model_label(record)}\n{Path(record['dataset']).name} {record['split']}",
                         justify="right")  # fmt: skip
    for name, values in rows.items():
        table.add_row(name, *_marked(values))
    stdout.print(table)


def _marked(values: list[float | None]) -> list[str]:
    """Formatted values with the best (highest) in bold."""
    present = [v for v in values if v is not None]
    best = max(present) if present else None
    return ["" if v is None else (f"[bold]{v:.4f}[/]" if v == best else f"{v:.4f}") for v in values]


def leaderboard_command(
    dataset: str = typer.Option(..., "--dataset", "-d", help="Dataset name (as recorded by eval)."),
    split: str = typer.Option("test", "--split", "-s", help="Split."),
    per_label: bool = typer.Option(False, "--per-label", help="Add a per-label F1 column for each label."),
    runs_db: Path | None = RunsDb,
    as_json: bool = Json,
) -> None:
    """The best recorded run of each model on a dataset (best per column in bold)."""
    board = RunStore(runs_db).leaderboard(dataset, split)
    if not board:
        raise InputError(f"no recorded runs on {dataset} ({split}); run `affectlab eval` first")
    columns = list(COLUMNS)
    if per_label:
        labels = dict.fromkeys(label for r in board for label in r["metrics"].get("per_label", {}))
        columns += [(f"label:{label}", label) for label in labels]

    def value(record: dict[str, Any], key: str) -> float | None:
        if key.startswith("label:"):
            return ((record["metrics"].get("per_label") or {}).get(key[6:]) or {}).get("f1")
        return _value(record, key)

    matrix = [[value(r, key) for key, _ in columns] for r in board]
    if as_json:
        print_json([{"id": r["id"], "model": model_label(r), "n": r["n"],
                     **{name: v for (_, name), v in zip(columns, row, strict=True)}}
                    for r, row in zip(board, matrix, strict=True)])  # fmt: skip
        return
    primary = (board[0]["metrics"].get("primary") or {}).get("name", "primary")
    table = Table(title=f"{dataset} ({split}): best run per model, by {primary}")
    for header in ("model", "run", "n", *(name for _, name in columns)):
        table.add_column(header, justify="left" if header == "model" else "right")
    marked_columns = [_marked([row[j] for row in matrix]) for j in range(len(columns))]
    for i, record in enumerate(board):
        table.add_row(model_label(record), str(record["id"]), str(record["n"]), *(col[i] for col in marked_columns))
    stdout.print(table)


def report_command(
    run_ids: list[int] = typer.Argument(..., help="Run ids (from `runs list`) with the same labels."),
    html_out: Path = typer.Option(..., "--html", help="Where to write the HTML report.", show_default=False),
    runs_db: Path | None = RunsDb,
) -> None:
    """Write an HTML report of recorded runs (opens without network access).

    Per-label F1 bars, the confusion matrix normalised by row (GoEmotions App. G), precision-recall curves with
    the chosen thresholds, and the highest-confidence errors."""
    from affectlab.evaluation.report import write_report

    if html_out.suffix.lower() not in (".html", ".htm"):
        raise InputError(f"--html must end in .html, got {html_out.name}")
    store = RunStore(runs_db)
    runs = [store.get(run_id) for run_id in run_ids]
    path = write_report(html_out, runs, [store.outputs(run_id) for run_id in run_ids])
    stdout.print(f"report on {len(runs)} run(s) written to {path}", highlight=False)
