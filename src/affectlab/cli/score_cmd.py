"""``affectlab score``: score Parquet/CSV files (a file or a folder) into a folder of Parquet files."""

from __future__ import annotations

from pathlib import Path

import typer

from affectlab.cli.options import Json
from affectlab.cli.output import file_progress, print_json, stdout, styled

BatchSizeOption = typer.Option(1024, "--batch-size", min=1, help="Texts per batch (sorted by length inside a batch).")


def score_command(
    input_path: Path = typer.Option(..., "--input", "-i", help="A .parquet/.csv file or a folder of them."),
    output: Path = typer.Option(..., "--output", "-o", help="Folder for the scored .parquet files (one per input)."),
    engine: str = typer.Option("local", "--engine", help="local (streams, resumable) or ray (Ray Data)."),
    address: str | None = typer.Option(None, "--address", help="With --engine ray: a cluster, e.g. ray://host:10001."),
    workers: int | None = typer.Option(None, "--workers", min=1, help="With --engine ray: scoring workers."),
    model: str = typer.Option("default", "--model", "-m", help="'default' or a saved model directory."),
    taxonomy: str = typer.Option("ekman", "--taxonomy", "-t", help="ekman, goemotions or emocontext."),
    fast: bool = typer.Option(False, "--fast", help="The default's n-gram heads only."),
    text_col: str = typer.Option("text", "--text-col", help="Column with the text."),
    batch_size: int = BatchSizeOption,
    as_json: bool = Json,
) -> None:
    """Score Parquet/CSV files into a folder of Parquet files, locally or on Ray.

    Both engines give the same scores. Output columns, as detect --input writes them: the input's, score_<label>,
    labels, lang, supported (when the model says), notes, error."""
    from affectlab.scale.jobs import score_files

    with file_progress(not as_json and engine == "local") as progress:
        summaries = score_files(input_path, output, engine, model, taxonomy, fast, text_col, batch_size, workers,
                                address, progress)  # fmt: skip
    report = {"engine": engine, "output": str(output), "files": summaries}
    if as_json:
        print_json(report)
        return
    rows = sum(s["rows"] for s in summaries)
    stdout.print(styled("scored {:,} rows of {} file(s) into {} ({})", rows, len(summaries), output, engine))
    kept = [Path(s["input"]).name for s in summaries if s.get("kept")]
    if kept:
        stdout.print(styled("kept the outputs an earlier run finished for {}", ", ".join(kept)))
