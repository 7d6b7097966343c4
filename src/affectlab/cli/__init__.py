"""The ``affectlab`` command line (Typer + Rich): one small module per command group, each a thin layer over a
library function. Errors caused by input become one line on stderr and exit code 2."""

from __future__ import annotations

import sys

import click
import typer

from affectlab.cli import (
    annotate_cmd,
    asi_cmd,
    build_cmd,
    datasets_cmd,
    detect_cmd,
    eval_cmd,
    runs_cmd,
    score_cmd,
    serve_cmd,
    train_cmd,
    ua_cmd,
)
from affectlab.cli.output import print_error
from affectlab.errors import AffectlabError
from affectlab.versions import __version__

# Typer >= 0.20 carries its own copy of click, whose exceptions are not click's: catch both families.
_EXITS = (click.exceptions.Exit, typer.Exit)
_ABORTS = (click.exceptions.Abort, typer.Abort)
_USAGE_ERRORS: tuple[type[Exception], ...] = (click.ClickException,)
if hasattr(typer, "exceptions") and hasattr(typer.exceptions, "TyperException"):
    _USAGE_ERRORS += (typer.exceptions.TyperException,)

app = typer.Typer(
    name="affectlab",
    help="Emotion and affect analysis of text in English, Ukrainian and Spanish.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
app.command("detect")(detect_cmd.detect_command)
app.command("eval")(eval_cmd.evaluate_command)
app.command("train")(train_cmd.train)
app.add_typer(datasets_cmd.app, name="datasets")
app.command("build-default")(build_cmd.build_default_command)
app.add_typer(annotate_cmd.app, name="annotate")
app.add_typer(ua_cmd.app, name="ua")
app.add_typer(asi_cmd.app, name="asi")
app.add_typer(runs_cmd.app, name="runs")
app.command("leaderboard")(runs_cmd.leaderboard_command)
app.command("report")(runs_cmd.report_command)
app.command("serve")(serve_cmd.serve_command)
app.command("score")(score_cmd.score_command)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"affectlab {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """Emotion and affect analysis of text in English, Ukrainian and Spanish."""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``affectlab`` script: run the app, turning input errors into exit code 2."""
    try:
        app(args=argv, standalone_mode=False)
    except AffectlabError as exc:
        print_error(str(exc))
        return 2
    except _EXITS as exc:
        return int(getattr(exc, "exit_code", 0))
    except _ABORTS:
        print_error("aborted")
        return 130
    except _USAGE_ERRORS as exc:
        if hasattr(exc, "show"):
            exc.show()
        else:
            print_error(str(exc))
        return int(getattr(exc, "exit_code", 2))
    except KeyboardInterrupt:
        print_error("interrupted")
        return 130
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
