"""``affectlab asi collect|recipe``: open-ended affective states (MASIVE, Deas et al. 2024)."""

from __future__ import annotations

from pathlib import Path

import typer

from affectlab.cli.options import DataDir, Json
from affectlab.cli.output import print_json, stage_progress, stdout
from affectlab.errors import InputError

app = typer.Typer(
    help="Open-ended affective states (MASIVE): collect masked data from a corpus, build the local recipe.",
    no_args_is_help=True,
)

Spacy = typer.Option(
    None,
    "--spacy",
    help="A spaCy pipeline (name or path) to tag parts of speech, e.g. es_core_news_md; default: the lexical "
    "fallback (see affectlab.collect.pos).",
)


@app.command("collect")
def collect_command(
    inputs: list[Path] = typer.Argument(..., help="Corpus files or folders: csv, tsv, jsonl, json, txt."),
    lang: str = typer.Option(..., "--lang", "-l", help="en or es."),
    out: Path = typer.Option(..., "--out", "-o", help="JSON Lines file for the masked posts.", show_default=False),
    rounds: int = typer.Option(4, "--rounds", min=1, help="Bootstrapping rounds (the paper: 4; regional: 1)."),
    seeds: str = typer.Option("table10", "--seeds", help="table10, regional (App. C.2) or a comma-separated list."),
    single_form: bool = typer.Option(False, "--single-form", help='Also collect "I feel [so] <state>" posts.'),
    grow: bool = typer.Option(
        False, "--grow-from-single", help='First take every adjective X of "I feel [so] X" as a state.'
    ),
    unseen: int = typer.Option(15, "--unseen", min=0, help="States held out with all their posts in test."),
    test_fraction: float = typer.Option(0.1, "--test-fraction", help="Share of the other posts put in test."),
    seed: int = typer.Option(0, "--seed", help="Random seed of the split."),
    text_col: str | None = typer.Option(
        None, "--text-col", help="Column with the text; join columns with + (title+selftext). Default: guessed."
    ),
    spacy: str | None = Spacy,
    as_json: bool = Json,
) -> None:
    """Bootstrap affective states from a corpus (MASIVE 3.1), mask them with T5 sentinels and split train/test."""
    from affectlab.collect.bootstrap import bootstrap
    from affectlab.collect.corpus import read_posts
    from affectlab.collect.dataset import split_dataset, summary, write_records
    from affectlab.collect.pos import default_adjective_check
    from affectlab.collect.seeds import REGIONAL_SEEDS_ES, SEEDS, templates_for

    templates_for(lang)  # an unknown language is one clear error
    if out.suffix.lower() != ".jsonl":
        raise InputError(f"--out must end in .jsonl, got {out.name}")
    named = {"table10": SEEDS.get(lang), "regional": REGIONAL_SEEDS_ES if lang == "es" else None}
    seed_terms = named[seeds] if seeds in named else [s.strip() for s in seeds.split(",") if s.strip()]
    if seed_terms is None:
        raise InputError(f"no {seeds} seeds for language {lang!r}")
    with stage_progress(not as_json) as progress:
        progress("reading the corpus")
        posts = list(read_posts(inputs, text_col))
        progress(f"bootstrapping over {len(posts):,} posts")
        result = bootstrap(
            [text for _, text in posts], lang, rounds, seed_terms, [i for i, _ in posts],
            default_adjective_check({lang: spacy} if spacy else None), single_form=single_form, grow_from_single=grow,
        )  # fmt: skip
        if not result.posts:
            raise InputError(f"no post in the corpus matches a template with a seed state ({len(posts):,} posts read)")
        records, held_out = split_dataset(result, unseen, test_fraction, seed)
        write_records(out, records)
    report = {
        "out": str(out),
        "corpus_posts": len(posts),
        "posts": len(records),
        "states": len(result.states),
        "rounds": result.rounds,
        "held_out_states": held_out,
        "splits": summary(records),
        "adjective_check": result.adjective_check,
    }
    if as_json:
        print_json(report)
        return
    stdout.print(
        f"{len(records):,} posts with {report['states']:,} states from {len(posts):,} ({len(result.rounds)} rounds, "
        f"{result.adjective_check}); held out: {', '.join(held_out) or 'none'}; written to {out}",
        highlight=False,
    )


@app.command("recipe")
def recipe_command(
    out: Path = typer.Option(..., "--out", "-o", help="Folder for en.jsonl, es.jsonl, es-regional.jsonl."),
    rounds: int = typer.Option(4, "--rounds", min=1, help="Conjunct rounds after the single-form round."),
    seed: int = typer.Option(0, "--seed", help="Random seed of the splits."),
    data_dir: Path | None = DataDir,
    as_json: bool = Json,
) -> None:
    """Run the collector on the local datasets (GoEmotions, EmoContext, SemEval-2025 eng/esp), relaxed to the
    single "I feel X" form, and write the masked sets with a summary.json."""
    from affectlab.collect.recipe import build_recipe

    with stage_progress(not as_json) as progress:
        progress("collecting from the local datasets")
        report = build_recipe(data_dir, out, rounds=rounds, seed=seed)
    if as_json:
        print_json(report)
        return
    for name, entry in report["sets"].items():
        stdout.print(f"{name}: {entry['posts']:,} posts, {entry['states']:,} states", highlight=False)
    stdout.print(f"written to {out}", highlight=False)
