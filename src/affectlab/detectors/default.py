"""The embedded default detector: one trained head per taxonomy, shipped in the model package
(:mod:`affectlab.model_package`) and rebuilt from the datasets by ``affectlab build-default`` (:mod:`affectlab.build`).

Every head reads one shared encoder: multilingual-e5-small fine-tuned on all the emotion datasets at once, with a
linear head per taxonomy (``e5-affect``: :mod:`affectlab.build.encoder`), served by ONNX Runtime int8
without torch (:mod:`affectlab.encoders.onnx_encoder`).

* ``ekman`` (anger, disgust, fear, joy, sadness, surprise, none): a ``by-language`` head over the 28 languages of
  SemEval-2025 Task 11. Its members share the encoder's ``ekman`` head (trained on all of them and GoEmotions) and
  differ in their n-gram member, member weights and thresholds, each from its language's data: Ukrainian from
  EmoBench-UA, English from GoEmotions-Ekman and SemEval-2025 eng together (each English dataset alone scored
  better on itself and worse on the other; joined, the mean of their dev scores was highest: BENCHMARKS.md), every
  other language from its SemEval-2025 track A set. A text in any other language goes to the ``und`` member,
  tuned on the pooled data (:data:`FALLBACK`). Spanish has no neutral texts to tune ``none`` on, so its member
  takes the pooled member's ``none`` threshold as a gate (:attr:`affectlab.metrics.thresholds.Decision.none_gate`).
  The encoder's ``intensity`` head rates each emotion 0-3 (``detect --intensity``).
* ``goemotions`` (27 emotions + neutral, English) and ``emocontext`` (happy, sad, angry, others; dialogue).

Each (member) head is an ``ensemble`` of ``embedding-lr`` (the encoder with its fine-tuned head for the taxonomy,
or for goemotions and emocontext a regression refitted on its vectors: see :class:`HeadRecipe`) and ``tfidf-lr``,
averaged with a weight tuned on dev, saved as JSON + npz like any detector; the n-gram member
alone, with its own decision, is the fast profile.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from affectlab.detectors.base import Detector
from affectlab.detectors.capabilities import Capabilities
from affectlab.detectors.ensemble import EnsembleDetector
from affectlab.detectors.registry import read_detector
from affectlab.detectors.routed import LanguageRoutedDetector
from affectlab.detectors.serialization import CONFIG
from affectlab.errors import InputError, ModelFileError
from affectlab.labels import EKMAN, TAXONOMY_RECORDS, LabelSpace
from affectlab.languages import BRIGHTER_LANGS, BY_CODE, LANGUAGES
from affectlab.loaded_once import loaded_once
from affectlab.model_package import shipped_path, verified

HEADS_DIR = shipped_path("default_heads")
"""The shipped heads, one folder per taxonomy, and their test scores (``scores.json``)."""
SCORES_FILE = "scores.json"
SLICE_ROWS = 300
"""The model card also records each head's score on the first rows of each test split, which CI re-checks."""
FAST_MEMBER = 1
"""The ensemble's members are [embedding-lr, tfidf-lr]; the fast profile keeps the n-gram one."""


@dataclass(frozen=True)
class HeadRecipe:
    """What a head is trained on: per language (``""``: one head for all), the datasets whose train/dev splits
    are joined in ``space``; ``scored_on`` lists the test sets of the model card. ``fine_tuned_head``: the encoder
    member is the head fine-tuned with the encoder; otherwise a logistic regression refitted on the fine-tuned
    encoder's vectors of every training text (better on dev for GoEmotions, of which fine-tuning draws a sample
    each epoch; for EmoContext it was too until the 28-language encoder, whose own head scored 0.739 on halves of
    dev against 0.732 for the refit: BENCHMARKS.md)."""

    name: str
    space: LabelSpace
    routes: dict[str, tuple[str, ...]]
    scored_on: tuple[str, ...]
    primary_metric: str = "macro_f1"
    fine_tuned_head: bool = True
    intensity_scored_on: tuple[str, ...] = ()
    """The intensity test sets of the model card, where the head rates intensity."""


def head_recipe(
    taxonomy: str, routes: dict[str, tuple[str, ...]], scored_on: tuple[str, ...], fine_tuned_head: bool = True
) -> HeadRecipe:
    """The recipe of the head for ``taxonomy``, its label space and metric read from the taxonomy's record."""
    record = TAXONOMY_RECORDS.get(taxonomy)
    return HeadRecipe(record.name, record.space, routes, scored_on, record.primary_metric, fine_tuned_head)


FALLBACK = "und"
"""The ``ekman`` route of a text in a language without data of its own (or none identified)."""
_FIRST = {"uk": ("emobench-ua",), "en": ("goemotions-ekman", "semeval2025-eng"), "es": ("semeval2025-esp",)}
_OTHERS = {tag: (f"semeval2025-{code}",) for code, tag in BRIGHTER_LANGS.items() if tag not in _FIRST}
_POOLED = tuple(names[0] for tag, names in {**_FIRST, **_OTHERS}.items() if LANGUAGES.get(tag).full_ekman)
"""The fallback's data: every language that annotates all six emotions and has neutral texts (not English, no
disgust; Afrikaans, no surprise; Spanish, no neutral texts)."""
EKMAN_ROUTES = {**_FIRST, **_OTHERS, FALLBACK: _POOLED}
EKMAN_SCORED_ON = ("emobench-ua", "goemotions-ekman", *(f"semeval2025-{code}" for code in BRIGHTER_LANGS))
EKMAN_INTENSITY_SCORED_ON = tuple(
    f"semeval2025-{code}-intensity" for code, language in BY_CODE.items() if language.intensity_splits
)
"""Track B's languages (:attr:`affectlab.languages.Language.intensity_splits`)."""

RECIPES = {
    "ekman": HeadRecipe(
        "ekman",
        EKMAN,
        EKMAN_ROUTES,
        EKMAN_SCORED_ON,
        intensity_scored_on=EKMAN_INTENSITY_SCORED_ON,
    ),
    "goemotions": head_recipe("goemotions", {"": ("goemotions",)}, scored_on=("goemotions",), fine_tuned_head=False),
    "emocontext": head_recipe("emocontext", {"": ("emocontext",)}, scored_on=("emocontext",)),
}
TAXONOMIES = tuple(RECIPES)


def head_for(space: LabelSpace) -> str:
    """The head whose labels cover ``space`` (the Ekman head also serves its subsets, e.g. English without
    disgust)."""
    for name, recipe in RECIPES.items():
        if set(space.labels) <= set(recipe.space.labels) and (space.multi_label == recipe.space.multi_label):
            return name
    raise InputError(f"no default head covers the labels {', '.join(space.labels)} (heads: {', '.join(TAXONOMIES)})")


def fast_profile(model: Detector, head: str) -> Detector:
    """The n-gram member(s) of a head, each with the decision tuned for it alone."""
    if isinstance(model, LanguageRoutedDetector):
        return model.with_members(lambda member: fast_profile(member, head), fast_capabilities(model.capabilities))
    if not isinstance(model, EnsembleDetector) or model.fast_decision_ is None:
        raise ModelFileError(f"the default {head} head has no fast profile; rebuild it with `affectlab build-default`")
    return model.fast_profile(FAST_MEMBER)


def fast_capabilities(head: Capabilities) -> Capabilities:
    """What a head's fast profile can do, from the head's record alone (a router's 29 members stay unbuilt): its
    n-gram members read no encoder and rate no intensity; they read context as the head does (every member is
    trained on the same texts, and each reads the turns exactly when the training texts had them)."""
    return Capabilities(reads_context=head.reads_context, trained_languages=head.trained_languages)


@loaded_once
def load_default(head: str = "ekman", fast: bool = False) -> Detector:
    """The shipped head for a taxonomy (``ekman``, ``goemotions``, ``emocontext``), loaded once per process
    (:class:`~affectlab.loaded_once.LoadedOnce`: threads asking at once share one load).
    ``fast`` gives its n-gram member alone, with the decision tuned for it: no encoder, thousands of texts/s."""
    if head not in RECIPES:
        raise InputError(f"unknown taxonomy {head!r} (choose from {', '.join(TAXONOMIES)})")
    path = HEADS_DIR / head
    verified(path / CONFIG)  # which pins the head's other files, verified as they are read (affectlab.model_package)
    model = read_detector(path)
    return fast_profile(model, head) if fast else model


def shipped_scores() -> dict[str, Any]:
    """The test scores recorded when the shipped heads were built."""
    return json.loads(verified(HEADS_DIR / SCORES_FILE).read_text(encoding="utf-8"))
