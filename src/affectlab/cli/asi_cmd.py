"""``affectlab asi collect|recipe``: open-ended affective states (MASIVE, Deas et al. 2024)."""

from __future__ import annotations

from pathlib import Path

import typer

from affectlab.cli.options import DataDir, Json
from affectlab.cli.output import count_progress, print_json, stage_progress, stdout, styled

app = typer.Typer(
    help="Open-ended affective states (MASIVE): collect masked data, train, evaluate, fixed-label evaluation.",
    no_args_is_help=True,
)

Spacy = typer.Option(
    None,
    "--spacy",
    help="A spaCy pipeline (name or path) to tag parts of speech, e.g. es_core_news_md; default: the lexical "
    "fallback (see affectlab.openstates.collect.pos).",
)


@app.command("collect")
def collect_command(
    inputs: list[Path] = typer.Argument(..., help="Corpus files or folders: csv, tsv, jsonl, json, txt, parquet."),
    lang: str = typer.Option(..., "--lang", "-l", help="en or es."),
    out: Path = typer.Option(..., "--out", "-o", help="JSON Lines file for the masked posts.", show_default=False),
    rounds: int = typer.Option(4, "--rounds", min=1, help="Bootstrapping rounds (the paper: 4; regional: 1)."),
    seeds: str = typer.Option("table10", "--seeds", help="table10, regional (App. C.2) or a comma-separated list."),
    single_form: bool = typer.Option(False, "--single-form", help='Also collect "I feel \\[so] <state>" posts.'),
    grow: bool = typer.Option(
        False, "--grow-from-single", help='First take every adjective X of "I feel \\[so] X" as a state.'
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
    from affectlab.openstates.jobs import collect_states

    with stage_progress(not as_json) as progress:
        report = collect_states(inputs, lang, out, rounds, seeds, single_form, grow, unseen, test_fraction, seed,
                                text_col, spacy, progress)  # fmt: skip
    if as_json:
        print_json(report)
        return
    stdout.print(
        styled("{:,} posts with {:,} states from {:,} ({} rounds, {}); held out: {}; written to {}", report["posts"],
               report["states"], report["corpus_posts"], len(report["rounds"]), report["adjective_check"],
               ", ".join(report["held_out_states"]) or "none", out)
    )  # fmt: skip


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
    from affectlab.openstates.jobs import collect_recipe

    with stage_progress(not as_json) as progress:
        report = collect_recipe(data_dir, out, rounds, seed, progress)
    if as_json:
        print_json(report)
        return
    for name, entry in report["sets"].items():
        stdout.print(f"{name}: {entry['posts']:,} posts, {entry['states']:,} states", highlight=False)
    stdout.print(styled("written to {}", out))


ModelOption = typer.Option(
    "default",
    "--model",
    "-m",
    help="'default' (the embedded predictor), a saved predictor directory, or llm:NAME with --llm-base-url.",
)
LLMBaseUrl = typer.Option(None, "--llm-base-url", help="OpenAI-compatible endpoint for --model llm:NAME.")
K = typer.Option(5, "--k", min=1, max=10, help="Terms ranked per mask.")


@app.command("train")
def train_command(
    model: str = typer.Argument(..., help="seq2seq:PATH (a local T5/mT5 directory to fine-tune)."),
    data: Path = typer.Option(..., "--data", help="Masked posts (asi collect/recipe JSON Lines); its train split."),
    out: Path = typer.Option(..., "--out", "-o", help="Where to save the predictor."),
    params: list[str] | None = typer.Option(None, "--param", "-p", help="Setting as key=value (epochs, lr, ...)."),
    device: str | None = typer.Option(None, "--device", help="cuda or cpu (default: cuda when available)."),
    as_json: bool = Json,
) -> None:
    """Fine-tune a seq2seq model to fill the masks (MASIVE App. D.1: batch 4, 3 epochs, Adafactor, lr 1e-4)."""
    from affectlab.cli.options import parse_params
    from affectlab.openstates.jobs import train_seq2seq_predictor

    with stage_progress(not as_json) as progress:
        report = train_seq2seq_predictor(model, data, out, parse_params(params), device, progress)
    if as_json:
        print_json(report)
    else:
        last = report["history"][-1]
        stdout.print(
            styled("trained on {:,} posts (loss {:.3f}, {} samples/s); saved to {}", report["n_train"], last["loss"],
                   last["samples_per_s"], out)
        )  # fmt: skip


@app.command("eval")
def eval_command(
    data: Path = typer.Option(..., "--data", help="Masked posts (JSON Lines from asi collect/recipe)."),
    model: str = ModelOption,
    split: str = typer.Option("test", "--split", help="Records of this split (test, train, regional, all)."),
    k: int = K,
    similarity_model: str | None = typer.Option(
        None, "--similarity-model", help="Local encoder for top-k similarity (the paper: mBERT); 'none' to skip."
    ),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N records."),
    predictions_out: Path | None = typer.Option(None, "--predictions-out", help="Write the predictions (JSONL)."),
    llm_base_url: str | None = LLMBaseUrl,
    as_json: bool = Json,
) -> None:
    """Predict the masked affective states of a collected set and score them: top-k accuracy, similarity, and
    seen/unseen, negation and gender breakdowns."""
    from affectlab.openstates.jobs import evaluate_predictor

    with stage_progress(not as_json) as progress:
        report = evaluate_predictor(data, model, split, k, similarity_model, limit, predictions_out, llm_base_url,
                                    progress)  # fmt: skip
    if as_json:
        print_json(report)
        return
    _print_open_report(report)


def _print_open_report(report: dict) -> None:
    from rich.table import Table

    title = styled("{} on {} ({}, n={})", report["model"], report["data"], report["split"], report["n"],
                   style="table.title")  # fmt: skip
    table = Table(title=title)
    keys = [key for key in report if key.startswith(("acc@", "acc_lenient@", "sim@"))]
    table.add_column("subset")
    for key in keys:
        table.add_column(key, justify="right")
    table.add_row("all", *[f"{report[key]:.3f}" for key in keys])
    for name, scores in report["by_subset"].items():
        table.add_row(f"{name} (n={scores['n']})", *[f"{scores[key]:.3f}" if key in scores else "" for key in keys])
    stdout.print(table)
    if "similarity_model" in report:
        stdout.print(styled("similarity: {}", report["similarity_model"]))
    if "invalid_rate" in report:
        stdout.print(f"invalid answers: {report['invalid_rate']:.1%}", highlight=False)


@app.command("fixed-label")
def fixed_label_command(
    dataset: str = typer.Option(..., "--dataset", "-d", help="goemotions, goemotions-ekman, semeval2025-eng/esp."),
    model: str = ModelOption,
    split: str = typer.Option("test", "--split", help="Dataset split."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N rows."),
    k: int = K,
    data_dir: Path | None = DataDir,
    as_json: bool = Json,
) -> None:
    """MASIVE 4.2.2: append "I feel <extra_id_0>", rank the label words by likelihood, and report macro P/R/F1
    of the most likely label plus generative top-k accuracy."""
    from affectlab.openstates.jobs import load_fixed_label_run

    with stage_progress(not as_json) as progress:  # loading, then ranking: one live display at a time
        run = load_fixed_label_run(dataset, model, split, limit, data_dir, progress)
    with count_progress("ranking label words", not as_json) as ranked:
        report = run.score(k, ranked)
    if as_json:
        print_json(report)
        return
    accuracies = ", ".join(f"{key} {report[key]:.3f}" for key in report if key.startswith("acc@"))
    stdout.print(
        styled("{} {} (n={}): macro P {:.3f} R {:.3f} F1 {:.3f}; {}", dataset, split, report["n"],
               report["macro_precision"], report["macro_recall"], report["macro_f1"], accuracies)
    )  # fmt: skip


@app.command("build-default")
def build_default_command(
    recipe: Path | None = typer.Option(
        None, "--recipe", help="Folder written by `asi recipe` (default: run the recipe first, in a temporary folder)."
    ),
    out: Path | None = typer.Option(None, "--out", "-o", help="Where to write it (default: inside the package)."),
    data_dir: Path | None = DataDir,
    as_json: bool = Json,
) -> None:
    """Train the open-vocabulary predictor behind `detect --open` from the recipe, the labelled datasets and the
    shipped lexicons (blend chosen on a dev split of the recipe's train posts; the weight of its affect agreement
    also on the dev splits of GoEmotions and SemEval-2025 eng/esp)."""
    from affectlab.openstates.jobs import build_open_predictor

    with stage_progress(not as_json) as progress:
        report = build_open_predictor(recipe, out, data_dir, progress)
    if as_json:
        print_json(report)
    else:
        for lang, entry in report["training"].items():
            if lang != "dev":
                stdout.print(
                    f"{lang}: {entry['examples']:,} examples, {entry['seen_states']:,} states seen in training, "
                    f"{entry['candidates']:,} candidates", highlight=False,
                )  # fmt: skip
        stdout.print(styled("written to {}", report["out"]))


@app.command("lexicon")
def lexicon_command(
    recipe: Path | None = typer.Option(
        None, "--recipe", help="Folder written by `asi recipe` (default: run the recipe first, in a temporary folder)."
    ),
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Folder for en.txt and es.txt (default: inside the package, the shipped lists)."
    ),
    data_dir: Path | None = DataDir,
    as_json: bool = Json,
) -> None:
    """Rebuild the candidate lexicons of affective states (en.txt, es.txt) that the open-vocabulary ranker ranks:
    seeds, the recipe's train states, feeling phrases in the corpora, and e5 probes (minutes on a CPU)."""
    from affectlab.openstates.lexicon_build import write_lexicons

    with stage_progress(not as_json) as progress:
        report = write_lexicons(data_dir, recipe, out, progress)
    if as_json:
        print_json(report)
        return
    for lang, sources in report["sources"].items():
        counts = ", ".join(f"{name} {n:,}" for name, n in sources.items())
        stdout.print(f"{lang}: {report['states'][lang]:,} states ({counts})", highlight=False)
    stdout.print(styled("written to {}", report["out"]))
