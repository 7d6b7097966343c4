"""The whole jobs of ``affectlab eval`` and ``affectlab train``, one call each. An evaluation run end to end:
resolve the model (the shipped default head for the dataset's labels, a saved model, or a kind trained here on the
dataset's train split with thresholds tuned on dev), score the split with the dataset's metrics and bootstrap
intervals, and record the run in the results store. Training: fit a kind, tune its decision on dev, save it."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from affectlab.datasets import FileOptions, first_rows, resolve_dataset
from affectlab.datasets.userfile import SPLIT_ALIASES
from affectlab.detectors import create_detector, is_model_dir
from affectlab.detectors.resolve import resolve_detector
from affectlab.errors import InputError
from affectlab.evaluation.evaluate import check_rates_intensity, evaluate
from affectlab.evaluation.store import RunStore, model_label
from affectlab.evaluation.training import train_detector
from affectlab.io.outputs import check_output_dir
from affectlab.io.progress import Progress, quiet


def run_evaluation(
    model: str,
    dataset: str,
    split: str = "test",
    *,
    fast: bool = False,
    params: dict[str, Any] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    file_options: FileOptions | None = None,
    limit: int | None = None,
    n_bootstrap: int = 1000,
    record: bool = True,
    runs_db: str | os.PathLike[str] | None = None,
    progress: Progress = quiet,
) -> dict[str, Any]:
    """Score ``model`` on ``dataset``'s ``split`` and return the run record (``affectlab eval --json``).

    ``model`` is ``default`` (``fast``: its n-gram profile), a saved model's folder, or a model kind (``tfidf-lr``,
    ``hf:PATH``, ``llm:NAME``, ...; ``params`` are its parameters), which is first trained on the train split.
    ``limit`` scores only the first rows of the split (``n`` of its ``split_size`` texts). The record names the
    model as it was given (``model``; the detector's kind in ``model_kind``) and, with ``record``, gets the
    ``run_id`` of the results store."""
    started = time.perf_counter()
    if fast and model != "default":
        raise InputError("--fast applies only to --model default")
    if params and (model == "default" or is_model_dir(model)):
        raise InputError("--param applies to a model kind trained here, not to 'default' or a saved model")
    training = None
    if model == "default":
        from affectlab.detectors.default import head_for

        progress(f"loading {dataset}")
        spec, data = resolve_dataset(dataset, data_dir, file_options)
        detector = resolve_detector("default", head_for(spec.label_space), fast)
    elif is_model_dir(model):
        progress(f"loading model {model}")
        detector = resolve_detector(model)
        progress(f"loading {dataset}")
        spec, data = resolve_dataset(dataset, data_dir, file_options, label_space=detector.label_space)
    else:
        detector = create_detector(model, **(params or {}))
        progress(f"loading {dataset}")
        spec, data = resolve_dataset(dataset, data_dir, file_options)
        check_rates_intensity(detector, spec)  # a kind that never rates intensity: refused before training
        training = train_detector(detector, spec, data, progress=progress)
    split_name = SPLIT_ALIASES.get(split, split)
    split_size = len(data[split_name]) if split_name in data else None
    if limit is not None:
        data = first_rows(data, split, limit)
    result = evaluate(detector, spec, data, split, n_bootstrap=n_bootstrap, progress=progress, started=started,
                      training=training)  # fmt: skip
    reference = f"{model} --fast" if fast else model
    # one name for the model everywhere (table, --json, runs list): what the user passed, the kind beside it
    run = {**result.to_dict(), "model": model_label({"model_ref": reference}), "model_kind": result.model,
           "model_ref": reference, "split_size": split_size}  # fmt: skip
    if record:
        run["run_id"] = RunStore(Path(runs_db) if runs_db is not None else None).add(run, result.outputs)
    return run


def train_and_save(
    model: str,
    dataset: str,
    out: str | os.PathLike[str] | None = None,
    *,
    params: dict[str, Any] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    file_options: FileOptions | None = None,
    translator: str | os.PathLike[str] | None = None,
    translate: str | None = None,
    progress: Progress = quiet,
) -> dict[str, Any]:
    """Train the model kind ``model`` (``params``: its parameters) on ``dataset``'s train split, tune its decision
    on dev and save it to ``out`` (default ``models/<model>-<dataset>``): ``affectlab train``. With ``translator``
    (a local MarianMT/NLLB folder) and ``translate`` (``SOURCE:TARGET``), every split is translated first
    (translate-train). Returns the training summary with ``model`` and ``out``."""
    detector = create_detector(model, **(params or {}))
    progress(f"loading {dataset}")
    spec, data = resolve_dataset(dataset, data_dir, file_options)
    if translator is not None or translate is not None:
        data = _translated(data, translator, translate, progress)
    default_out = Path("models") / f"{_file_name(model)}-{Path(spec.name).stem}"
    target = check_output_dir(Path(out) if out is not None else default_out)
    summary = train_detector(detector, spec, data, progress=progress)
    progress(f"saving to {target}")
    detector.save(target, extra={"training": summary})
    return {"model": model, "out": str(target), "dataset": spec.name, **summary}


def _file_name(model: str) -> str:
    """A model name usable in a default directory name: ``hf:path/to/xlm-r`` -> ``hf-xlm-r``."""
    kind, _, target = model.partition(":")
    return f"{kind}-{Path(target).name}" if target else kind


def _translated(data: Any, translator: str | os.PathLike[str] | None, languages: str | None, progress: Progress) -> Any:
    """Translate-train: ``data`` translated from SOURCE into TARGET with the local model ``translator``."""
    source, sep, target = (languages or "").partition(":")
    if translator is None or not (sep and source and target):
        raise InputError("translate-train needs both --translator DIR and --translate SOURCE:TARGET (e.g. en:uk)")
    from affectlab.encoders.translation import open_translator, translate_dataset

    return translate_dataset(data, open_translator(translator), source, target, progress=progress)
