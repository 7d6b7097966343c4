"""Building the embedded default (:mod:`affectlab.detectors.default`) from the datasets: ``affectlab
build-default``. With ``fine_tune``, the shared encoder is fine-tuned first (:mod:`affectlab.evaluation.
default_encoder`, torch) and exported to int8 ONNX (:mod:`affectlab.encoders.onnx_export`). Each (member) head is
then an ensemble of that encoder's fine-tuned head for the taxonomy (``embedding-lr`` with ``head=``) and a
``tfidf-lr`` trained on the recipe's datasets, with the member weights (the n-gram member's may be 0), the decision
and the fast profile's decision tuned on dev. The test scores of every head are recorded beside them
(``scores.json``) for the model card.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.datasets import DatasetSpec, resolve_dataset
from affectlab.datasets.semeval2025 import WITHOUT_NEUTRAL
from affectlab.detectors import Detector, create_detector, read_detector
from affectlab.detectors.default import (
    FALLBACK,
    FAST_MEMBER,
    HEADS_DIR,
    RECIPES,
    SCORES_FILE,
    SLICE_ROWS,
    TAXONOMIES,
    HeadRecipe,
)
from affectlab.detectors.ensemble import EnsembleDetector, combine, tune_ensemble_weights
from affectlab.detectors.routed import LanguageRoutedDetector
from affectlab.detectors.serialization import FORMAT as MODEL_FORMAT
from affectlab.encoders.sentence import E5_AFFECT_DIR
from affectlab.errors import InputError
from affectlab.evaluation.default_encoder import check_run_folders
from affectlab.evaluation.evaluate import evaluate
from affectlab.evaluation.training import CV_THRESHOLD_MAX_TRAIN, Progress, _quiet, out_of_fold_proba, train_detector
from affectlab.labels import LabelSpace
from affectlab.languages import BRIGHTER_LANGS
from affectlab.metrics.thresholds import fit_decision

TFIDF_MEMBER = {"max_features": 100_000}
"""Cap each n-gram block so that all heads together stay under the 80 MB shipped in all..."""
SMALL_TFIDF_MEMBER = {"max_features": 15_000}
"""... and a smaller one for the 25 languages beyond English, Ukrainian, Spanish and the pooled fallback, whose
training sets are 1,000-3,700 texts (at 30,000 features Nigerian Pidgin's member alone was 1.5 MB: 25 of them
would break the budget)."""
POOLED_TFIDF_MEMBER = {"max_features": 40_000}
"""... and one between them for the fallback (``und``), pooled from 25 languages: it reads texts in languages none of
the members was trained on, where n-grams of the 28 help little (at 100,000 features it took the shipped files
to 81.6 MB)."""
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
    """The n-gram member's parameters for a route (``""``: a head for all languages)."""
    if lang == FALLBACK:
        return POOLED_TFIDF_MEMBER
    return TFIDF_MEMBER if lang in ("", "uk", "en", "es") else SMALL_TFIDF_MEMBER


ENGLISH_ENCODER_HEAD = "goemotions"
"""The head that takes a fine-tuned English encoder as an optional third member."""
ENGLISH_ENCODER_RECIPE: dict[str, Any] = {
    "pooling": "mean",
    "class_weight": "capped",
    "weight_cap": 10.0,
    "lr": 5e-5,
    "epochs": 3,
    "batch_size": 32,
    "max_length": 64,
}
"""How ``--english-encoder`` fine-tunes an encoder directory: sigmoid + BCE (GoEmotions 5.2), mean pooling, positive
weights capped at 10, early stopping and thresholds on dev. Issue 6's GPU recipe runs 4 epochs; the shipped member
was trained for 3 on a 2-core CPU (70 minutes), and this recipe reproduces that one."""


def joined_data(
    recipe: HeadRecipe, names: tuple[str, ...], data_dir: str | os.PathLike[str] | None
) -> tuple[DatasetSpec, Any]:
    """The train and dev splits of the datasets ``names`` joined in the recipe's label space."""
    from datasets import DatasetDict, concatenate_datasets

    loaded = [resolve_dataset(name, data_dir)[1] for name in names]
    joined = DatasetDict({split: concatenate_datasets([data[split] for data in loaded]) for split in ("train", "dev")})
    spec = DatasetSpec(
        name=f"default-{recipe.name}",
        title=f"training data of the default {recipe.name} head",
        label_space=recipe.space,
        primary_metric=recipe.primary_metric,
        languages=(),
        splits=("train", "dev"),
        loader=lambda _dir: joined,
        source=" + ".join(names),
        license="",
        citation="",
    )
    return spec, joined


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
    probs, gold = fast.predict_proba(data["dev"]), recipe.space.encode(data["dev"]["labels"])
    if model.rule() == "thresholds" and len(data["train"]) <= CV_THRESHOLD_MAX_TRAIN:
        y_train = recipe.space.encode(data["train"]["labels"])
        probs = np.vstack([probs, out_of_fold_proba(fast, data["train"], y_train)])
        gold = np.vstack([gold, y_train])
    model.fast_decision_ = fit_decision(
        model.rule(),
        probs,
        gold,
        recipe.space,
        recipe.primary_metric,
        train_prior=recipe.space.encode(data["train"]["labels"]).mean(axis=0),
    )
    return model, summary


def build_head(
    recipe: HeadRecipe,
    data_dir: str | os.PathLike[str] | None,
    progress: Progress = _quiet,
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


def english_encoder_member(
    source: str | os.PathLike[str], recipe: HeadRecipe, data_dir: str | os.PathLike[str] | None, progress: Progress
) -> Detector:
    """The head's fine-tuned encoder, as it ships (int8 storage, reloaded so that dev tuning sees those weights):
    a saved affectlab ``hf`` model for the head's labels is taken as it is; a Hugging Face encoder directory is
    fine-tuned on the head's data with :data:`ENGLISH_ENCODER_RECIPE` first (on a CPU that takes hours)."""
    from affectlab.detectors.hf import HFEncoderDetector

    if _is_affectlab_model(source):
        model = read_detector(source)
        if not isinstance(model, HFEncoderDetector) or model.label_space.labels != recipe.space.labels:
            raise InputError(f"{str(source)!r} is not an hf model trained on the {recipe.name} labels")
    else:
        ((names),) = recipe.routes.values()
        spec, data = joined_data(recipe, names, data_dir)
        model = HFEncoderDetector(model=str(source), **ENGLISH_ENCODER_RECIPE)
        train_detector(model, spec, data, progress=progress)
    model.params["weight_storage"] = "int8"
    with tempfile.TemporaryDirectory() as tmp:
        model.save(Path(tmp) / "encoder")
        return read_detector(Path(tmp) / "encoder")


def _is_affectlab_model(directory: str | os.PathLike[str]) -> bool:
    """Whether ``directory`` holds a saved affectlab model (a Hugging Face one has a config.json too)."""
    path = Path(directory) / "config.json"
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("format") == MODEL_FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def add_optional_member(
    model: EnsembleDetector,
    member: Detector,
    recipe: HeadRecipe,
    data_dir: str | os.PathLike[str] | None,
    progress: Progress,
) -> EnsembleDetector:
    """``model`` plus the trained ``member`` as an optional last member: weights and decision re-tuned on dev for
    all members, the old ones kept for when the member cannot be loaded."""
    ((names),) = recipe.routes.values()
    _, data = joined_data(recipe, names, data_dir)
    progress(f"tuning the {recipe.name} head's weights with the {member.name} member on dev")
    kinds = list(model.params["members"])
    params = list(model.params["member_params"] or [{} for _ in kinds])
    combined = EnsembleDetector(
        members=[*kinds, member.name], member_params=[*params, member.params], optional=[len(kinds)]
    )
    combined.label_space_ = recipe.space
    combined.members_ = [*model.members_, member]
    combined.fast_decision_ = model.fast_decision_
    assert model.decision_ is not None  # a trained ensemble
    combined.without_optional_ = {"weights": model.weights_.tolist(), "decision": model.decision_.to_dict()}
    y_dev = recipe.space.encode(data["dev"]["labels"])
    probas = combined.member_probas(data["dev"])
    combined.weights_ = tune_ensemble_weights(probas, y_dev, recipe.space, recipe.primary_metric, combined.rule())
    combined.params["weights"] = combined.weights_.tolist()
    combined.decision_ = fit_decision(
        combined.rule(),
        combine(probas, combined.weights_),
        y_dev,
        recipe.space,
        recipe.primary_metric,
        train_prior=recipe.space.encode(data["train"]["labels"]).mean(axis=0),
    )
    return combined


def ensemble_weights(model: Detector) -> Any:
    """The tuned member weights of a head (per language for a routed head)."""
    if isinstance(model, LanguageRoutedDetector):
        return {lang: member.params["weights"] for lang, member in model.members_.items()}
    return model.params["weights"]


def score_head(model: Detector, recipe: HeadRecipe, data_dir: str | os.PathLike[str] | None) -> dict[str, Any]:
    """Test scores of a head on each of its datasets (and, for a head that rates intensity, on its intensity sets):
    the whole test split and its first ``SLICE_ROWS`` rows."""
    names = [*recipe.scored_on, *(recipe.intensity_scored_on if model.rates_intensity else ())]
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


def build_default(
    data_dir: str | os.PathLike[str] | None,
    out_dir: str | os.PathLike[str] = HEADS_DIR,
    heads: tuple[str, ...] = TAXONOMIES,
    progress: Progress = _quiet,
    english_encoder: str | os.PathLike[str] | None = None,
    fine_tune: bool = False,
    encoder_dir: str | os.PathLike[str] | None = None,
    trained_dir: str | os.PathLike[str] | None = None,
    resume: bool = False,
    continue_from: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Rebuild the default heads from the datasets into ``out_dir`` and record their test scores there.

    ``fine_tune`` first fine-tunes the shared encoder (torch; about an hour on 2 CPU cores), keeping its float32
    weights in ``trained_dir`` (default: a temporary directory), and exports it to ``encoder_dir`` (default: the
    one shipped inside affectlab), which the heads then read; ``resume`` goes on with a fine-tuning run that stopped
    part way (its checkpoint is in ``trained_dir``); ``continue_from`` starts it from the weights of a finished run
    (its ``trained_dir``) with a short schedule of its own. ``english_encoder`` (a saved ``hf`` GoEmotions model
    or an encoder directory to fine-tune) joins the goemotions head as an optional member."""
    out = Path(out_dir)
    for name in heads:
        if name not in RECIPES:
            raise InputError(f"unknown head {name!r} (heads: {', '.join(TAXONOMIES)})")
    if english_encoder is not None and ENGLISH_ENCODER_HEAD not in heads:
        raise InputError(f"--english-encoder goes with the {ENGLISH_ENCODER_HEAD} head")
    encoder = ENCODER if encoder_dir is None else str(encoder_dir)
    if resume and (not fine_tune or trained_dir is None):
        raise InputError("--resume goes with --fine-tune and the --trained-dir of the run to resume")
    if continue_from is not None and not fine_tune:
        raise InputError("--continue-from goes with --fine-tune")
    if fine_tune:
        check_run_folders(trained_dir, resume, continue_from)  # at once, not after minutes of loading
        fine_tune_encoder(data_dir, encoder_dir or E5_AFFECT_DIR, trained_dir, progress, resume, continue_from)
    for name in heads:
        recipe = RECIPES[name]
        started = time.perf_counter()
        extra_encoder = english_encoder if name == ENGLISH_ENCODER_HEAD else None
        model, summary = build_head(recipe, data_dir, progress, english_encoder=extra_encoder, encoder=encoder)
        progress(f"scoring the {name} head on its test splits")
        entry = {
            "routes": recipe.routes,
            "weights": ensemble_weights(model),
            "scores": score_head(model, recipe, data_dir),
        }
        if isinstance(model, EnsembleDetector) and model.params["optional"] and model.without_optional_:
            progress(f"scoring the {name} head without its optional members")
            entry["without_optional"] = {
                "weights": model.without_optional_["weights"],
                "scores": score_head(model.without_optional_members(), recipe, data_dir),
            }
        languages = sorted(recipe.languages)
        model.save(out / name, extra={"training": summary, "routes": recipe.routes, "trained_languages": languages})
        entry["build_seconds"] = round(time.perf_counter() - started, 1)
        _record_scores(out / SCORES_FILE, name, entry)
    return json.loads((out / SCORES_FILE).read_text(encoding="utf-8"))


def fine_tune_encoder(
    data_dir: str | os.PathLike[str] | None,
    encoder_dir: str | os.PathLike[str],
    trained_dir: str | os.PathLike[str] | None,
    progress: Progress,
    resume: bool = False,
    continue_from: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Fine-tune the shared encoder on the datasets (``resume``: going on from the checkpoint in ``trained_dir``;
    ``continue_from``: starting from a finished run's weights, with the recipe
    :data:`~affectlab.evaluation.default_encoder.CONTINUED`) and export it int8 to ``encoder_dir``; returns the
    training record."""
    from affectlab.encoders.onnx_export import export_encoder
    from affectlab.encoders.sentence import forget_encoder
    from affectlab.evaluation.default_encoder import CONTINUED, EncoderRecipe, fine_tune_default_encoder

    recipe = CONTINUED if continue_from is not None else EncoderRecipe()
    with tempfile.TemporaryDirectory() as tmp:
        trained = Path(trained_dir) if trained_dir is not None else Path(tmp) / "trained"
        record = fine_tune_default_encoder(
            trained, data_dir, recipe, progress=progress, resume=resume, continue_from=continue_from
        )
        progress("exporting the fine-tuned encoder to ONNX and quantizing it to int8")
        export_encoder(trained, encoder_dir)
    forget_encoder(str(encoder_dir))
    forget_encoder(ENCODER)
    return record


def _record_scores(path: Path, head: str, entry: dict[str, Any]) -> None:
    """Put one head's entry into the scores file, keeping the other heads' entries (read just before writing)."""
    record = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"heads": {}}
    record["heads"][head] = entry
    record["heads"] = {name: record["heads"][name] for name in TAXONOMIES if name in record["heads"]}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
