"""Options shared by several commands, and the parsing of ``--param key=value``."""

from __future__ import annotations

import json
from typing import Any

import typer

from affectlab.datasets import FileOptions
from affectlab.datasets.sources import DATA_DIR_ENV
from affectlab.errors import InputError

DataDir = typer.Option(
    None,
    "--data-dir",
    envvar=DATA_DIR_ENV,
    file_okay=False,
    help="Local copy of the datasets (laid out like shared/data); default: download from the official source.",
)
TextCol = typer.Option("text", "--text-col", help="User files: column with the text.")
LabelCol = typer.Option(None, "--label-col", help="User files: column with the labels (default: labels/label).")
LabelSep = typer.Option(None, "--label-sep", help="User files: separator of several labels in one cell.")
SplitCol = typer.Option(None, "--split-col", help="User files: column naming each row's split (train/dev/test).")
ContextCol = typer.Option(None, "--context-col", help="User files: column with earlier dialogue turns.")
Params = typer.Option(None, "--param", "-p", help="Model parameter as key=value (value parsed as JSON if it can be).")
Json = typer.Option(False, "--json", help="Print one JSON object instead of tables.")


def file_options(
    text_col: str, label_col: str | None, label_sep: str | None, split_col: str | None, context_col: str | None
) -> FileOptions:
    """Bundle the user-file options."""
    return FileOptions(
        text_col=text_col, label_col=label_col, label_sep=label_sep, split_col=split_col, context_col=context_col
    )


def parse_params(pairs: list[str] | None) -> dict[str, Any]:
    """``["C=2", "word_ngrams=[1,3]"]`` -> ``{"C": 2, "word_ngrams": [1, 3]}``."""
    params: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError(f"--param {pair!r} is not key=value")
        try:
            params[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            params[key.strip()] = value
    return params
