"""The whole jobs of ``affectlab ua generate`` and ``ua eval``, one call each, so that the Python API does what the
command does: build a task's instances from new material and write them; or load (or read) a task's instances,
score a language model on them with few-shot prompts and write its predictions."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from affectlab.errors import AffectlabError, InputError
from affectlab.io.atomic import write_atomically
from affectlab.io.tables import read_records, read_text
from affectlab.uatasks.instance_files import read_instances, write_instances
from affectlab.uatasks.instances import TASKS, MCInstance

Progress = Callable[[int, int], None] | None
ARTICLE_SUFFIXES = (".csv", ".tsv", ".jsonl")
LMES_DEFAULT_N = 100


@dataclass
class Generated:
    """What :func:`generate_instances` wrote: how many instances, a note when fewer than asked, and the stories
    (UA-CBT) that gave none, with the reason."""

    task: str
    out: Path
    n: int
    requested: int | None
    note: str = ""
    skipped: list[tuple[str, str]] = field(default_factory=list)


def generate_instances(
    task: str,
    out: str | os.PathLike[str],
    source: str | os.PathLike[str] | None = None,
    n: int | None = None,
    seed: int = 0,
    few_shot: bool = False,
    columns: tuple[str, str, str] = ("title", "text", "tags"),
    data_dir: str | Path | None = None,
    progress: Progress = None,
) -> Generated:
    """Generate ``task`` instances from ``source`` (ua-cbt: a .txt story, a folder of them or a CSV with a
    ``fixed_story`` column; up-titles*: a CSV/TSV/JSONL of articles with the ``columns`` title, text and tags;
    lmes-wis: a text file of sentences; other lmes-*: the LMES resources folder, default ``data_dir``),
    deterministically for ``seed``, and write them to the JSON Lines file ``out``."""
    info, out = TASKS.get(task), Path(out)
    if out.suffix.lower() != ".jsonl":
        raise InputError(f"--out must end in .jsonl, got {out.name}")
    path = None if source is None else Path(source)
    skipped: list[tuple[str, str]] = []
    if info.family == "lmes":
        instances = _generate_lmes(task, path, data_dir, n, seed, few_shot)
    elif info.family == "ua-cbt":
        instances = _generate_cbt(_required(path, task), n, seed, few_shot, skipped, progress)
    else:
        from affectlab.uatasks.titles import generate_up_titles

        articles = read_articles(_required(path, task), *columns)
        titles = generate_up_titles(articles, n=n, masked=task == "up-titles-masked", seed=seed)
        instances = [replace(instance, few_shot=True) if few_shot else instance for instance in titles]
    write_instances(instances, out)
    short = n is not None and len(instances) < n
    note = f"asked for {n:,}, but the material gives only {len(instances):,} distinct {task} instances" if short else ""
    return Generated(task, out, len(instances), n, note, skipped)


def _required(source: Path | None, task: str) -> Path:
    if source is None:
        raise InputError(f"{task} needs --input (the material to build instances from)")
    return source


def _generate_lmes(task: str, source: Path | None, data_dir: str | Path | None, n: int | None,
                   seed: int, few_shot: bool) -> list[MCInstance]:  # fmt: skip
    from affectlab.uatasks.lmes import generate_lmes

    sentences = None
    if task == "lmes-wis":
        sentences = [line.strip() for line in read_text(_required(source, task)).splitlines() if line.strip()]
        source = None
    resources = source or data_dir
    if resources is None:
        raise InputError(f"{task} needs the LMES resources: --data-dir or --input RESOURCES_DIR")
    return generate_lmes(task, resources, n=n or LMES_DEFAULT_N, seed=seed, few_shot=few_shot, sentences=sentences)


def _generate_cbt(source: Path, n: int | None, seed: int, few_shot: bool, skipped: list[tuple[str, str]],
                  progress: Progress) -> list[MCInstance]:  # fmt: skip
    """Instances from every story; a story that gives none is listed in ``skipped`` (one unusable story should
    not sink a folder of them)."""
    from affectlab.uatasks.cbt import generate_cbt, read_stories

    is_text_file = source.is_file() and source.suffix.lower() == ".txt"
    stories = [(source.stem, "\n".join(read_text(source).splitlines()))] if is_text_file else read_stories(source)
    instances: list[MCInstance] = []
    for done, (story_id, story) in enumerate(stories, start=1):
        try:
            instances.extend(generate_cbt(story, story_id, seed=seed, few_shot=few_shot))
        except InputError as exc:
            skipped.append((story_id, str(exc)))
        if progress is not None:
            progress(done, len(stories))
    if not instances:
        raise InputError(f"no UA-CBT instance could be made from {source}")
    return instances[:n] if n else instances


def read_articles(path: Path, title_col: str = "title", text_col: str = "text", tags_col: str = "tags") -> pd.DataFrame:
    """Articles for UP-Titles: a CSV, TSV or JSON Lines table (read by :mod:`affectlab.io.tables`) with the
    title, text and tags columns, renamed to ``title``, ``text`` and ``tags``."""
    records = read_records(path, ARTICLE_SUFFIXES)
    found = list(records[0]) if records else []
    columns = {title_col: "title", text_col: "text", tags_col: "tags"}
    missing = [column for column in columns if column not in found]
    if missing:
        raise InputError(f"{path.name} has no column {', '.join(map(repr, missing))} (columns: "
                         f"{', '.join(map(str, found))})")  # fmt: skip
    return pd.DataFrame(records).rename(columns=columns)[["title", "text", "tags"]]


def evaluate_task(
    task: str,
    model: str,
    endpoint: str | None = None,
    split: str = "test",
    instances_file: str | os.PathLike[str] | None = None,
    shots: int = 3,
    seed: int = 0,
    limit: int | None = None,
    predictions_out: str | os.PathLike[str] | None = None,
    data_dir: str | Path | None = None,
    progress: Progress = None,
) -> dict[str, Any]:
    """Accuracy of a language model on ``task`` with the paper's few-shot multiple-choice prompts (section 4.1):
    ``model`` is a local Hugging Face causal LM (scored by log-likelihood) or, with ``endpoint`` (an
    OpenAI-compatible server), the model name the server knows (scored by exact match). The instances are the
    task's ``split`` or those of ``instances_file`` (from :func:`generate_instances`); ``predictions_out`` gets one
    JSON line per instance. Returns the run's record (accuracy, 95 % interval, n, shots, seconds, ...)."""
    from affectlab.uatasks.multiple_choice import evaluate_mc

    TASKS.get(task)
    file = None if instances_file is None else Path(instances_file)
    instances, pool = _eval_instances(task, split, file, data_dir)
    result = evaluate_mc(instances, _scorer(model, endpoint), pool, k_shots=shots, seed=seed, limit=limit,
                         progress=progress)  # fmt: skip
    if predictions_out is not None:
        lines = [json.dumps(row, ensure_ascii=False, default=str) for row in result["predictions"]]
        write_atomically({Path(predictions_out): ("\n".join(lines) + "\n").encode("utf-8")})
    return {**result["record"], "split": split if file is None else str(file)}


def _eval_instances(
    task: str, split: str, instances_file: Path | None, data_dir: str | Path | None
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
