"""``affectlab ua generate|eval|export-lm-eval|baselines``: the Eval-UA-tion tasks (Hamotskyi et al. 2024)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import typer
from rich import box
from rich.table import Table

from affectlab.cli.options import DataDir, Json
from affectlab.cli.output import count_progress, print_json, stderr, stdout
from affectlab.errors import AffectlabError, DataNotFoundError, InputError
from affectlab.io.outputs import check_output_dir
from affectlab.uatasks.instance_files import read_instances, write_instances
from affectlab.uatasks.instances import TASKS, MCInstance

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
    info = TASKS.get(task)
    if out.suffix.lower() != ".jsonl":
        raise InputError(f"--out must end in .jsonl, got {out.name}")
    if info.family == "lmes":
        instances = _generate_lmes(task, source, data_dir, n, seed, few_shot)
    elif info.family == "ua-cbt":
        instances = _generate_cbt(_required(source, task), n, seed, few_shot)
    else:
        articles = _read_articles(_required(source, task), title_col, text_col, tags_col)
        from affectlab.uatasks.titles import generate_up_titles

        instances = generate_up_titles(articles, n=n, masked=task == "up-titles-masked", seed=seed)
        instances = [_with_few_shot(instance, few_shot) for instance in instances]
    write_instances(instances, out)
    short = n is not None and len(instances) < n
    note = f"asked for {n:,}, but the material gives only {len(instances):,} distinct {task} instances" if short else ""
    if as_json:
        print_json({"task": task, "n": len(instances), "requested": n, "out": str(out), "seed": seed, "note": note})
    else:
        stdout.print(f"wrote {len(instances):,} {task} instances to {out}", highlight=False)
        if note:
            stderr.print(f"[yellow]note:[/] {note}", highlight=False, soft_wrap=True)


@app.command("eval")
def eval_command(
    task: str = TaskName,
    model: str = typer.Option(
        ...,
        "--model",
        "-m",
        help="A local Hugging Face causal LM directory (scored by log-likelihood), or with --endpoint the model "
        "name the server knows (scored by exact match of its answer).",
        show_default=False,
    ),
    endpoint: str | None = typer.Option(
        None,
        "--endpoint",
        help="Base URL of an OpenAI-compatible server, e.g. http://localhost:8000/v1.",
        show_default=False,
    ),
    split: str = typer.Option("test", "--split", "-s", help="Split to evaluate: test or fewshot."),
    instances_file: Path | None = typer.Option(
        None,
        "--file",
        help="Evaluate instances from this JSON Lines file (from `ua generate`) instead.",
        show_default=False,
    ),
    shots: int = typer.Option(3, "--shots", min=0, help="Few-shot examples per question (the paper: 3)."),
    seed: int = Seed,
    limit: int | None = typer.Option(None, "--limit", min=1, help="Evaluate only the first N instances."),
    predictions_out: Path | None = typer.Option(
        None,
        "--predictions",
        help="Also write one JSON line per instance (prompt answer, prediction) here.",
        show_default=False,
    ),
    data_dir: Path | None = DataDir,
    as_json: bool = Json,
) -> None:
    """Score a language model on a task with the paper's 3-shot multiple-choice prompts (section 4.1)."""
    from affectlab.uatasks.multiple_choice import evaluate_mc

    TASKS.get(task)
    instances, pool = _eval_instances(task, split, instances_file, data_dir)
    scorer = _scorer(model, endpoint)
    with count_progress(f"{task}", enabled=not as_json) as progress:
        result = evaluate_mc(instances, scorer, pool, k_shots=shots, seed=seed, limit=limit, progress=progress)
    if predictions_out is not None:
        _write_predictions(result["predictions"], predictions_out)
    record = {**result["record"], "split": split if instances_file is None else str(instances_file)}
    if as_json:
        print_json(record)
        return
    low, high = record["ci95"]
    stdout.print(
        f"{task}: accuracy {record['accuracy']:.4f} (95% CI {low:.4f}-{high:.4f}), n={record['n']}, "
        f"{shots}-shot ({record['shots_source']}), {record['seconds']:.1f} s",
        highlight=False,
        soft_wrap=True,
    )


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
    stdout.print(f"wrote {len(by_task)} tasks ({len(written)} files) to {directory}", highlight=False)
    for note in notes:
        stdout.print(note, highlight=False, soft_wrap=True)
    for name, why in skipped.items():
        stdout.print(f"skipped {name}: {why}", highlight=False, soft_wrap=True)


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
            stdout.print(f"{name} not loaded: {row['skipped']}", highlight=False, soft_wrap=True)
    stdout.print("Table 1 (Eval-UA-tion): the authors' random baseline on the full data and human accuracy.")


def _percent(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.2f}"


def _required(source: Path | None, task: str) -> Path:
    if source is None:
        raise InputError(f"{task} needs --input (the material to build instances from)")
    return source


def _with_few_shot(instance: MCInstance, few_shot: bool) -> MCInstance:
    from dataclasses import replace

    return replace(instance, few_shot=few_shot) if few_shot else instance


def _generate_lmes(
    task: str, source: Path | None, data_dir: Path | None, n: int | None, seed: int, few_shot: bool
) -> list[MCInstance]:
    from affectlab.uatasks.lmes import generate_lmes

    sentences = None
    if task == "lmes-wis":
        sentences = [line.strip() for line in _read_lines(_required(source, task)) if line.strip()]
        source = None
    resources = source or data_dir
    if resources is None:
        raise InputError(f"{task} needs the LMES resources: --data-dir or --input RESOURCES_DIR")
    return generate_lmes(task, resources, n=n or 100, seed=seed, few_shot=few_shot, sentences=sentences)


def _generate_cbt(source: Path, n: int | None, seed: int, few_shot: bool) -> list[MCInstance]:
    from affectlab.uatasks.cbt import generate_cbt, read_stories

    instances: list[MCInstance] = []
    is_text_file = source.is_file() and source.suffix.lower() == ".txt"
    stories = [(source.stem, "\n".join(_read_lines(source)))] if is_text_file else read_stories(source)
    with count_progress("stories") as progress:
        for done, (story_id, story) in enumerate(stories, start=1):
            try:
                instances.extend(generate_cbt(story, story_id, seed=seed, few_shot=few_shot))
            except InputError as exc:  # one unusable story should not sink a folder of them
                stdout.print(f"skipped story {story_id}: {exc}", highlight=False, soft_wrap=True)
            if progress is not None:
                progress(done, len(stories))
    if not instances:
        raise InputError(f"no UA-CBT instance could be made from {source}")
    return instances[:n] if n else instances


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path.name} is not UTF-8 text") from None


def _read_articles(path: Path, title_col: str, text_col: str, tags_col: str) -> pd.DataFrame:
    readers = {".csv": lambda p: pd.read_csv(p, dtype=str, keep_default_na=False),
               ".tsv": lambda p: pd.read_csv(p, sep="\t", dtype=str, keep_default_na=False),
               ".jsonl": lambda p: pd.read_json(p, lines=True, dtype=False)}  # fmt: skip
    reader = readers.get(path.suffix.lower())
    if reader is None:
        raise InputError(f"{path.name}: articles must be .csv, .tsv or .jsonl")
    try:
        table = reader(path)
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except (UnicodeDecodeError, ValueError, pd.errors.ParserError) as exc:
        raise InputError(f"cannot read {path.name}: {str(exc).splitlines()[0]}") from None
    columns = {title_col: "title", text_col: "text", tags_col: "tags"}
    missing = [column for column in columns if column not in table.columns]
    if missing:
        raise InputError(f"{path.name} has no column {', '.join(map(repr, missing))} (columns: "
                         f"{', '.join(map(str, table.columns))})")  # fmt: skip
    return table.rename(columns=columns)[["title", "text", "tags"]]


def _eval_instances(
    task: str, split: str, instances_file: Path | None, data_dir: Path | None
) -> tuple[list[MCInstance], list[MCInstance] | None]:
    """The instances to score and the few-shot pool (None: shots are drawn leaving the current instance out)."""
    from affectlab.uatasks.loaders import load_task

    if instances_file is not None:
        instances = [i for i in read_instances(instances_file) if i.task == task]
        if not instances:
            raise InputError(f"{instances_file.name} holds no {task} instances")
        pool = [i for i in instances if i.few_shot] or None
        return [i for i in instances if not i.few_shot] or instances, pool
    instances = load_task(task, data_dir, split=split)
    pool = None
    if split != "fewshot":
        try:
            pool = load_task(task, data_dir, split="fewshot")
        except AffectlabError:
            pool = None
    return instances, pool


def _scorer(model: str, endpoint: str | None) -> Any:
    if endpoint is not None:
        from affectlab.uatasks.openai_compat import OpenAICompatibleScorer

        return OpenAICompatibleScorer(endpoint, model)
    from affectlab.uatasks.lm_scoring import HFCausalScorer

    return HFCausalScorer(model)


def _write_predictions(predictions: list[dict[str, Any]], path: Path) -> None:
    import json

    from affectlab.io.atomic import write_atomically

    lines = [json.dumps(row, ensure_ascii=False, default=str) for row in predictions]
    write_atomically({path: ("\n".join(lines) + "\n").encode("utf-8")})


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
