"""``affectlab runs list|show|compare`` and ``affectlab leaderboard``: the results store of every ``eval`` run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from affectlab.cli.options import Json
from affectlab.cli.output import print_json, stdout, styled
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
    """The newest runs: id, date, model, dataset, split, n and the primary metric (in a terminal too narrow for
    all of them, such as 80 columns: id, model, dataset, n and the primary metric)."""
    runs = RunStore(runs_db).list(dataset, model, limit)
    if as_json:
        print_json(runs)
        return
    title = styled("runs in {}", RunStore(runs_db).path, style="table.title")
    table = _runs_table(runs, title)
    if _natural_width(table) > stdout.width:
        table = _compact_runs_table(runs, title)
    stdout.print(table)


def _runs_table(runs: list[dict[str, Any]], title: Text) -> Table:
    table = Table(title=title)
    for header in ("id", "created", "model", "dataset", "split", "n", "metric", "value", "seconds"):
        table.add_column(header, justify="right" if header in ("id", "n", "value", "seconds") else "left")
    for run in runs:
        seconds = "" if run["seconds"] is None else f"{run['seconds']:.1f}"
        created = run["created"][:16].replace("T", " ")
        table.add_row(str(run["id"]), created, Text(run["model"]), Text(Path(run["dataset"]).name), Text(run["split"]),
                      str(run["n"]), Text(run["metric"] or ""), _format(run["value"]), seconds)  # fmt: skip
    return table


def _compact_runs_table(runs: list[dict[str, Any]], title: Text) -> Table:
    """The runs in about 80 columns: no borders, no date or seconds, the split beside the dataset unless it is
    test, the primary metric's value and name in one column; only the model column gives way: a long name folds
    onto a second line rather than being cut."""
    datasets = [Path(run["dataset"]).name + ("" if run["split"] == "test" else f" ({run['split']})") for run in runs]
    primaries = [f"{_format(run['value']):>6} {run['metric'] or ''}".strip() for run in runs]
    table = Table(title=title, caption="created and seconds: a wider terminal or --json", box=box.SIMPLE_HEAD,
                  show_edge=False, pad_edge=False, collapse_padding=True)  # fmt: skip
    table.add_column("id", justify="right", no_wrap=True)
    table.add_column("model", overflow="fold")
    table.add_column("dataset", overflow="fold", width=min(max(map(len, datasets), default=7), 28))
    table.add_column("n", justify="right", no_wrap=True)
    table.add_column("primary metric", no_wrap=True)
    for run, name, primary in zip(runs, datasets, primaries, strict=True):
        table.add_row(str(run["id"]), Text(run["model"]), Text(name), str(run["n"]), Text(primary))
    return table


def _natural_width(table: Table) -> int:
    """How wide ``table`` is with nothing wrapped or cut."""
    return stdout.measure(table, options=stdout.options.update_width(10_000)).maximum


def _format(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


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
        header = styled(
            "#{} {}\n{} {}", record["id"], model_label(record), Path(record["dataset"]).name, record["split"]
        )
        table.add_column(header, justify="right")
    for name, values in rows.items():
        table.add_row(Text(name), *_marked(values))
    stdout.print(table)


def _marked(values: list[float | None], among: list[int] | None = None) -> list[str]:
    """Formatted values with the best (highest) of those at the indices ``among`` (default: all) in bold."""
    present = [v for i, v in enumerate(values) if v is not None and (among is None or i in among)]
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
        print_json([{"id": r["id"], "model": model_label(r), "n": r["n"], "split_size": r["split_size"],
                     "partial": r["partial"], **{name: v for (_, name), v in zip(columns, row, strict=True)}}
                    for r, row in zip(board, matrix, strict=True)])  # fmt: skip
        return
    _print_leaderboard(dataset, split, board, columns, matrix)


def _print_leaderboard(
    dataset: str,
    split: str,
    board: list[dict[str, Any]],
    columns: list[tuple[str, str]],
    matrix: list[list[float | None]],
) -> None:
    """The leaderboard as a table: runs on part of the split (``eval --limit``) in a section below the whole ones,
    their n starred and a footnote saying so; the best of each column in bold among the whole runs."""
    primary = (board[0]["metrics"].get("primary") or {}).get("name", "primary")
    table = Table(title=styled("{} ({}): best run per model, by {}", dataset, split, primary, style="table.title"))
    for header in ("model", "run", "n", *(name for _, name in columns)):
        table.add_column(Text(header), justify="left" if header == "model" else "right", overflow="fold")
    # the best of each column is marked among the runs on the whole split (among part runs only when none is)
    ranked = [i for i, record in enumerate(board) if not record["partial"]] or list(range(len(board)))
    marked_columns = [_marked([row[j] for row in matrix], ranked) for j in range(len(columns))]
    for i, record in enumerate(board):
        if record["partial"] and i and not board[i - 1]["partial"]:
            table.add_section()
        n = f"{record['n']}*" if record["partial"] else str(record["n"])
        table.add_row(Text(model_label(record)), str(record["id"]), n, *(col[i] for col in marked_columns))
    stdout.print(table)
    if any(record["partial"] for record in board):
        sizes = sorted({record["split_size"] for record in board})
        counts = " or ".join(f"{size:,}" for size in sizes)
        stdout.print(styled("* scored on part of {}'s {} texts (eval --limit); ranked below full runs", split, counts))


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
    stdout.print(styled("report on {} run(s) written to {}", len(runs), path))
