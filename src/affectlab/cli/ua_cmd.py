"""``affectlab ua generate|eval|export-lm-eval|baselines``: the Eval-UA-tion tasks (Hamotskyi et al. 2024)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from affectlab.cli.options import DataDir, Json, optional
from affectlab.cli.output import count_progress, print_json, stderr, stdout, styled
from affectlab.errors import AffectlabError, DataNotFoundError, InputError
from affectlab.io.outputs import check_output_dir
from affectlab.uatasks.instances import TASKS, MCInstance
from affectlab.uatasks.jobs import evaluate_task, generate_instances

app = typer.Typer(
    help="Eval-UA-tion: Ukrainian LM benchmark tasks (UA-CBT, UP-Titles, LMentry-static-UA): generate, "
    "evaluate, export to lm-evaluation-harness, baselines.",
    no_args_is_help=True,
)

TaskName = typer.Argument(..., help=f"Task: {', '.join(TASKS)}.", show_default=False)
Seed = typer.Option(0, "--seed", help="Random seed: the same seed gives the same instances and shots.")


@app.command("generate")
def generate_command(
    task: str = TaskName,
    out: Path = typer.Option(..., "--out", "-o", help="JSON Lines file for the instances.", show_default=False),
    source: Path | None = typer.Option(
        None,
        "--input",
        "-i",
        help="ua-cbt: a .txt story, a folder of them, or a CSV with a fixed_story column; up-titles*: a "
        "CSV/TSV/JSONL of articles; lmes-wis: a text file of sentences, one per line; other lmes-*: the LMES "
        "resources folder (default: from --data-dir).",
        show_default=False,
    ),
    n: int | None = typer.Option(None, "--n", min=1, help="At most this many instances (default: all / 100 LMES)."),
    seed: int = Seed,
    few_shot: bool = typer.Option(
        False, "--few-shot", help="Mark instances as few-shot (LMES: use the few-shot word lists and categories)."
    ),
    title_col: str = typer.Option("title", "--title-col", help="up-titles*: column with the title."),
    text_col: str = typer.Option("text", "--text-col", help="up-titles*: column with the article text."),
    tags_col: str = typer.Option("tags", "--tags-col", help="up-titles*: column with comma-separated tags."),
    data_dir: Path | None = DataDir,
    as_json: bool = Json,
) -> None:
    """Generate task instances from new material, deterministically for a seed, into a JSON Lines file."""
    with count_progress("stories", enabled=not as_json) as progress:
        done = generate_instances(task, out, source, n, seed, few_shot, (title_col, text_col, tags_col), data_dir,
                                  progress)  # fmt: skip
    for story, why in done.skipped:
        stderr.print(styled("skipped story {}: {}", story, why), soft_wrap=True)
    if as_json:
        print_json({"task": task, "n": done.n, "requested": n, "out": str(out), "seed": seed, "note": done.note})
        return
    stdout.print(styled("wrote {:,} {} instances to {}", done.n, task, out))
    if done.note:
        stderr.print(styled("[yellow]note:[/] {}", done.note), soft_wrap=True)


ModelOption = typer.Option(
    ...,
    "--model",
    "-m",
    help="A local Hugging Face causal LM directory (scored by log-likelihood), or with --endpoint the model "
    "name the server knows (scored by exact match of its answer).",
    show_default=False,
)
EndpointOption = optional(
    "--endpoint",
    "Base URL of an OpenAI-compatible server, e.g. http://localhost:8000/v1.",
)
InstancesFileOption = optional(
    "--file",
    "Evaluate instances from this JSON Lines file (from `ua generate`) instead.",
)
PredictionsOutOption = optional(
    "--predictions",
    "Also write one JSON line per instance (prompt answer, prediction) here.",
)


@app.command("eval")
def eval_command(
    task: str = TaskName,
    model: str = ModelOption,
    endpoint: str | None = EndpointOption,
    split: str = typer.Option("test", "--split", "-s", help="Split to evaluate: test or fewshot."),
    instances_file: Path | None = InstancesFileOption,
    shots: int = typer.Option(3, "--shots", min=0, help="Few-shot examples per question (the paper: 3)."),
    seed: int = Seed,
    limit: int | None = typer.Option(None, "--limit", min=1, help="Evaluate only the first N instances."),
    predictions_out: Path | None = PredictionsOutOption,
    data_dir: Path | None = DataDir,
    as_json: bool = Json,
) -> None:
    """Score a language model on a task with the paper's 3-shot multiple-choice prompts (section 4.1)."""
    with count_progress(f"{task}", enabled=not as_json) as progress:
        record = evaluate_task(task, model, endpoint, split, instances_file, shots, seed, limit, predictions_out,
                               data_dir, progress)  # fmt: skip
    if as_json:
        print_json(record)
        return
    low, high = record["ci95"]
    stdout.print(
        styled("{}: accuracy {:.4f} (95% CI {:.4f}-{:.4f}), n={}, {}-shot ({}), {:.1f} s", task, record["accuracy"],
               low, high, record["n"], shots, record["shots_source"], record["seconds"]),
        soft_wrap=True,
    )  # fmt: skip


@app.command("export-lm-eval")
def export_command(
    directory: Path = typer.Argument(..., help="Folder for the YAML tasks, utils.py and data.", show_default=False),
    tasks: str | None = typer.Option(
        None, "--tasks", help="Comma-separated task names (default: every task whose data loads).", show_default=False
    ),
    data_dir: Path | None = DataDir,
    as_json: bool = Json,
) -> None:
    """Export tasks as lm-evaluation-harness tasks (`lm_eval --include_path DIR --tasks affectlab_...`)."""
    from affectlab.uatasks.lmeval_export import export_lm_eval

    check_output_dir(directory)
    names = [name.strip() for name in tasks.split(",")] if tasks else list(TASKS)
    for name in names:
        TASKS.get(name)
    by_task, skipped, notes = _splits_by_task(names, data_dir, explicit=tasks is not None)
    if not by_task:
        raise InputError("no task could be loaded: " + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    written = export_lm_eval(directory, by_task)
    if as_json:
        print_json({"written": [str(path) for path in written], "skipped": skipped, "notes": notes})
        return
    stdout.print(styled("wrote {} tasks ({} files) to {}", len(by_task), len(written), directory))
    for note in notes:
        stdout.print(Text(note), soft_wrap=True)
    for name, why in skipped.items():
        stdout.print(styled("skipped {}: {}", name, why), soft_wrap=True)


@app.command("baselines")
def baselines_command(data_dir: Path | None = DataDir, as_json: bool = Json) -> None:
    """Random, human (Table 1), most-frequent (UA-CBT) and number-overlap (UP-Titles) baselines on the data."""
    from affectlab.uatasks.baselines import all_baselines

    results = all_baselines(data_dir)
    if all("skipped" in row for row in results.values()):  # nothing to show: an error, not an empty table
        raise DataNotFoundError(next(iter(results.values()))["skipped"])
    if as_json:
        print_json(results)
        return
    table = Table(title="Eval-UA-tion baselines (accuracy, %)", box=box.SIMPLE_HEAD)
    names = {
        name: name if row.get("split", "test") == "test" else f"{name} ({row['split']})"
        for name, row in results.items()
    }
    table.add_column("task", no_wrap=True, min_width=max(map(len, names.values())))
    for header in ("n", "random", "Table 1\nrandom", "Table 1\nhuman", "most\nfrequent", "number\noverlap"):
        table.add_column(header, justify="right", no_wrap=True)
    for name, row in results.items():
        paper = TASKS.get(name)
        if "skipped" in row:
            table.add_row(names[name], "-", "-", _percent(paper.random_baseline_paper), _percent(paper.human_baseline))
            continue
        table.add_row(
            names[name], str(row["n"]), _percent(row["random"]), _percent(paper.random_baseline_paper),
            _percent(row["human"]), _percent(row.get("most_frequent")), _percent(row.get("number_overlap")),
        )  # fmt: skip
    stdout.print(table)
    for name, row in results.items():
        if "skipped" in row:
            stdout.print(styled("{} not loaded: {}", name, row["skipped"]), soft_wrap=True)
    stdout.print("Table 1 (Eval-UA-tion): the authors' random baseline on the full data and human accuracy.")


def _percent(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.2f}"


def _splits_by_task(
    names: list[str], data_dir: Path | None, explicit: bool
) -> tuple[dict[str, dict[str, list[MCInstance]]], dict[str, str], list[str]]:
    """Every loadable split of each task; a task with none is skipped with the reason (an error if named)."""
    from affectlab.uatasks.loaders import load_task

    by_task: dict[str, dict[str, list[MCInstance]]] = {}
    skipped: dict[str, str] = {}
    notes: list[str] = []
    for name in names:
        splits: dict[str, list[MCInstance]] = {}
        reasons = []
        for split in ("test", "fewshot"):
            try:
                splits[split] = load_task(name, data_dir, split=split)
            except AffectlabError as exc:
                reasons.append(str(exc))
        if set(splits) == {"fewshot"}:  # locally UA-CBT has only the few-shot story: export it as the test set
            splits = {"test": splits["fewshot"]}
            notes.append(f"{name}: only the few-shot split is available; exported as the test split")
        if splits:
            by_task[name] = splits
        elif explicit:
            raise InputError(f"{name}: {reasons[0]}")
        else:
            skipped[name] = reasons[0]
    return by_task, skipped, notes
