"""``affectlab detect``: emotions of texts given on the command line, or of a whole file streamed in batches."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table
from rich.text import Text

from affectlab.cli.explain_view import print_explanation
from affectlab.cli.output import count_progress, print_json, print_left_out, stdout, styled
from affectlab.detectors.detect import detect
from affectlab.detectors.resolve import resolve_detector
from affectlab.detectors.results import Detection, Sentence
from affectlab.errors import InputError

if TYPE_CHECKING:
    from affectlab.scale.jobs import DetectOptions

BAR_WIDTH = 24
ARC_WIDTH = 10


Texts = typer.Argument(None, help="Texts to analyse (or use --input FILE).")
Taxonomy = typer.Option("ekman", "--taxonomy", "-t", help="ekman, goemotions or emocontext.")
Context = typer.Option(
    None,
    "--context",
    "-c",
    help="An earlier dialogue turn (repeatable). Read by --taxonomy emocontext and by saved models trained with "
    "context; the ekman and goemotions heads read each text alone and refuse it.",
)
TopK = typer.Option(
    None, "--top-k", min=1, help="Keep at most K predicted labels per text (--open: terms per mask, default 5)."
)
Model = typer.Option("default", "--model", "-m", help="'default' or a saved model directory.")
Fast = typer.Option(False, "--fast", help="N-gram heads only: no encoder, much faster, less accurate.")
InputFile = typer.Option(None, "--input", "-i", help="File of texts: csv, tsv, jsonl, txt, parquet.")
OutputFile = typer.Option(None, "--output", "-o", help="Where to write the scored file.")
TextCol = typer.Option("text", "--text-col", help="Input file column holding the text.")
BatchSize = typer.Option(
    1024, "--batch-size", min=1, help="Texts per batch for --input (sorted by length inside a batch)."
)
OpenStates = typer.Option(
    False,
    "--open",
    help="Open-ended affective states (MASIVE): rank feeling words for each <extra_id_N> mask; a text without "
    'one gets "I feel <extra_id_0>." appended. English and Spanish.',
)
StatesFile = typer.Option(
    None,
    "--states",
    help="With --open: a UTF-8 file of candidate states, one per line (# comments), added to the default lexicon "
    "(about 1,000 English and 300 Spanish states).",
)
StatesOnly = typer.Option(False, "--states-only", help="With --open --states FILE: rank only the file's states.")
Lang = typer.Option(
    None,
    "--lang",
    help="Read every text as this language (a BCP 47 tag or code: uk, en-GB, es-419, pt-BR, zh-Hant, orm, ...; shown "
    "as given) instead of identifying each one's (a text too short to tell, one word, gets und); with --open: en "
    "or es.",
)
Intensity = typer.Option(
    False, "--intensity", help="Also rate each emotion's intensity 0-3 (SemEval-2025 track B; the ekman head)."
)
Sentences = typer.Option(
    False,
    "--sentences",
    help="Also score each sentence alone: the emotion arc of a long text, one line per sentence (with --input: a "
    "sentences column, JSON text in csv/tsv). A text over 1,000 characters is always read sentence by sentence.",
)
Explain = typer.Option(
    False,
    "--explain",
    help="Also say why: each given label's words, tinted by how far the label's score falls without each one (with "
    "--json and --input: every word's start, end and weight). Costs one more scored text per word: on English "
    "tweets (16 words) about 10 times slower than without it, on 50-word texts about 30 times once loaded (2 CPU "
    "cores).",
)
ExplainLabel = typer.Option(
    None, "--explain-label", help="Also explain this label, given or not (repeatable; implies --explain)."
)
LangCol = typer.Option(
    None, "--lang-col", help="With --input: the column holding each row's language (an empty cell: identified)."
)
AsJson = typer.Option(
    False, "--json", help="Print JSON: one object for one text, a list of objects for several, a summary for --input."
)


def detect_command(
    ctx: typer.Context,
    texts: list[str] | None = Texts,
    taxonomy: str = Taxonomy,
    context: list[str] | None = Context,
    top_k: int | None = TopK,
    model: str = Model,
    fast: bool = Fast,
    input_file: Path | None = InputFile,
    output_file: Path | None = OutputFile,
    text_col: str = TextCol,
    batch_size: int = BatchSize,
    open_states: bool = OpenStates,
    lang: str | None = Lang,
    intensity: bool = Intensity,
    sentences: bool = Sentences,
    lang_col: str | None = LangCol,
    explain: bool = Explain,
    explain_label: list[str] | None = ExplainLabel,
    states_file: Path | None = StatesFile,
    states_only: bool = StatesOnly,
    as_json: bool = AsJson,
) -> None:
    """Detect emotions with the embedded default detector (offline; 28 languages, each identified unless --lang)."""
    _refuse_misplaced(ctx, input_file is not None, open_states)
    if open_states:
        _detect_open(texts, input_file, lang, top_k or 5, model, as_json, (states_file, states_only))
        return
    why = explain_label or explain
    if input_file is not None:
        _check_file_options(texts, context, top_k, output_file)
        from affectlab.scale.jobs import DetectOptions  # here: pyarrow would slow every `detect TEXT`

        options = DetectOptions(taxonomy, model, fast, text_col, batch_size, lang, intensity, sentences, lang_col, why)
        _detect_file(input_file, output_file, options, as_json)
        return
    if not texts:
        raise InputError("give one or more texts, or --input FILE")
    print_left_out(detector := resolve_detector(model, taxonomy, fast))  # resolved once: detect() gets the object
    _print_results(detect(texts, taxonomy, context, top_k, detector, False, lang, intensity, sentences, why), as_json)


def _print_results(results: list[Detection], as_json: bool) -> None:
    if as_json:
        print_json(results[0].to_dict() if len(results) == 1 else [r.to_dict() for r in results])
        return
    for result in results:
        _print_detection(result)


FILE_OPTIONS = ("output_file", "text_col", "batch_size", "lang_col")
"""The options of ``detect --input`` alone."""
EMOTION_OPTIONS = ("taxonomy", "context", "fast", "intensity", "sentences", "explain", "explain_label")
"""The options of emotion detection that ``detect --open`` (open affective states) has no use for."""
OPEN_OPTIONS = ("states_file", "states_only")
"""The options of ``detect --open`` alone."""
PROGRESS_FROM_STATES = 500
"""A ``--states`` file this long shows a progress line while its new states are embedded (about 5 ms each)."""


def _refuse_misplaced(ctx: typer.Context, from_file: bool, open_states: bool) -> None:
    """Options that do not apply to this kind of run are refused: the file options without --input, the emotion
    options with --open, the --open options without it."""
    if not from_file:
        _refuse_given(ctx, FILE_OPTIONS, "applies only to --input FILE")
    if open_states:
        _refuse_given(ctx, EMOTION_OPTIONS, "applies to emotions, not to --open")
    else:
        _refuse_given(ctx, OPEN_OPTIONS, "applies to --open")


def _refuse_given(ctx: typer.Context, names: tuple[str, ...], why: str) -> None:
    """Options among ``names`` given on the command line, even at their default value, are refused (one line naming
    the first) rather than silently ignored."""
    for param in ctx.command.params:
        source = ctx.get_parameter_source(param.name or "")
        if param.name in names and source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP"):
            raise InputError(f"{param.opts[0]} {why}")


def _check_file_options(
    texts: list[str] | None, context: list[str] | None, top_k: int | None, output_file: Path | None
) -> None:
    """With --input, options that apply only to texts on the command line are refused rather than ignored."""
    if output_file is None:
        raise InputError("--input needs --output FILE (csv, tsv, jsonl or parquet)")
    if texts:
        raise InputError("give texts on the command line or --input FILE, not both")
    if context:
        raise InputError("--context applies to texts on the command line, not to --input (each row is read alone)")
    if top_k is not None:
        raise InputError("--top-k applies to texts on the command line; --input writes every label's score")


def _detect_open(
    texts: list[str] | None,
    input_file: Path | None,
    lang: str | None,
    k: int,
    model: str,
    as_json: bool,
    candidates: tuple[Path | None, bool],
) -> None:
    from affectlab.openstates.detect import detect_open
    from affectlab.openstates.lexicon import read_states_file

    if input_file is not None:
        raise InputError("--open takes texts on the command line (for files: affectlab asi eval)")
    if not texts:
        raise InputError("give one or more texts")
    states_file, states_only = candidates
    states = read_states_file(states_file) if states_file is not None else None
    long_list = states is not None and len(states) >= PROGRESS_FROM_STATES
    with count_progress("embedding states", enabled=long_list and not as_json, unit="states") as progress:
        results = detect_open(texts, lang=lang, k=k, model=model, states=states, states_only=states_only,
                              progress=progress)  # fmt: skip
    if as_json:
        print_json(results[0].to_dict() if len(results) == 1 else [r.to_dict() for r in results])
        return
    for result in results:
        stdout.print(styled("[bold]{}[/]", result.text))
        for number, mask in enumerate(result.masks):
            ranked = ", ".join(f"{t['term']} ({t['score']:.2f})" for t in mask)
            stdout.print(f"  <extra_id_{number}>: {ranked}", highlight=False, markup=False)
        for note in result.notes:
            stdout.print(styled("  [yellow]note:[/] {}", note))


def _print_detection(result: Detection) -> None:
    shown = result.text if len(result.text) <= 120 else result.text[:117] + "..."
    stdout.print(styled("[bold]{}[/]", shown), soft_wrap=True)  # as typed: a pipe of 80 columns does not fold it
    stdout.print(styled("  labels: [bold green]{}[/]  [dim]({})[/]", ", ".join(result.labels), result.lang))
    table = Table(show_header=False, box=None, padding=(0, 1, 0, 2))
    for label, score in sorted(result.scores.items(), key=lambda item: -item[1]):
        bar = "█" * round(score * BAR_WIDTH)
        style = "green" if label in result.labels else "dim"
        level = [] if result.intensities is None else [_intensity_cell(result.intensities.get(label))]
        table.add_row(Text(label), f"[{style}]{bar:<{BAR_WIDTH}}[/]", f"{score:.2f}", *level)
    stdout.print(table)
    if result.explanation is not None:
        print_explanation(stdout, result.text, result.explanation)
    if result.sentences is not None:
        _print_arc(result.sentences)
    for note in result.notes:
        stdout.print(styled("  [yellow]note:[/] {}", note))


def _print_arc(sentences: list[Sentence]) -> None:
    """The emotion arc: one line per sentence: where it starts, its language, its labels, its top score as a bar,
    its text (cut to the terminal's width; the whole of it is in --json)."""
    stdout.print("  sentences:", highlight=False)
    width = max(stdout.width - 4 - 7 - 8 - 24 - ARC_WIDTH - 3, 20)
    for sentence in sentences:
        top_label, top_score = max(sentence.scores.items(), key=lambda item: item[1])
        quiet = sentence.labels == [top_label] and top_label in ("none", "neutral", "others")
        style = "dim" if quiet else "green"
        labels = ", ".join(sentence.labels)[:24]
        shown = sentence.text if len(sentence.text) <= width else sentence.text[: width - 3] + "..."
        bar = "█" * round(top_score * ARC_WIDTH)
        arc = (f"{labels:<24}{bar:<{ARC_WIDTH}}", style)
        where = (f"{sentence.start:>6} {sentence.lang[:7]:<7}", "dim")
        stdout.print(Text.assemble("    ", where, " ", arc, " ", shown), soft_wrap=True)


def _intensity_cell(level: int | None) -> str:
    """An emotion's intensity as shown beside its score (nothing for the none label)."""
    return "" if level is None else f"intensity {level}"


def _detect_file(input_file: Path, output_file: Path | None, options: DetectOptions, as_json: bool) -> None:
    from affectlab.cli.output import file_progress
    from affectlab.scale.jobs import prepare_detect_file  # here: pyarrow would slow every `detect TEXT`

    assert output_file is not None  # _check_file_options refused --input without --output
    job = prepare_detect_file(input_file, output_file, options)
    print_left_out(job.scorer.detector)
    with file_progress(not as_json) as progress:
        summary = job.run(progress)
    report = {**dataclasses.asdict(summary), "output_path": str(summary.output_path)}
    if as_json:
        print_json(report)
        return
    stdout.print(
        styled("wrote {} rows to {} ({} already done) in {:.1f} s", report["rows_written"], output_file,
               report["rows_skipped_resumed"], report["seconds"])
    )  # fmt: skip
    for row, message in report["bad_rows"][:20]:
        stdout.print(styled("  [yellow]row {}:[/] {}", row, message))
    if len(report["bad_rows"]) > 20:
        stdout.print(f"  ... and {len(report['bad_rows']) - 20} more bad rows (see the error column)")
