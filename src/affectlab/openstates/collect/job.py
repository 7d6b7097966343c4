"""``affectlab asi collect`` as one call: read a corpus, bootstrap affective states from seed terms (MASIVE 3.1),
mask them and write the train/test records, returning what was collected."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from affectlab.errors import InputError
from affectlab.openstates.collect.bootstrap import bootstrap
from affectlab.openstates.collect.corpus import read_posts
from affectlab.openstates.collect.dataset import split_dataset, summary, write_records
from affectlab.openstates.collect.pos import default_adjective_check
from affectlab.openstates.collect.seeds import REGIONAL_SEEDS_ES, SEEDS, templates_for


def _quiet(_message: str) -> None:
    """No progress report."""


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
    progress: Callable[[str], None] = _quiet,
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
