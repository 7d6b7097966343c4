"""``affectlab eval --model NAME|DIR --dataset D --split test``."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from affectlab.cli.options import (
    ContextCol,
    DataDir,
    Json,
    LabelCol,
    LabelSep,
    Params,
    SplitCol,
    TextCol,
    file_options,
    parse_params,
)
from affectlab.cli.output import print_json, print_left_out, print_scores, stage_progress
from affectlab.datasets import first_rows, resolve_dataset
from affectlab.detectors import create_detector, is_model_dir
from affectlab.detectors.resolve import resolve_detector
from affectlab.errors import InputError
from affectlab.evaluation.evaluate import evaluate
from affectlab.evaluation.store import model_label
from affectlab.evaluation.training import train_detector


def evaluate_command(
    model: str = typer.Option(
        ...,
        "--model",
        "-m",
        help="'default' (the shipped heads), a model kind (trained on the dataset first) or a saved model directory.",
    ),
    dataset: str = typer.Option(..., "--dataset", "-d", help="Dataset name or a labelled user file/directory."),
    split: str = typer.Option("test", "--split", "-s", help="Split to score."),
    limit: int | None = typer.Option(
        None,
        "--limit",
        min=1,
        help="Score only the first N rows of the split (for expensive models).",
        show_default=False,
    ),
    llm_base_url: str | None = typer.Option(
        None,
        "--llm-base-url",
        help="With --model llm:NAME: an OpenAI-compatible server (key from OPENAI_API_KEY or AFFECTLAB_LLM_API_KEY); "
        "without it NAME is a local causal LM directory.",
        show_default=False,
    ),
    prompt: str | None = typer.Option(
        None,
        "--prompt",
        help="With --model llm:NAME: the EmoBench-UA App. G prompt language, en or uk.",
        show_default=False,
    ),
    fast: bool = typer.Option(False, "--fast", help="With --model default: the fast profile (n-gram heads only)."),
    data_dir: Path | None = DataDir,
    params: list[str] | None = Params,
    bootstrap: int = typer.Option(1000, "--bootstrap", min=10, help="Bootstrap resamples for the 95% intervals."),
    text_col: str = TextCol,
    label_col: str | None = LabelCol,
    label_sep: str | None = LabelSep,
    split_col: str | None = SplitCol,
    context_col: str | None = ContextCol,
    record_run: bool = typer.Option(
        True, "--record/--no-record", help="Keep the run in the results store (affectlab runs list)."
    ),
    runs_db: Path | None = typer.Option(
        None, "--runs-db", envvar="AFFECTLAB_RUNS_DB", help="Results store file (default: the user data dir)."
    ),
    as_json: bool = Json,
) -> None:
    """Score a model on a dataset split: per-label F1, macro P/R/F1 and the dataset's primary metric with a 95%
    bootstrap interval. A model kind is first trained on the dataset's train split (thresholds tuned on dev)."""
    started = time.perf_counter()
    options = file_options(text_col, label_col, label_sep, split_col, context_col)
    if fast and model != "default":
        raise InputError("--fast applies only to --model default")
    with stage_progress(not as_json) as progress:
        training = None
        if model == "default":
            from affectlab.detectors.default import head_for

            progress(f"loading {dataset}")
            spec, data = resolve_dataset(dataset, data_dir, options)
            detector = resolve_detector("default", head_for(spec.label_space), fast)
            print_left_out(detector)
        elif is_model_dir(model):
            progress(f"loading model {model}")
            detector = resolve_detector(model)
            progress(f"loading {dataset}")
            spec, data = resolve_dataset(dataset, data_dir, options, label_space=detector.label_space)
        else:
            detector = create_detector(model, **_llm_options(model, llm_base_url, prompt), **parse_params(params))
            progress(f"loading {dataset}")
            spec, data = resolve_dataset(dataset, data_dir, options)
            training = train_detector(detector, spec, data, progress=progress)
        if limit is not None:
            data = first_rows(data, split, limit)
        result = evaluate(
            detector, spec, data, split, n_bootstrap=bootstrap, progress=progress, started=started, training=training
        )
        reference = f"{model} --fast" if fast else model
        # one name for the model everywhere (table, --json, runs list): what the user passed, the kind beside it
        record = {**result.to_dict(), "model": model_label({"model_ref": reference}), "model_kind": result.model,
                  "model_ref": reference}  # fmt: skip
        if record_run:
            from affectlab.evaluation.store import RunStore

            record["run_id"] = RunStore(runs_db).add(record, result.outputs)
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
