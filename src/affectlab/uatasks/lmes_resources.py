"""LMentry-static-UA (LMES) resources: the task templates, the word list and the word categories.

Eval-UA-tion 1.0 (Hamotskyi et al. 2024), section 3.2. The shipped resources have a main and a few-shot version
(``sampled_words_fewshot.csv``, ``word_classes_fewshot.yaml``) with different words and categories (section
3.2.3); the templates are shared. LOW/WIS templates must carry a capitalised numeral (section 3.2.5).
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from affectlab.errors import DataNotFoundError, InputError
from affectlab.extras import require
from affectlab.uatasks.instances import TASKS
from affectlab.uatasks.numerals import find_numerals

TASK_FILES = {
    "lmes-low": "LOWTask",
    "lmes-wis": "WISTask",
    "lmes-wordlength": "WordLengthComparison",
    "lmes-wordalpha": "WordsAlphabetOrder",
    "lmes-cats-bin": "DoAllWordsBelongToCatTask",
    "lmes-cats-mc": "WhichWordWrongCatTask",
}
"""Task name -> the authors' task name, which names both its template YAML and its published artifact JSON."""

_NUMERIC_WORD_FIELDS = ("freq", "index", "freq_quantile", "len")


@dataclass(frozen=True)
class LMESTemplate:
    """One question template of a task: its text, number, id and metadata (``kind``, ``type``, ``template_n``).

    ``id`` is the YAML uuid, or ``<task file>-<template_n>`` where the YAML gives none (WhichWordWrongCatTask's
    templates have no uuid, so its published uuids were minted per run and cannot be matched).
    """

    text: str
    template_n: int
    id: str
    meta: Mapping[str, Any]

    @property
    def kind(self) -> str | None:
        """``more``/``less`` for the comparison tasks, ``direct``/``reversed`` for CATS-BIN."""
        return self.meta.get("kind")


@dataclass(frozen=True)
class LMESResources:
    """Templates per task, words with their metadata (CSV order) and categories, main or few-shot."""

    templates: Mapping[str, tuple[LMESTemplate, ...]]
    words: Mapping[str, Mapping[str, Any]]
    categories: Mapping[str, tuple[str, ...]]
    few_shot: bool


def lmes_dir(path: str | Path, part: str = "resources") -> Path:
    """``part`` (``resources`` or ``artifacts``) of LMentry-static-UA under ``path``: the data directory, its
    ``eval_ua_tion`` folder, the ``LMentry-static-UA`` folder or the part itself."""
    path = Path(path)
    nested = (path, path / part, path / "LMentry-static-UA" / part, path / "eval_ua_tion" / "LMentry-static-UA" / part)
    for candidate in nested:
        if candidate.name == part and candidate.is_dir():
            return candidate
    raise DataNotFoundError(f"no LMentry-static-UA {part} folder under {path}")


def load_templates(path: str | Path) -> tuple[LMESTemplate, ...]:
    """The templates of one task YAML (``templates: [{template, uuid, additional-metadata}]``)."""
    yaml = require("yaml", "ua", "Reading LMES templates")
    path = Path(path)
    try:
        entries = yaml.safe_load(path.read_text(encoding="utf-8"))["templates"]
    except (FileNotFoundError, KeyError, TypeError):
        raise InputError(f"{path}: not an LMES template file (needs a 'templates' list)") from None
    templates = []
    for number, entry in enumerate(entries):
        meta = dict(entry.get("additional-metadata") or {})
        template_n = int(meta.get("template_n", number))
        template_id = str(entry.get("uuid") or f"{path.stem}-{template_n}")
        templates.append(LMESTemplate(str(entry["template"]), template_n, template_id, meta))
    return tuple(templates)


def load_words(path: str | Path) -> dict[str, dict[str, Any]]:
    """Word -> its metadata (pos, freq, index, freq_quantile, len, len_quantile, word_raw), in file order."""
    path = Path(path)
    if not path.is_file():
        raise DataNotFoundError(f"no LMES word list at {path}")
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    words = {}
    for row in rows:
        meta = {key: value for key, value in row.items() if key != "word"}
        for key in _NUMERIC_WORD_FIELDS:
            if str(meta.get(key, "")).isdigit():
                meta[key] = int(meta[key])
        words[row["word"]] = meta
    return words


def load_categories(path: str | Path) -> dict[str, tuple[str, ...]]:
    """Category name -> its words, from ``word_classes*.yaml``."""
    yaml = require("yaml", "ua", "Reading LMES categories")
    path = Path(path)
    if not path.is_file():
        raise DataNotFoundError(f"no LMES category file at {path}")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {str(name): tuple(str(word) for word in words) for name, words in data.items()}


def load_resources(resources_dir: str | Path, few_shot: bool = False) -> LMESResources:
    """Templates, words and categories from the shipped resources; ``few_shot`` picks the ``*_fewshot`` files."""
    root = lmes_dir(resources_dir, "resources")
    suffix = "_fewshot" if few_shot else ""
    templates = {task: load_templates(root / "templates" / f"{stem}.yaml") for task, stem in TASK_FILES.items()}
    for task in ("lmes-low", "lmes-wis"):
        for template in templates[task]:
            if not find_numerals(template.text):
                raise InputError(f"{task} template {template.template_n} has no capitalised numeral (section 3.2.5)")
    return LMESResources(
        templates=templates,
        words=load_words(root / "words" / f"sampled_words{suffix}.csv"),
        categories=load_categories(root / f"word_classes{suffix}.yaml"),
        few_shot=few_shot,
    )


def check_lmes_task(task: str) -> None:
    """Raise :class:`UnknownNameError` (with "did you mean ...?") for an unknown task name and
    :class:`InputError` for a known task that is not one of the six LMES tasks."""
    TASKS.get(task)  # unknown names get "did you mean ...?"
    if task not in TASK_FILES:
        raise InputError(f"{task!r} is not an LMES task (LMES tasks: {', '.join(TASK_FILES)})")
