"""The whole jobs of ``affectlab asi``, one call each, so that the Python API does what the command does: collect a
masked set from a corpus (MASIVE 3.1) or from the local datasets (the recipe), fine-tune a seq2seq predictor, score a
predictor on a masked set, the fixed-label evaluation (MASIVE 4.2.2), and build the embedded predictor."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from affectlab.errors import InputError
from affectlab.io.progress import Progress, quiet
from affectlab.openstates.collect.bootstrap import bootstrap
from affectlab.openstates.collect.corpus import read_posts
from affectlab.openstates.collect.dataset import read_records, split_dataset, summary, write_records
from affectlab.openstates.collect.pos import default_adjective_check
from affectlab.openstates.collect.recipe import build_recipe
from affectlab.openstates.collect.seeds import REGIONAL_SEEDS_ES, SEEDS, templates_for
from affectlab.openstates.predictors import resolve_predictor


def seed_terms(lang: str, seeds: str) -> list[str]:
    """The seed states: ``table10`` (the paper's Table 10), ``regional`` (Spanish, App. C.2) or a comma-separated
    list of terms."""
    templates_for(lang)  # an unknown language is one clear error
    named = {"table10": SEEDS.get(lang), "regional": REGIONAL_SEEDS_ES if lang == "es" else None}
    terms = named[seeds] if seeds in named else [term.strip() for term in seeds.split(",") if term.strip()]
    if not terms:
        raise InputError(f"no {seeds} seeds for language {lang!r}")
    return list(terms)


def collect_states(
    inputs: Sequence[str | os.PathLike[str]],
    lang: str,
    out: str | Path,
    rounds: int = 4,
    seeds: str = "table10",
    single_form: bool = False,
    grow_from_single: bool = False,
    unseen: int = 15,
    test_fraction: float = 0.1,
    seed: int = 0,
    text_col: str | None = None,
    spacy_model: str | None = None,
    progress: Progress = quiet,
) -> dict[str, Any]:
    """Collect a MASIVE-style dataset from the corpus files or folders ``inputs`` into the JSON Lines file ``out``
    and return a summary (posts read and kept, states, rounds, held-out states, split sizes, adjective check)."""
    out = Path(out)
    if out.suffix.lower() != ".jsonl":
        raise InputError(f"--out must end in .jsonl, got {out.name}")
    terms = seed_terms(lang, seeds)
    progress("reading the corpus")
    posts = list(read_posts(inputs, text_col))
    progress(f"bootstrapping over {len(posts):,} posts")
    check = default_adjective_check({lang: spacy_model} if spacy_model else None)
    result = bootstrap([text for _, text in posts], lang, rounds, terms, [i for i, _ in posts], check,
                       single_form=single_form, grow_from_single=grow_from_single)  # fmt: skip
    if not result.posts:
        raise InputError(f"no post in the corpus matches a template with a seed state ({len(posts):,} posts read)")
    records, held_out = split_dataset(result, unseen, test_fraction, seed)
    write_records(out, records)
    return {
        "out": str(out),
        "corpus_posts": len(posts),
        "posts": len(records),
        "states": len(result.states),
        "rounds": result.rounds,
        "held_out_states": held_out,
        "splits": summary(records),
        "adjective_check": result.adjective_check,
    }


def collect_recipe(
    data_dir: str | Path | None,
    out: str | Path,
    rounds: int = 4,
    seed: int = 0,
    progress: Progress = quiet,
) -> dict[str, Any]:
    """``asi recipe``: the collector run on the local datasets (:func:`~affectlab.openstates.collect.recipe.
    build_recipe`), the masked sets and a summary.json written to ``out``; returns the summary."""
    progress("collecting from the local datasets")
    return build_recipe(data_dir, out, rounds=rounds, seed=seed)


def train_seq2seq_predictor(
    model: str,
    data: str | Path,
    out: str | Path,
    params: dict[str, Any] | None = None,
    device: str | None = None,
    progress: Progress = quiet,
) -> dict[str, Any]:
    """``asi train``: fine-tune the seq2seq model ``seq2seq:PATH`` on the train records of the masked set ``data``
    (MASIVE App. D.1) and save it to ``out``; returns ``out``, ``n_train`` and the training history."""
    from affectlab.openstates.predictors.seq2seq import Seq2SeqStatePredictor

    if not model.startswith("seq2seq:"):
        raise InputError("asi train takes seq2seq:PATH (the default predictor is built by `asi build-default`)")
    records = [r for r in read_records(data) if r.get("split") == "train"]
    if not records:
        raise InputError(f"{data} has no train split records")
    progress("loading the model")
    predictor = Seq2SeqStatePredictor(model.removeprefix("seq2seq:"), device=device, **(params or {}))
    predictor.fit([r["masked"] for r in records], [r["target"] for r in records], progress=progress)
    predictor.save(out)
    return {"out": str(out), "n_train": len(records), "history": predictor.history}


def evaluate_predictor(
    data: str | Path,
    model: str = "default",
    split: str = "test",
    k: int = 5,
    similarity_model: str | None = None,
    limit: int | None = None,
    predictions_out: str | Path | None = None,
    llm_base_url: str | None = None,
    progress: Progress = quiet,
) -> dict[str, Any]:
    """``asi eval``: predict the masked states of ``data``'s ``split`` records (``all``: every record; ``limit``: the
    first ones) with ``model`` and score them (top-k accuracy and similarity, seen/unseen, negation and gender
    breakdowns; ``similarity_model`` ``none`` skips similarity); writes the predictions to ``predictions_out``
    when given. Returns the report."""
    from affectlab.openstates.contextual import default_embedder
    from affectlab.openstates.evaluation import evaluate_open

    records = [r for r in read_records(data) if split == "all" or r.get("split") == split]
    records = records[:limit] if limit else records
    if not records:
        raise InputError(f"{data} has no {split} records")
    progress("loading the predictor")
    predictor = resolve_predictor(model, llm_base_url)
    embedder = None if similarity_model == "none" else default_embedder(similarity_model)
    progress(f"predicting {len(records):,} posts")
    result = evaluate_open(predictor, records, k, embedder)
    report = {"model": model, "data": str(data), "split": split, **result["report"]}
    if predictions_out is not None:
        rows = [{"id": r["id"], "terms": r["terms"], "predicted": [[t.to_dict() for t in m] for m in p]}
                for r, p in zip(records, result["predictions"], strict=True)]  # fmt: skip
        write_records(predictions_out, rows)
    return report


@dataclass(frozen=True)
class FixedLabelRun:
    """A fixed-label evaluation ready to score (``asi fixed-label``): the predictor and the split's rows, loaded
    first so that loading and ranking can each show their own progress."""

    dataset: str
    model: str
    split: str
    rows: Any
    space: Any
    predictor: Any

    def score(self, k: int = 5, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        """Rank the label words of every row (``progress``: texts done, of all) and return the report: macro P/R/F1
        of the most likely label and generative top-k accuracy (MASIVE 4.2.2)."""
        from affectlab.openstates.evaluation import fixed_label_eval

        evaluation = fixed_label_eval(self.predictor, self.dataset, self.rows, k, self.space, progress=progress)
        return {"model": self.model, "split": self.split, **evaluation}


def load_fixed_label_run(
    dataset: str,
    model: str = "default",
    split: str = "test",
    limit: int | None = None,
    data_dir: str | Path | None = None,
    progress: Progress = quiet,
) -> FixedLabelRun:
    """Load ``dataset``'s ``split`` (its first ``limit`` rows) and the predictor ``model`` for
    :meth:`FixedLabelRun.score`."""
    from affectlab.datasets import first_rows, resolve_dataset

    progress(f"loading {dataset}")
    spec, data = resolve_dataset(dataset, data_dir)
    if split not in data:
        raise InputError(f"{dataset} has no {split} split (splits: {', '.join(data)})")
    rows = first_rows(data, split, limit)[split] if limit else data[split]
    return FixedLabelRun(dataset, model, split, rows, spec.label_space, resolve_predictor(model))


def build_open_predictor(
    recipe: str | Path | None = None,
    out: str | Path | None = None,
    data_dir: str | Path | None = None,
    progress: Progress = quiet,
) -> dict[str, Any]:
    """``asi build-default``: train the open-vocabulary predictor behind ``detect --open`` from the folder
    ``recipe`` (default: the recipe collected first, in a temporary folder), the labelled datasets and the shipped
    lexicons, and save it to ``out`` (default: inside the package). Returns ``out`` and the training summary per
    language (with the dev figures that chose its blend)."""
    from affectlab.openstates.predictors.open_vocabulary import HEADS_DIR, build_open_default

    target = out or HEADS_DIR
    with tempfile.TemporaryDirectory() as scratch:
        if recipe is None:
            progress("collecting the recipe")
            recipe = Path(scratch)
            build_recipe(data_dir, recipe)
        predictor = build_open_default(recipe, data_dir, target, progress=progress)
    return {"out": str(target), "training": predictor.training_}
