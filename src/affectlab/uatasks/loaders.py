"""Loading the Eval-UA-tion tasks as :class:`MCInstance` lists, from a local copy or the Hugging Face Hub.

With a data directory (``data_dir`` or ``$AFFECTLAB_DATA_DIR``, laid out like the project's shared data folder:
``<data_dir>/eval_ua_tion/...``; the ``eval_ua_tion`` folder itself is accepted too) the published sample
artifacts of ``pchr8/eval-UA-tion`` are read. They are samples, not the full datasets (see the data folder's
MANIFEST.md): each task has one local file and so one local split. Without one, the full datasets are read from
the Hub ids in :data:`TASKS` with ``datasets.load_dataset``; that path could not be run where this was written.

Splits: ``test`` is the evaluated data (the Hub calls it ``train``; the authors' lm-eval configs of section 4.1 read
it as the test split) and ``fewshot`` the separate few-shot split of LMES and UA-CBT (sections 3.1, 3.2.3).
"""

from __future__ import annotations

import ast
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from affectlab.datasets.sources import DATA_DIR_ENV, HUB_URL, check_reachable, resolve_data_dir
from affectlab.errors import DataNotFoundError, InputError
from affectlab.uatasks.instances import TASKS, MCInstance, TaskInfo
from affectlab.uatasks.titles import mask_numbers

ROOT = "eval_ua_tion"
SPLITS = ("test", "fewshot")
HUB_SPLITS = {"test": "train", "fewshot": "fewshot"}

# One published file per task, and the split it holds. stories_train.jsonl despite its name is the 8 instances
# cut from the one few-shot story (storyId 999, few_shot_split.csv), so locally UA-CBT has only a fewshot split.
LOCAL_FILES: dict[str, tuple[str, str]] = {
    "lmes-low": ("LMentry-static-UA/artifacts/LOWTask.json", "test"),
    "lmes-wis": ("LMentry-static-UA/artifacts/WISTask.json", "test"),
    "lmes-wordlength": ("LMentry-static-UA/artifacts/WordLengthComparison.json", "test"),
    "lmes-wordalpha": ("LMentry-static-UA/artifacts/WordsAlphabetOrder.json", "test"),
    "lmes-cats-bin": ("LMentry-static-UA/artifacts/DoAllWordsBelongToCatTask.json", "test"),
    "lmes-cats-mc": ("LMentry-static-UA/artifacts/WhichWordWrongCatTask.json", "test"),
    "ua-cbt": ("UA-CBT/artifacts/tasks/stories_train.jsonl", "fewshot"),
    "up-titles": ("UP-Titles/artifacts/up_titles_15000-20-ukr.csv", "test"),
    "up-titles-masked": ("UP-Titles/artifacts/up_titles_15000-20-ukr.csv", "test"),
}


def load_task(name: str, data_dir: str | Path | None = None, split: str = "test") -> list[MCInstance]:
    """The instances of Eval-UA-tion task ``name`` (a :data:`TASKS` name) in ``split`` (``test`` or ``fewshot``).

    Instances of the fewshot split have ``few_shot=True``. Raises :class:`UnknownNameError` with suggestions for an
    unknown task, :class:`InputError` for an unknown split and :class:`DataNotFoundError` when the split is not in
    the local data or the Hub cannot be reached.
    """
    info = TASKS.get(name)
    if split not in SPLITS:
        raise InputError(f"unknown split {split!r} for {name} (splits: {', '.join(SPLITS)})")
    local = resolve_data_dir(data_dir) is not None
    instances = _load_local(info, data_dir, split) if local else _load_hub(info, split)
    return [replace(instance, few_shot=split == "fewshot") for instance in instances]


def local_split(name: str) -> str:
    """The one split the local published artifact of task ``name`` holds."""
    return LOCAL_FILES[TASKS.get(name).name][1]


def local_path(name: str, data_dir: str | Path | None) -> Path:
    """Where the published artifact of task ``name`` lies in the local data directory (``data_dir`` or
    ``$AFFECTLAB_DATA_DIR``, holding ``eval_ua_tion/`` or being that folder)."""
    relative = LOCAL_FILES[TASKS.get(name).name][0]
    local_dir = resolve_data_dir(data_dir)
    if local_dir is None:
        raise DataNotFoundError(f"no local data directory: pass data_dir or set {DATA_DIR_ENV}")
    root = local_dir / ROOT if (local_dir / ROOT).is_dir() else local_dir
    if not (root / relative).is_file():
        raise DataNotFoundError(
            f"missing data file {str(root / relative)!r} (the data directory must hold {ROOT}/{relative})"
        )
    return root / relative


def _load_local(info: TaskInfo, data_dir: str | Path | None, split: str) -> list[MCInstance]:
    available = LOCAL_FILES[info.name][1]
    if split != available:
        raise DataNotFoundError(
            f"{info.name} has no {split!r} split in the local data (available: {available}); the full dataset is "
            f"{info.hub_id} on the Hugging Face Hub (load it without a data directory)"
        )
    return _parse_file(info, local_path(info.name, data_dir))


def _parse_file(info: TaskInfo, path: Path) -> list[MCInstance]:
    """One artifact file in the format of ``pchr8/eval-UA-tion`` (LMES JSON, UA-CBT JSON Lines, UP-Titles CSV)."""
    if info.family == "lmes":
        from affectlab.uatasks.lmes_published import load_lmes_artifact

        return load_lmes_artifact(path, info.name)
    if info.family == "ua-cbt":
        from affectlab.uatasks.cbt_published import load_cbt_artifact

        return load_cbt_artifact(path)
    import pandas as pd

    rows = pd.read_csv(path).to_dict("records")
    if info.name == "up-titles":
        rows = _unmasked_rows(rows, path.name)
    return up_titles_instances(rows, info.name)


def up_titles_instances(records: Iterable[Mapping[str, Any]], task: str) -> list[MCInstance]:
    """UP-Titles rows as instances of ``task`` (``up-titles-masked``: ``masked_text``; ``up-titles``: ``ukr_text``).

    ``similar_titles`` holds the 10 candidates as a list or, in the CSV, as its Python ``repr``; ``label`` (a float
    in the CSV) is the index of the true title among them (section 3.3.1).
    """
    return [_up_titles_instance(task, row) for row in records]


def _options(row: Mapping[str, Any]) -> list[str]:
    titles = row["similar_titles"]
    return [str(title) for title in (ast.literal_eval(titles) if isinstance(titles, str) else titles)]


def _unmasked_rows(rows: list[dict[str, Any]], source: str) -> list[dict[str, Any]]:
    """The CSV rows with unmasked candidates, if every row's can be recovered; else :class:`DataNotFoundError`.

    The published CSV's candidates are digit-masked. A candidate without an ``X`` had no digit and is its own
    unmasked form; one with an ``X`` is recovered only if it is the masked title of exactly one row of the file.
    ``similar_idx`` cannot help: it holds positions in the 15,000-article sample the file was drawn from (each
    row's own position is its row number), not values of the ``index`` column.
    """
    originals: dict[str, set[str]] = {}
    for row in rows:
        originals.setdefault(row["masked_title"], set()).add(row["ukr_title"])
    unmasked = [[_unmasked(title, originals) for title in _options(row)] for row in rows]
    missing = sum(None in options for options in unmasked)
    if missing:
        raise DataNotFoundError(
            f"{source} has digit-masked candidate titles only, and for {missing} of its {len(rows)} articles some "
            f"candidates are titles of articles not in the file, so their unmasked form is unknown; unmasked "
            f"UP-Titles is {TASKS.get('up-titles').hub_id} on the Hugging Face Hub"
        )
    return [{**row, "similar_titles": options} for row, options in zip(rows, unmasked, strict=True)]


def _unmasked(title: str, originals: dict[str, set[str]]) -> str | None:
    if "X" not in title:
        return title
    candidates = originals.get(title, set())
    return next(iter(candidates)) if len(candidates) == 1 else None


def _up_titles_instance(task: str, row: Mapping[str, Any]) -> MCInstance:
    masked = task == "up-titles-masked"
    text = row["masked_text"] if masked and "masked_text" in row else row["ukr_text"]
    return MCInstance(
        task=task,
        # A Hub copy of the masked set may carry its text as ukr_text only; masking masked text changes nothing.
        question=mask_numbers(str(text)) if masked else str(text),
        options=tuple(_options(row)),
        answer=int(float(row["label"])),
        id=str(row.get("index", "")),
        metadata={"tags": row.get("tags")},
    )


def _load_hub(info: TaskInfo, split: str) -> list[MCInstance]:
    """The full dataset from the Hub (unverified: written from the paper, the MANIFEST and the authors' lm-eval
    configs, not against the live datasets). LMES and UA-CBT rows are written back in the artifact format, so one
    parser reads both sources; UP-Titles rows are mapped directly."""
    endpoint = os.environ.get("HF_ENDPOINT", HUB_URL)
    needed = f"{info.hub_id} split {HUB_SPLITS[split]!r} from the Hugging Face Hub"
    check_reachable(endpoint, needed, f"{ROOT}/ (the published artifacts)")
    import datasets

    try:
        rows = list(datasets.load_dataset(info.hub_id, split=HUB_SPLITS[split]))
    except (OSError, ValueError) as exc:  # offline, unknown id, private dataset, no such split
        raise DataNotFoundError(
            f"could not load {info.hub_id} split {HUB_SPLITS[split]!r} from the Hugging Face Hub ({exc}); put the "
            f"published artifacts under <data-dir>/{ROOT} and pass --data-dir or set {DATA_DIR_ENV}"
        ) from None
    if info.family == "up-titles":
        return up_titles_instances(rows, info.name)
    with tempfile.TemporaryDirectory() as tmp:
        return _parse_file(info, _artifact_file(info, rows, Path(tmp)))


def _artifact_file(info: TaskInfo, rows: list[dict[str, Any]], folder: Path) -> Path:
    """Hub rows written as the published artifact: LMES JSON (``additionalMetadata_*`` columns, as the Hub's
    flattened copy names them, nested back) or UA-CBT JSON Lines (the same keys)."""
    if info.family == "ua-cbt":
        path = folder / "tasks.jsonl"
        path.write_text("".join(json.dumps(row, ensure_ascii=False, default=str) + "\n" for row in rows), "utf-8")
        return path
    path = folder / "task.json"
    instances = [_nested_lmes_row(row) for row in rows]
    path.write_text(json.dumps({"name": info.name, "instances": instances}, ensure_ascii=False, default=str), "utf-8")
    return path


def _nested_lmes_row(row: Mapping[str, Any]) -> dict[str, Any]:
    prefix = "additionalMetadata_"
    nested: dict[str, Any] = {k: v for k, v in row.items() if not k.startswith(prefix)}
    flat = {k[len(prefix) :]: v for k, v in row.items() if k.startswith(prefix)}
    if flat:
        nested["additionalMetadata"] = {**nested.get("additionalMetadata", {}), **flat}
    return nested
