"""``affectlab annotate aggregate|agreement|compare|report``: crowd ratings to agreement, labels and a report; the
collection commands (``init``, ``check``, ``select``) are in :mod:`affectlab.cli.collect_cmds`."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import cast

import typer
from rich.table import Table
from rich.text import Text

# Only what the options need at the top: the ratings commands import what they compute with inside themselves, so
# the protocol and project commands of `annotate` start without scipy.stats and scikit-learn (1.8 s of each start
# before issue 54).
from affectlab.annotation.aggregation import METHODS
from affectlab.annotation.readers import LEVELS, RATING_SCALE, Level, RatingsSource
from affectlab.cli import collect_cmds, project_cmds
from affectlab.cli.options import Json, option_group, optional, takes_option_groups
from affectlab.cli.output import print_json, stage_progress, stdout, styled
from affectlab.errors import InputError
from affectlab.io.outputs import check_output_dir

app = typer.Typer(
    help="Crowd annotation: protocols, selection, a collection service with its simulated crowds and export; "
    "agreement, aggregated labels, comparison with released labels.",
    no_args_is_help=True,
)

JOINS = ("auto", "id", "text")

RatingsFile = typer.Argument(..., help="Ratings file: CSV, TSV or JSON Lines (by extension).", show_default=False)
Layout = typer.Option(
    "auto",
    "--layout",
    help="long: one row per (item, annotator, label); wide: one row per (item, label) and one column of values "
    "per annotator; auto: wide with --annotator-cols or a column whose name starts with 'Annotator' (but is not "
    "'annotator'), else long.",
)
ItemCol = optional(
    "--item-col",
    "Column with the item id (default: the first of item, item_id, text_id, id, unit, ... in the file).",
)
AnnotatorCol = optional(
    "--annotator-col",
    "Long layout: column with the annotator id (default: the first of annotator, annotator_id, rater, "
    "worker, ... in the file).",
)
LabelCol = optional(
    "--label-col",
    "Column with the label (default: the first of label, emotion, category, class, question in the file).",
)
ValueCol = optional(
    "--value-col",
    "Long layout: column with each rating's number (0/1 presence, 0-3 intensity). Without it a row means "
    "'this annotator chose this label', and every other label counts as 0 for that annotator and item.",
)
TextCol = typer.Option(None, "--text-col", help="Column with the item's text (needed to join gold labels by text).")
AnnotatorCols = optional(
    "--annotator-cols",
    "Wide layout: the annotator columns, comma-separated (default: every column starting with 'Annotator').",
)
Labels = optional(
    "--labels",
    "The declared label set, comma-separated, in order; a label outside it is an error (default: the labels "
    "found, sorted).",
)
Binarize = typer.Option(False, "--binarize", help="Treat every rating above 0 as 1 (present) and 0 as absent.")
Method = typer.Option(
    "dawid-skene",
    "--method",
    help=f"Aggregation, one per label: {', '.join(METHODS)} (crowd-kit's models; votes: a label given by at least "
    "--min-votes annotators, GoEmotions' rule; brighter: BRIGHTER's label and intensity rule).",
)
MinConfidence = typer.Option(
    0.9,
    "--min-confidence",
    help="An item passes when each of its label questions has at least this confidence (EmoBench-UA's rule).",
)
MeasurementLevel = optional(
    "--level",
    f"How values compare: {', '.join(LEVELS)} (default: nominal for 0/1 ratings, else ordinal).",
)
RatingScale = typer.Option(
    "-".join(map(str, RATING_SCALE)),
    "--scale",
    help="Ratings allowed, LOW-HIGH (default: BRIGHTER's intensities 0-3, which include 0/1 presence); a rating "
    "outside it is an error naming its row.",
)
Bootstrap = typer.Option(1000, "--bootstrap", help="Resamples of the items for the 95% intervals (0: none).")


def ratings_reading(
    layout: str = Layout,
    item_col: str | None = ItemCol,
    annotator_col: str | None = AnnotatorCol,
    label_col: str | None = LabelCol,
    value_col: str | None = ValueCol,
    text_col: str | None = TextCol,
    annotator_cols: str | None = AnnotatorCols,
    labels: str | None = Labels,
    binarize_values: bool = Binarize,
    scale: str = RatingScale,
) -> Callable[[Path], RatingsSource]:
    """How to read a ratings file: the options of every command that reads one, checked when a file is read (the
    comma-separated ones split and ``--scale`` parsed), after the command's own checks."""

    def source(file: Path) -> RatingsSource:
        return RatingsSource(
            file, layout, item_col, annotator_col, label_col, value_col, text_col,
            _split_list("--annotator-cols", annotator_cols), _split_list("--labels", labels), _parse_scale(scale),
            binarize_values,
        )  # fmt: skip

    return source


RatingsReading = option_group(ratings_reading)


@app.command("aggregate")
@takes_option_groups
def aggregate_command(
    file: Path = RatingsFile,
    method: str = Method,
    min_confidence: float = MinConfidence,
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Write one row per item here: .csv, .tsv or .jsonl.", show_default=False
    ),
    controls: Path | None = typer.Option(
        None,
        "--controls",
        help="Control questions' known answers (.csv, .tsv or .jsonl: item, label, value), taken as known truths by "
        "dawid-skene (EmoBench-UA's control tasks).",
        show_default=False,
    ),
    min_votes: int = typer.Option(2, "--min-votes", help="--method votes: annotators a label needs.", min=1),
    reading: Callable[[Path], RatingsSource] = RatingsReading,
    as_json: bool = Json,
) -> None:
    """Aggregate the ratings into one label set per item, with a confidence and whether it passes the cut."""
    from affectlab.annotation.files import output_suffix
    from affectlab.annotation.jobs import aggregate_ratings
    from affectlab.annotation.report import aggregation_summary

    _check_choice("--method", method, METHODS)
    if controls is not None and method != "dawid-skene":
        raise InputError(f"--controls is taken as known truths by --method dawid-skene only, not {method}")
    if out is not None:
        output_suffix(out)
        _check_not_input(out, file)
    ratings = reading(file)
    with stage_progress(not as_json) as progress:
        aggregation = aggregate_ratings(ratings, method, min_confidence, out, progress, controls, min_votes)
    summary = aggregation_summary(aggregation)
    if as_json:
        print_json({**summary, "out": None if out is None else str(out)})
        return
    _print_aggregation(summary)
    if out is not None:
        stdout.print(styled("wrote {:,} items to {}", summary["n_items"], out))


@app.command("agreement")
@takes_option_groups
def agreement_command(
    file: Path = RatingsFile,
    level: str | None = MeasurementLevel,
    bootstrap: int = Bootstrap,
    reading: Callable[[Path], RatingsSource] = RatingsReading,
    as_json: bool = Json,
) -> None:
    """Agreement between annotators, overall and per label, with 95% bootstrap intervals.

    Krippendorff's alpha, Fleiss' kappa, mean pairwise Cohen's kappa and GoEmotions' interrater correlation.
    """
    from affectlab.annotation.agreement import agreement_report

    checked_level = _check_agreement_options(level, bootstrap)
    source = reading(file)
    with stage_progress(not as_json) as progress:
        progress(f"reading {file.name}")
        ratings = source.read(checked_level)
        progress(f"agreement with {bootstrap:,} bootstrap resamples")
        report = agreement_report(ratings, level=checked_level, n_bootstrap=bootstrap)
    if as_json:
        print_json(report)
        return
    _print_agreement(report, level or ratings.level, bootstrap)


@app.command("compare")
def compare_command(
    aggregated: Path = typer.Argument(
        ..., help="An aggregation written by `affectlab annotate aggregate --out`.", show_default=False
    ),
    gold: list[Path] = typer.Argument(
        ...,
        help="Released labels (one or more files, joined): an id column, a text column and a 0/1 column per label.",
        show_default=False,
    ),
    id_col: str = typer.Option("id", "--id-col", help="Gold column with the item id."),
    text_col: str = typer.Option("text", "--text-col", help="Gold column with the text."),
    on: str = typer.Option(
        "auto", "--on", help="Join on id, on text (whitespace-normalised), or auto: id when most gold ids match."
    ),
    only_passing: bool = typer.Option(False, "--only-passing", help="Compare only the items that pass the cut."),
    as_json: bool = Json,
) -> None:
    """Compare aggregated labels with released ones: per-label Cohen's kappa, accuracy and F1."""
    from affectlab.annotation.comparison import Join, compare
    from affectlab.annotation.files import read_aggregation

    _check_choice("--on", on, JOINS)
    comparison = compare(
        read_aggregation(aggregated),
        gold,
        id_col=id_col,
        text_col=text_col,
        on=cast(Join, on),
        only_passing=only_passing,
    )
    if as_json:
        print_json(comparison)
        return
    _print_comparison(comparison)


@app.command("report")
@takes_option_groups
def report_command(
    context: typer.Context,
    file: Path = RatingsFile,
    out: Path = typer.Option(
        ..., "--out", "-o", help="Directory for report.md and agreement.png (made if missing).", show_default=False
    ),
    method: str = Method,
    min_confidence: float = MinConfidence,
    gold: list[Path] | None = typer.Option(
        None,
        "--gold",
        help="Released labels to compare with (repeatable; files joined), columns id, text and one per label.",
        show_default=False,
    ),
    level: str | None = MeasurementLevel,
    bootstrap: int = Bootstrap,
    reading: Callable[[Path], RatingsSource] = RatingsReading,
) -> None:
    """Write report.md, a short report a dataset paper can cite, and agreement.png, alpha per label.

    It gives the data, agreement per label with intervals, the aggregation, any gold comparison, the command.
    """
    from affectlab.annotation.jobs import write_report

    _check_choice("--method", method, METHODS)
    checked_level = _check_agreement_options(level, bootstrap)
    check_output_dir(out)
    ratings = reading(file)
    with stage_progress() as progress:
        paths = write_report(ratings, out, method, min_confidence, gold or (), checked_level, bootstrap,
                             _command_line(context), progress)  # fmt: skip
    stdout.print(styled("wrote {} and {}", paths[0], paths[1]))


def _parse_scale(value: str) -> tuple[float, float]:
    """``--scale LOW-HIGH`` (``0-3``, ``1-5``, ``-2-2``) as a pair of numbers."""
    match = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*-\s*(-?\d+(?:\.\d+)?)\s*", value)
    if not match or float(match[1]) > float(match[2]):
        raise InputError(f"--scale must be LOW-HIGH with LOW at most HIGH (e.g. 0-3 or 1-5), not {value!r}")
    return float(match[1]), float(match[2])


def _split_list(option: str, value: str | None) -> list[str] | None:
    if value is None:
        return None
    parts = [part.strip() for part in value.split(",") if part.strip()]
    if not parts:
        raise InputError(f"{option} is empty: give comma-separated names")
    return parts


def _check_choice(option: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise InputError(f"{option} must be one of {', '.join(choices)}, not {value!r}")


def _check_agreement_options(level: str | None, bootstrap: int) -> Level | None:
    """The checked ``--level`` (None: the ratings' own) after checking ``--bootstrap``."""
    if level is not None:
        _check_choice("--level", level, LEVELS)
    if bootstrap < 0:
        raise InputError(f"--bootstrap must be 0 (no intervals) or more, not {bootstrap}")
    return cast(Level | None, level)


def _check_not_input(out: Path, file: Path) -> None:
    if out.exists() and file.exists() and out.resolve() == file.resolve():
        raise InputError(f"--out {str(out)!r} is the ratings file itself; choose another path")


def _command_line(context: typer.Context) -> str:
    """The running command with every option spelled out, defaults included, so that it reproduces the result
    even if a default changes."""
    words = ["affectlab", "annotate", context.info_name or ""]
    for param in context.command.params:
        value = context.params.get(param.name or "")
        values = list(value) if isinstance(value, list | tuple) else [value]
        if param.param_type_name == "argument":
            words += [str(v) for v in values]
        elif getattr(param, "is_flag", False):
            words += [param.opts[0]] if value else []
        elif value is not None:
            for v in values:
                words += [param.opts[0], str(v)]
    return shlex.join(words)


def _print_aggregation(summary: dict) -> None:
    cut = summary["min_confidence"]
    passing = f"{summary['n_passing']:,} ({summary['share_passing']:.1%}) pass confidence >= {cut:g}" if cut else ""
    controls = summary["n_control_questions"]
    held = f"{controls:,} control questions held at their known answers" if controls else None
    table = Table(title=f"{summary['method']}: {summary['n_items']:,} items; {passing}", caption=held)
    for header in ("label", "items with it", "passing items with it"):
        table.add_column(header, justify="left" if header == "label" else "right")
    for label, counts in summary["label_counts"].items():
        table.add_row(Text(label), f"{counts['all']:,}", f"{counts['passing']:,}")
    table.add_section()
    table.add_row("items", f"{summary['n_items']:,}", f"{summary['n_passing']:,}", style="bold")
    stdout.print(table)


TERMINAL_HEADERS = ("Krippendorff α", "Fleiss κ", "mean Cohen κ", "interrater r")


def _print_agreement(report: dict, level: str, bootstrap: int) -> None:
    from affectlab.annotation.report import Footnotes, agreement_rows

    notes = Footnotes()
    interval = f"95% bootstrap interval over {bootstrap:,} resamples of items" if bootstrap else "no intervals"
    overall = report["overall"]
    table = Table(
        title=f"Agreement ({level}): {overall['n_items']:,} items, {overall['n_annotators']} annotators",
        caption=f"{interval}",
    )
    for header in ("", *TERMINAL_HEADERS):
        table.add_column(header, justify="left" if not header else "right")
    for i, row in enumerate(agreement_rows(report, notes)):
        cells = [cell.replace(" (", "\n(", 1) for cell in row[1:5]]  # interval under its value: fits 80 columns
        table.add_row(Text(row[0]), *cells, style="bold" if i == 0 else None)
        if i == 0:
            table.add_section()
    stdout.print(table)
    for line in notes.lines():
        stdout.print(styled("n/a {}", line), soft_wrap=True)


def _print_comparison(comparison: dict) -> None:
    from affectlab.annotation.comparison import describe_left_out
    from affectlab.annotation.report import Footnotes

    notes = Footnotes()
    table = Table(title=f"Aggregated vs gold labels (joined on {comparison['joined_on']})")
    for header in ("label", "gold column", "n", "Cohen's kappa", "accuracy", "F1"):
        table.add_column(header, justify="left" if header in ("label", "gold column") else "right")
    for label, scores in comparison["per_label"].items():
        kappa = scores["cohen_kappa"]
        table.add_row(
            Text(label),
            Text(scores["gold_label"]),
            f"{scores['n']:,}",
            f"{kappa:.3f}" if kappa is not None else f"n/a {notes.mark('one value only on both sides')}",
            f"{scores['accuracy']:.3f}",
            f"{scores['f1']:.3f}",
        )
    stdout.print(table)
    stdout.print(
        f"{comparison['n_matched']:,} of {comparison['n_items']:,} aggregated items matched one of "
        f"{comparison['n_gold']:,} gold rows by {comparison['joined_on']} ({describe_left_out(comparison)}); "
        f"whole label set agrees on {comparison['exact_match']:.1%}",
        highlight=False,
        soft_wrap=True,
    )
    for line in notes.lines():
        stdout.print(styled("n/a {}", line), soft_wrap=True)


collect_cmds.register(app)
project_cmds.register(app)
