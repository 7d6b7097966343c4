"""The heads of the shipped default (:mod:`affectlab.detectors.default`), built and scored: each (member) head is
an ensemble of the fine-tuned encoder's head for the taxonomy (``embedding-lr`` with ``head=``) and a ``tfidf-lr``
trained on the recipe's datasets, with the member weights (the n-gram member's may be 0), the decision and the fast
profile's decision tuned on dev, routed by language where the recipe has several routes. The test scores of a head
are what the model card shows."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from affectlab.build.english import add_optional_member, english_encoder_member
from affectlab.build.sources import joined_data
from affectlab.datasets import resolve_dataset
from affectlab.datasets.semeval2025 import WITHOUT_NEUTRAL
from affectlab.detectors import Detector, create_detector
from affectlab.detectors.default import FALLBACK, FAST_MEMBER, SLICE_ROWS, HeadRecipe
from affectlab.detectors.ensemble import EnsembleDetector
from affectlab.detectors.routed import LanguageRoutedDetector
from affectlab.evaluation.evaluate import evaluate
from affectlab.evaluation.training import CV_THRESHOLD_MAX_TRAIN, label_prior, out_of_fold_proba, train_detector
from affectlab.io.progress import Progress, quiet
from affectlab.labels import LabelSpace
from affectlab.languages import BRIGHTER_LANGS, FIRST_LANGUAGES
from affectlab.metrics.thresholds import fit_decision

TFIDF_MEMBER = {"max_features": 100_000, "canonical": True, "coef_storage": "float16"}
"""Every n-gram member reads the canonical spelling of a text, as the encoder does
(:func:`affectlab.text.canonical_text`), and keeps its weights in float16 (issue 54: half the largest files, a
probability moved by about 1e-4). Cap each n-gram block so that all heads together stay under the 80 MB
shipped in all..."""
SMALL_TFIDF_MEMBER = {"max_features": 15_000, "canonical": True, "coef_storage": "float16"}
"""... and a smaller one for the 25 languages beyond English, Ukrainian, Spanish and the pooled fallback, whose
training sets are 1,000-3,700 texts (at 30,000 features Nigerian Pidgin's member alone was 1.5 MB: 25 of them
would break the budget)."""
POOLED_TFIDF_MEMBER = {"max_features": 40_000, "canonical": True, "coef_storage": "float16"}
"""... and one between them for the fallback (``und``), pooled from 25 languages: it reads texts in languages none of
the members was trained on, where n-grams of the 28 help little (at 100,000 features it took the shipped files
to 81.6 MB)."""
NEGATION_SCOPE = {"en": 4, "uk": 1, "de": 1, "ru": 4, "ary": 4, "hi": 1}
"""Per route, the words after a negation cue that the n-gram member marks (:mod:`affectlab.detectors.negation`;
issue 52), chosen on dev by ``benchmarks/robustness/negation_scope_ngrams.py``: among scopes of 0, 1, 2 and 4 words, the
one with the best suite dev negation and "not A but B" rates whose dev score is within 0.01 of none (Spanish and
Brazilian Portuguese lost more than that with any scope; the routes not measured keep none). The English heads
(goemotions, emocontext) take English's."""
INTENSITY_HEAD = "intensity"
WITHOUT_NEUTRAL_TEXTS = tuple(BRIGHTER_LANGS[code] for code in WITHOUT_NEUTRAL)
"""The languages whose data has no text without an emotion (Spanish), as tags."""
ENCODER = "e5-affect"
"""The encoder the heads read: the fine-tuned one shipped inside affectlab."""


def encoder_member(recipe: HeadRecipe, encoder: str) -> dict[str, Any]:
    """The ``embedding-lr`` parameters of a head's encoder member: the encoder's own fine-tuned head, or a logistic
    regression on its vectors (``recipe.fine_tuned_head``); the ekman member also rates intensity where the encoder
    was fine-tuned with an intensity head."""
    if not recipe.fine_tuned_head:
        return {"encoder": encoder}
    params = {"encoder": encoder, "head": recipe.name}
    if recipe.name == "ekman" and INTENSITY_HEAD in _encoder_heads(encoder):
        params["intensity_head"] = INTENSITY_HEAD
    return params


def _encoder_heads(encoder: str) -> set[str]:
    from affectlab.encoders.onnx_encoder import OnnxEncoder
    from affectlab.encoders.sentence import get_encoder

    model = get_encoder(encoder)
    return set(model.heads()) if isinstance(model, OnnxEncoder) else set()


def tfidf_member(lang: str) -> dict[str, Any]:
    """The n-gram member's parameters for a route (``""``: a head for all languages, English)."""
    scope = {"negation_scope": NEGATION_SCOPE.get(lang or "en", 0)}
    if lang == FALLBACK:
        return {**POOLED_TFIDF_MEMBER, **scope}
    return {**(TFIDF_MEMBER if lang in ("", *FIRST_LANGUAGES) else SMALL_TFIDF_MEMBER), **scope}


def build_member(
    recipe: HeadRecipe,
    names: tuple[str, ...],
    data_dir: str | os.PathLike[str] | None,
    progress: Progress,
    encoder: str = ENCODER,
    lang: str = "",
) -> tuple[EnsembleDetector, dict[str, Any]]:
    """One ensemble of the encoder's fine-tuned head and tfidf-lr on ``names``, with its member weights and
    decision tuned on dev, and its fast profile's decision tuned on dev plus out-of-fold train predictions (small
    train sets; the n-gram member alone can be refitted on folds, the fine-tuned encoder cannot)."""
    spec, data = joined_data(recipe, names, data_dir)
    model = create_detector("ensemble", member_params=[encoder_member(recipe, encoder), tfidf_member(lang)])
    assert isinstance(model, EnsembleDetector)
    summary = train_detector(model, spec, data, progress=progress)
    progress("tuning the decision of the fast (n-gram only) profile")
    fast = model.members_[FAST_MEMBER]
    probs, gold = fast.predict_proba(data["dev"]), recipe.space.encode_split(data["dev"])
    if model.rule() == "thresholds" and len(data["train"]) <= CV_THRESHOLD_MAX_TRAIN:
        y_train = recipe.space.encode_split(data["train"])
        probs = np.vstack([probs, out_of_fold_proba(fast, data["train"], y_train)])
        gold = np.vstack([gold, y_train])
    decision = fit_decision(
        model.rule(),
        probs,
        gold,
        recipe.space,
        recipe.primary_metric,
        train_prior=label_prior(recipe.space.encode_split(data["train"])),
    )
    model.set_fast_decision(decision)
    return model, summary


def build_head(
    recipe: HeadRecipe,
    data_dir: str | os.PathLike[str] | None,
    progress: Progress = quiet,
    english_encoder: str | os.PathLike[str] | None = None,
    encoder: str = ENCODER,
) -> tuple[Detector, dict[str, Any]]:
    """Train a head: one ensemble, or one per language under a ``by-language`` router; with ``english_encoder``
    (the goemotions head only) plus that fine-tuned encoder as an optional member."""
    built = {}
    for lang, names in recipe.routes.items():
        progress(f"building the {recipe.name} head's {lang or 'only'} member on {', '.join(names)}")
        built[lang] = build_member(recipe, names, data_dir, progress, encoder, lang)
    if english_encoder is not None:
        model, summary = built[""]
        member = english_encoder_member(english_encoder, recipe, data_dir, progress)
        return add_optional_member(model, member, recipe, data_dir, progress), {**summary, "encoder": member.params}
    if set(built) == {""}:
        return built[""]
    if FALLBACK in built:
        gate_without_neutral_texts({lang: model for lang, (model, _) in built.items()}, recipe.space)
    router = LanguageRoutedDetector(languages=list(built), fallback=FALLBACK if FALLBACK in built else "en")
    router.set_members({lang: model for lang, (model, _) in built.items()})
    return router, {lang: summary for lang, (_, summary) in built.items()}


def gate_without_neutral_texts(members: dict[str, EnsembleDetector], space: LabelSpace) -> None:
    """Give the members of languages without neutral texts (Spanish) the pooled member's none threshold as a none
    gate, in both profiles: their own thresholds, tuned where every text has an emotion, never answer none."""
    none = space.labels.index(str(space.none_label))
    pooled = members[FALLBACK]
    for lang in WITHOUT_NEUTRAL_TEXTS:
        if lang in members:
            member = members[lang]
            assert member.decision_ is not None and pooled.decision_ is not None  # both trained
            member.decision_.none_gate = float(pooled.decision_.values[none])
            if member.fast_decision_ is not None and pooled.fast_decision_ is not None:
                member.fast_decision_.none_gate = float(pooled.fast_decision_.values[none])


def ensemble_weights(model: Detector) -> Any:
    """The tuned member weights of a head (per language for a routed head)."""
    if isinstance(model, LanguageRoutedDetector):
        return {lang: ensemble_weights(member) for lang, member in model.members_.items()}
    assert isinstance(model, EnsembleDetector)
    return model.weights_.tolist()


def score_head(model: Detector, recipe: HeadRecipe, data_dir: str | os.PathLike[str] | None) -> dict[str, Any]:
    """Test scores of a head on each of its datasets (and, for a head that rates intensity, on its intensity sets):
    the whole test split and its first ``SLICE_ROWS`` rows."""
    names = [*recipe.scored_on, *(recipe.intensity_scored_on if model.capabilities.rates_intensity else ())]
    scores = {}
    for name in names:
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
        if spec.rates_intensity:
            scores[name] |= {
                "per_label_r": full.metrics["intensity_per_label"],
                "pearson_unrounded": full.metrics["pearson_unrounded"],
                "labels_macro_f1_emotions": full.metrics["labels_primary"]["value"],
            }
    return scores
