"""The recipe that runs the collector on the texts affectlab has locally (the MASIVE corpus itself is only on
Google Drive): GoEmotions + EmoContext + SemEval-2025 eng for English, SemEval-2025 esp for Spanish, and a one-round
regional Spanish set from the App. C.2 seeds.

"I feel X and Y" is too rare in these corpora to bootstrap from (no English or Spanish post has a seed state in
that slot), so the recipe is relaxed: a first round takes every adjective X of "I feel [so] X" as a state, then
conjunct rounds expand as in the paper; the regional set takes the seeds alone, in either form. The result has a few
hundred posts (see BENCHMARKS.md), two orders of magnitude below MASIVE (93,736 English training posts): enough to
test the pipeline and to train a small predictor, not to reproduce the paper's scores.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from affectlab.io.atomic import write_atomically
from affectlab.openstates.collect.bootstrap import bootstrap
from affectlab.openstates.collect.corpus import RECIPE_SOURCES, recipe_posts
from affectlab.openstates.collect.dataset import N_UNSEEN, split_dataset, summary, write_records
from affectlab.openstates.collect.pos import AdjectiveCheck
from affectlab.openstates.collect.seeds import REGIONAL_SEEDS_ES

UNSEEN_SHARE = 8
"""With few states, hold out at most one state family in this many (the paper's 15 of 1,600 is under 1 %)."""


def build_recipe(
    data_dir: str | os.PathLike[str] | None,
    out_dir: str | os.PathLike[str],
    rounds: int = 4,
    seed: int = 0,
    adjectives: AdjectiveCheck | None = None,
) -> dict[str, Any]:
    """Collect, mask and split ``en``, ``es`` and ``es-regional`` into ``out_dir/<name>.jsonl``; returns (and
    writes as ``summary.json``) the sizes, rounds and held-out states of each."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"sources": RECIPE_SOURCES, "rounds": rounds, "seed": seed, "sets": {}}
    for name, lang in (("en", "en"), ("es", "es"), ("es-regional", "es")):
        ids, texts = recipe_posts(lang, data_dir)
        if name == "es-regional":
            result = bootstrap(texts, lang, 1, REGIONAL_SEEDS_ES, ids, adjectives, single_form=True)
        else:
            result = bootstrap(texts, lang, rounds, None, ids, adjectives, grow_from_single=True)
        n_families = len({s for s, found in result.states.items() if found > 0})
        n_unseen = 0 if name == "es-regional" else min(N_UNSEEN, n_families // UNSEEN_SHARE)
        records, unseen = split_dataset(result, n_unseen=n_unseen, seed=seed) if result.posts else ([], [])
        if name == "es-regional":
            records = [{**record, "split": "regional"} for record in records]
        write_records(out / f"{name}.jsonl", records)
        report["sets"][name] = {
            "corpus_texts": len(texts),
            "posts": len(records),
            "states": len({t for r in records for t in r["terms"]}),
            "rounds": result.rounds,
            "held_out_states": unseen,
            "splits": summary(records),
            "adjective_check": result.adjective_check,
        }
    write_atomically({out / "summary.json": (json.dumps(report, indent=1, ensure_ascii=False) + "\n").encode()})
    return report
