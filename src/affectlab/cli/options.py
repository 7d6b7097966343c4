"""Options shared by several commands, and the parsing of ``--param key=value``."""

from __future__ import annotations

import functools
import inspect
import json
import typing
from collections.abc import Callable
from typing import Any, TypeVar

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


Command = TypeVar("Command", bound=Callable[..., Any])


class OptionGroup:
    """Options that several commands take, declared once: the parameters of ``build`` (each with a Typer option as
    its default). A command names the group as one parameter's default; :func:`takes_option_groups` puts the
    group's options there and passes that parameter what ``build`` makes of them."""

    def __init__(self, build: Callable[..., Any]) -> None:
        self.build = build
        self.parameters = list(inspect.signature(build, eval_str=True).parameters.values())


def option_group(build: Callable[..., Any]) -> Any:
    """An :class:`OptionGroup` of ``build``'s options, typed (as ``typer.Option`` is) to stand as any parameter's
    default."""
    return OptionGroup(build)


def optional(flag: str, help_text: str) -> Any:
    """An option whose default is None, shown in the help without a default."""
    return typer.Option(None, flag, help=help_text, show_default=False)


def takes_option_groups(command: Command) -> Command:
    """``command`` with each parameter whose default is an :class:`OptionGroup` replaced, in its place, by the
    group's options (so the help lists them as before), and called with the group's result for that parameter."""
    hints = typing.get_type_hints(command)
    expanded, groups = [], {}
    for parameter in inspect.signature(command).parameters.values():
        if isinstance(parameter.default, OptionGroup):
            groups[parameter.name] = parameter.default
            expanded += parameter.default.parameters
        else:
            expanded.append(parameter.replace(annotation=hints.get(parameter.name, parameter.annotation)))

    @functools.wraps(command)
    def run(**values: Any) -> Any:
        for name, group in groups.items():
            values[name] = group.build(**{p.name: values.pop(p.name) for p in group.parameters})
        return command(**values)

    run.__signature__ = inspect.Signature(expanded)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in expanded}
    return typing.cast(Command, run)


def file_options(
    text_col: str = TextCol,
    label_col: str | None = LabelCol,
    label_sep: str | None = LabelSep,
    split_col: str | None = SplitCol,
    context_col: str | None = ContextCol,
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


UserFileColumns = option_group(file_options)
"""The columns of a user's labelled file (``--text-col`` ... ``--context-col``), as one :class:`FileOptions`."""
