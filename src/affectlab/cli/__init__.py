"""The ``affectlab`` command line (Typer + Rich): one small module per command group, each a thin layer over a
library function. Errors caused by input become one line on stderr and exit code 2."""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from typing import Any

import click
import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

from affectlab.cli.output import ReaderGone, guarded_stdout, print_error
from affectlab.errors import AffectlabError, Interrupted
from affectlab.versions import __version__

# Typer >= 0.20 carries its own copy of click, whose exceptions are not click's: catch both families.
_EXITS = (click.exceptions.Exit, typer.Exit)
_ABORTS = (click.exceptions.Abort, typer.Abort)
_USAGE_ERRORS: tuple[type[Exception], ...] = (click.ClickException,)
if hasattr(typer, "exceptions") and hasattr(typer.exceptions, "TyperException"):
    _USAGE_ERRORS += (typer.exceptions.TyperException,)


@dataclass(frozen=True)
class LazyCommand:
    """A command (a function) or command group (a ``typer.Typer``) in ``affectlab.cli.<module>``, imported only
    when it runs; ``summary`` is the first paragraph of its help, for ``affectlab --help`` (a test keeps the two
    equal)."""

    module: str
    attribute: str
    summary: str


COMMANDS = {
    "detect": LazyCommand(
        "detect_cmd",
        "detect_command",
        "Detect emotions with the embedded default detector (offline; 28 languages, each identified unless --lang).",
    ),
    "checklist": LazyCommand(
        "checklist_cmd",
        "checklist_command",
        "Run the behavioural suite on a detector: in ten languages, does it keep a denied emotion out (\"I'm not\n"
        'angry"), give B and not A in "not A but B", read intensifiers, plain situations without emotion words and\n'
        'neutral statements, and keep its answer under harmless edits (case, "!!!", repetition, @mentions, links,\n'
        "hashtags, emoji, typos)?",
    ),
    "eval": LazyCommand(
        "eval_cmd",
        "evaluate_command",
        "Score a model on a dataset split: per-label F1, macro P/R/F1 and the dataset's primary metric with a 95%\n"
        "bootstrap interval. A model kind is first trained on the dataset's train split (thresholds tuned on dev).",
    ),
    "train": LazyCommand(
        "train_cmd",
        "train",
        "Train a detector on the train split, tune its thresholds on dev, and save it (JSON + npz).",
    ),
    "build-default": LazyCommand(
        "build_cmd",
        "build_default_command",
        "Train the default heads (fine-tuned encoder + n-gram ensembles) and record their test scores.",
    ),
    "export-onnx": LazyCommand(
        "export_cmd",
        "export_onnx_command",
        "Export a fine-tuned hf model to ONNX int8, served by ONNX Runtime without torch (needs torch once).",
    ),
    "leaderboard": LazyCommand(
        "runs_cmd",
        "leaderboard_command",
        "The best recorded run of each model on a dataset (best per column in bold).",
    ),
    "report": LazyCommand(
        "runs_cmd", "report_command", "Write an HTML report of recorded runs (opens without network access)."
    ),
    "serve": LazyCommand("serve_cmd", "serve_command", "Serve the REST API and the web page."),
    "score": LazyCommand(
        "score_cmd", "score_command", "Score Parquet/CSV files into a folder of Parquet files, locally or on Ray."
    ),
    "datasets": LazyCommand("datasets_cmd", "app", "List the datasets affectlab knows and show one in detail."),
    "annotate": LazyCommand(
        "annotate_cmd",
        "app",
        "Crowd annotation: protocols, selection, a collection service with its simulated crowds and export; "
        "agreement, aggregated labels, comparison with released labels.",
    ),
    "ua": LazyCommand(
        "ua_cmd",
        "app",
        "Eval-UA-tion: Ukrainian LM benchmark tasks (UA-CBT, UP-Titles, LMentry-static-UA): generate, evaluate, "
        "export to lm-evaluation-harness, baselines.",
    ),
    "asi": LazyCommand(
        "asi_cmd",
        "app",
        "Open-ended affective states (MASIVE): collect masked data, train, evaluate, fixed-label evaluation.",
    ),
    "runs": LazyCommand(
        "runs_cmd", "app", "The results store: every `affectlab eval` run, listed, shown and compared."
    ),
}


def load_command(name: str) -> Any:
    """Import the command ``name`` and build it exactly as registering it on the root app would."""
    spec = COMMANDS[name]
    target = getattr(importlib.import_module(f"affectlab.cli.{spec.module}"), spec.attribute)
    holder = typer.Typer(rich_markup_mode="rich", add_completion=False, pretty_exceptions_enable=False)
    if isinstance(target, typer.Typer):
        holder.add_typer(target, name=name)
    else:
        holder.command(name)(target)
    return typer.main.get_group(holder).commands[name]


_METAVARS = {"str": "TEXT", "int": "INTEGER", "float": "NUMBER", "bool": "BOOLEAN"}


def _option_type(option: Any, ctx: Any) -> str | None:
    """What the help shows after an option: its metavar, nothing for a flag, else click's word for its type
    (``<int range>`` -> INTEGER, ``<list[str]>`` -> TEXT, for a repeatable option)."""
    if option.metavar is not None:
        return str(option.metavar)
    if option.is_flag:
        return None
    label = option.display_type(ctx).strip("<>").removesuffix(" range")
    label = label.removeprefix("list[").removesuffix("]")
    return _METAVARS.get(label, label.upper())


def _click_style_help() -> None:
    """Help in click's words (``--fast``, ``--top-k INTEGER``, ``texts...``) instead of the Python type labels
    recent Typer prints (``--fast <bool>``, ``texts... <list[str]>``), which make a flag look as if it took a value.
    Typer (0.29) has no setting for this, so its one hook for the label is replaced; on a Typer without the hook
    (older releases print click's words already) nothing changes."""
    core: Any = typer.core
    if hasattr(core.TyperOption, "display_type_rich"):
        core.TyperOption.display_type_rich = _option_type
        core.TyperArgument.display_type_rich = lambda _argument, ctx: None


_click_style_help()


class LazyGroup(TyperGroup):
    """The root group: its commands are placeholders carrying their summary until one is run (Click's "lazily
    loading subcommands" pattern), so ``affectlab detect`` does not import crowd-kit, Ray or torch, and
    ``affectlab --help`` imports no command at all."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands.update({name: TyperCommand(name, help=spec.summary) for name, spec in COMMANDS.items()})
        self._loaded: set[str] = set()
        self._listing = False

    # click's types are Any here: Typer (>= 0.20) runs on its own copy of click, whose classes are not click's
    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in COMMANDS and cmd_name not in self._loaded and not self._listing:
            self.commands[cmd_name] = load_command(cmd_name)
            self._loaded.add(cmd_name)
        return self.commands.get(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True  # the command list needs only the summaries
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(
    name="affectlab",
    help="Emotion and affect analysis of text in 28 languages (Ukrainian, English and Spanish first).",
    cls=LazyGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"affectlab {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """Emotion and affect analysis of text in 28 languages (Ukrainian, English and Spanish first)."""


EXIT_DONE, EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 0, 2, 130, 141
"""The exit codes every command keeps: done, bad input (one ``error:`` line), interrupted by Ctrl-C (one
``interrupted:`` line saying what was kept), output pipe closed by its reader (as a shell reports SIGPIPE); 1 only
for a bug (a traceback). An output that cannot be written (a full disk, an I/O error: ENOSPC, EIO, EBADF) is bad
input too, the closest of these: one ``error: cannot write the output: ...`` line, exit 2."""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``affectlab`` script: run the app and return its exit code (see :data:`EXIT_DONE`).

    The command is invoked here rather than through Typer's own ``main``, whose non-standalone mode turns Ctrl-C
    into a silent return value that changed meaning between Typer releases; so every exit code is decided in one
    place, whatever Typer version is installed."""
    command = typer.main.get_command(app)
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        with guarded_stdout(), command.make_context("affectlab", args) as ctx:
            command.invoke(ctx)
    except AffectlabError as exc:  # an OutputWriteError too: stdout refused the output, the line goes to stderr
        print_error(str(exc))
        return EXIT_BAD_INPUT
    except Interrupted as exc:
        print_error(str(exc), prefix="interrupted")
        return EXIT_INTERRUPTED
    except (KeyboardInterrupt, *_ABORTS):
        print_error("stopped (Ctrl-C) before the command finished", prefix="interrupted")
        return EXIT_INTERRUPTED
    except _EXITS as exc:
        return int(getattr(exc, "exit_code", EXIT_DONE))
    except (ReaderGone, BrokenPipeError):  # the reader went away (``affectlab ... | head``): quiet, as in a shell
        return EXIT_BROKEN_PIPE
    except _USAGE_ERRORS as exc:  # an unknown option, a missing one, a value of the wrong type: one line too
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        where = getattr(exc, "ctx", None)  # the context of the command that refused the option
        print_error(f"{message} (see {where.command_path} --help)" if where is not None else message)
        return int(getattr(exc, "exit_code", EXIT_BAD_INPUT))
    return EXIT_DONE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
