"""``affectlab checklist``: the behavioural suite on a detector, as tables of pass rates and failing sentences."""

from __future__ import annotations

import typer
from rich.table import Table
from rich.text import Text

from affectlab.checklist import CAPABILITIES, EDITS, ChecklistReport, run_checklist
from affectlab.checklist.suite import CAPABILITY_TITLES
from affectlab.cli.options import Json
from affectlab.cli.output import count_progress, print_json, stdout, styled

ModelOption = typer.Option("default", "--model", "-m", help="'default' or a saved ekman model directory.")
LangOption = typer.Option(
    None, "--lang", "-l", help="Only this language of the suite (repeatable): am ar de en es hi pt ru uk zh."
)
SplitOption = typer.Option("test", "--split", help="The suite's templates to run: test (the default), dev or all.")
ExamplesOption = typer.Option(3, "--examples", min=0, help="Failing sentences shown per language and capability.")


def checklist_command(
    model: str = ModelOption,
    lang: list[str] | None = LangOption,
    split: str = SplitOption,
    examples: int = ExamplesOption,
    as_json: bool = Json,
) -> None:
    """Run the behavioural suite on a detector: in ten languages, does it keep a denied emotion out ("I'm not
    angry"), give B and not A in "not A but B", read intensifiers, plain situations without emotion words and
    neutral statements, and keep its answer under harmless edits (case, "!!!", repetition, @mentions, links,
    hashtags, emoji, typos)?

    Each text is read as `affectlab detect` reads it (its language identified). The templates are split into dev
    and test: choose on dev, report test. A pass rate is the share of sentences that get what they should; the
    failing sentences follow the tables (--examples per language and capability). Exits 0 whatever the rates."""
    with count_progress("checklist", enabled=not as_json) as progress:
        report = run_checklist(model, lang, split, progress)
    if as_json:
        print_json(report.to_dict(examples))
        return
    stdout.print(styled("{}, the suite's {} templates: pass rates", report.model, report.split), soft_wrap=True)
    stdout.print(_rates_table(report))
    stdout.print("invariance: the share of edited sentences that keep their label set, per edit")
    stdout.print(_edits_table(report))
    _print_failures(report, examples)


def _rates_table(report: ChecklistReport) -> Table:
    """Capabilities by languages: each cell the pass rate (the sentences behind each rate: ``--json``)."""
    table = Table()
    table.add_column("capability")
    for lang in report.languages:
        table.add_column(Text(lang), justify="right")
    for capability in CAPABILITIES:
        table.add_row(CAPABILITY_TITLES[capability], *(_rate(report, lang, capability) for lang in report.languages))
    return table


def _rate(report: ChecklistReport, lang: str, capability: str) -> str:
    found = [r for r in report.results if r.lang == lang and r.capability == capability]
    return f"{found[0].rate:.2f}" if found and found[0].rate is not None else ""


def _edits_table(report: ChecklistReport) -> Table:
    """Edits by languages: the share of edited sentences that keep their label set."""
    table = Table()
    table.add_column("edit")
    for lang in report.languages:
        table.add_column(Text(lang), justify="right")
    for edit in EDITS:
        cells = []
        for lang in report.languages:
            passed, n = report.result(lang, "invariance").by.get(edit.name, (0, 0))
            cells.append(f"{passed / n:.2f}" if n else "")
        table.add_row(edit.name, *cells)
    return table


def _print_failures(report: ChecklistReport, examples: int) -> None:
    """Up to ``examples`` failing sentences per language and capability."""
    if not examples:
        return
    for result in report.results:
        for failure in result.failures[:examples]:
            labels = "+".join(failure["labels"]) or "nothing"
            stdout.print(styled("[dim]{} {} {}:[/] {} [dim]->[/] {} [dim](expected {})[/]", result.lang,
                                CAPABILITY_TITLES[result.capability], failure["template"], failure["text"], labels,
                                failure["expected"]), soft_wrap=True)  # fmt: skip
