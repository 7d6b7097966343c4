"""``affectlab eval --model NAME|DIR --dataset D --split test``."""

from __future__ import annotations

from pathlib import Path

import typer

from affectlab.cli.options import DataDir, Json, Params, UserFileColumns, optional, parse_params, takes_option_groups
from affectlab.cli.output import print_json, print_notes, print_scores, stage_progress
from affectlab.datasets import FileOptions
from affectlab.errors import InputError
from affectlab.evaluation.jobs import run_evaluation

ModelOption = typer.Option(
    ...,
    "--model",
    "-m",
    help="'default' (the shipped heads), a model kind (trained on the dataset first) or a saved model directory.",
)
LimitOption = typer.Option(
    None,
    "--limit",
    min=1,
    help="Score only the first N rows of the split (for expensive models).",
    show_default=False,
)
LlmBaseUrlOption = optional(
    "--llm-base-url",
    "With --model llm:NAME: an OpenAI-compatible server (key from OPENAI_API_KEY or AFFECTLAB_LLM_API_KEY); "
    "without it NAME is a local causal LM directory.",
)
PromptOption = optional(
    "--prompt",
    "With --model llm:NAME: the EmoBench-UA App. G prompt language, en or uk.",
)
RecordRunOption = typer.Option(
    True, "--record/--no-record", help="Keep the run in the results store (affectlab runs list)."
)
RunsDbOption = typer.Option(
    None, "--runs-db", envvar="AFFECTLAB_RUNS_DB", help="Results store file (default: the user data dir)."
)


@takes_option_groups
def evaluate_command(
    model: str = ModelOption,
    dataset: str = typer.Option(..., "--dataset", "-d", help="Dataset name or a labelled user file/directory."),
    split: str = typer.Option("test", "--split", "-s", help="Split to score."),
    limit: int | None = LimitOption,
    llm_base_url: str | None = LlmBaseUrlOption,
    prompt: str | None = PromptOption,
    fast: bool = typer.Option(False, "--fast", help="With --model default: the fast profile (n-gram heads only)."),
    data_dir: Path | None = DataDir,
    params: list[str] | None = Params,
    bootstrap: int = typer.Option(1000, "--bootstrap", min=10, help="Bootstrap resamples for the 95% intervals."),
    columns: FileOptions = UserFileColumns,
    record_run: bool = RecordRunOption,
    runs_db: Path | None = RunsDbOption,
    as_json: bool = Json,
) -> None:
    """Score a model on a dataset split: per-label F1, macro P/R/F1 and the dataset's primary metric with a 95%
    bootstrap interval. A model kind is first trained on the dataset's train split (thresholds tuned on dev)."""
    model_params = {**_llm_options(model, llm_base_url, prompt), **parse_params(params)}
    with stage_progress(not as_json) as progress:
        record = run_evaluation(
            model, dataset, split, fast=fast, params=model_params, data_dir=data_dir, file_options=columns,
            limit=limit, n_bootstrap=bootstrap, record=record_run, runs_db=runs_db, progress=progress,
        )  # fmt: skip
    print_notes(record["model_config"].get("left_out", []))
    if as_json:
        print_json(record)
    else:
        print_scores(record)


def _llm_options(model: str, base_url: str | None, prompt: str | None) -> dict[str, str]:
    """The --llm-base-url and --prompt options as llm detector parameters (an error with any other model)."""
    options = {key: value for key, value in (("base_url", base_url), ("prompt", prompt)) if value is not None}
    if options and not model.startswith("llm:"):
        raise InputError("--llm-base-url and --prompt apply only to --model llm:NAME")
    return options
