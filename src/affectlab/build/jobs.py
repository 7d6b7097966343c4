"""Building the embedded default (:mod:`affectlab.detectors.default`) from the datasets: what ``affectlab
build-default`` runs. With ``fine_tune``, the shared encoder is fine-tuned first and exported to int8 ONNX
(:mod:`affectlab.build.export`); each head is then built on it and scored (:mod:`affectlab.build.heads`), and the
test scores of every head are recorded beside them (``scores.json``) for the model card. Built into the model
package (the default), the files replace the shipped ones in place and its manifest is rewritten
(:mod:`affectlab.build.manifest`), naming this build.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from affectlab.build.encoder import check_run_folders
from affectlab.build.english import ENGLISH_ENCODER_HEAD
from affectlab.build.export import fine_tune_encoder
from affectlab.build.heads import ENCODER, build_head, ensemble_weights, score_head
from affectlab.build.manifest import check_clean_tree, check_new_version, package_root, write_manifest
from affectlab.detectors.default import HEADS_DIR, RECIPES, SCORES_FILE, TAXONOMIES
from affectlab.detectors.ensemble import EnsembleDetector
from affectlab.encoders.sentence import E5_AFFECT_DIR
from affectlab.errors import InputError
from affectlab.io.progress import Progress, quiet


def build_default(
    data_dir: str | os.PathLike[str] | None,
    out_dir: str | os.PathLike[str] = HEADS_DIR,
    heads: tuple[str, ...] = TAXONOMIES,
    progress: Progress = quiet,
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
    _check_build_options(heads, english_encoder, fine_tune, trained_dir, resume, continue_from)
    if fine_tune:
        check_run_folders(trained_dir, resume, continue_from)  # at once, not after minutes of loading
    shipped = _shipped_models(out_dir, encoder_dir if fine_tune else None, fine_tune)
    if shipped:
        check_new_version(package_root())  # before hours of training
        check_clean_tree(package_root())
    encoder = ENCODER if encoder_dir is None else str(encoder_dir)
    if fine_tune:
        fine_tune_encoder(data_dir, encoder_dir or E5_AFFECT_DIR, trained_dir, progress, resume, continue_from)
    out = Path(out_dir)
    for name in heads:
        extra_encoder = english_encoder if name == ENGLISH_ENCODER_HEAD else None
        _record_scores(
            out / SCORES_FILE, name, build_and_score_head(name, out, data_dir, progress, extra_encoder, encoder)
        )
    if shipped:
        command = _build_command(data_dir, heads, fine_tune, continue_from, english_encoder)
        write_manifest(built=dict.fromkeys(shipped, command))
    return json.loads((out / SCORES_FILE).read_text(encoding="utf-8"))


def _shipped_models(
    out_dir: str | os.PathLike[str], encoder_dir: str | os.PathLike[str] | None, fine_tune: bool
) -> list[str]:
    """The model package's folders a build writes into: the heads' and, fine-tuning, the encoder's."""
    into = {"default_heads": Path(out_dir), "e5_affect": Path(encoder_dir or E5_AFFECT_DIR) if fine_tune else None}
    shipped = {"default_heads": HEADS_DIR, "e5_affect": E5_AFFECT_DIR}
    return [name for name, path in into.items() if path is not None and path.resolve() == shipped[name].resolve()]


def _build_command(
    data_dir: str | os.PathLike[str] | None,
    heads: tuple[str, ...],
    fine_tune: bool,
    continue_from: str | os.PathLike[str] | None,
    english_encoder: str | os.PathLike[str] | None,
) -> str:
    """The ``affectlab build-default`` command line of this build, for the manifest."""
    words = ["affectlab build-default", *(["--data-dir", str(data_dir)] if data_dir else [])]
    words += [] if heads == TAXONOMIES else [f"--head {name}" for name in heads]
    words += (["--fine-tune"] if fine_tune else []) + ([f"--continue-from {continue_from}"] if continue_from else [])
    words += [f"--english-encoder {english_encoder}"] if english_encoder else []
    return " ".join(words)


def _check_build_options(
    heads: tuple[str, ...],
    english_encoder: str | os.PathLike[str] | None,
    fine_tune: bool,
    trained_dir: str | os.PathLike[str] | None,
    resume: bool,
    continue_from: str | os.PathLike[str] | None,
) -> None:
    """Refuse an unknown head and an option that does not apply, before anything is loaded."""
    for name in heads:
        if name not in RECIPES:
            raise InputError(f"unknown head {name!r} (heads: {', '.join(TAXONOMIES)})")
    if english_encoder is not None and ENGLISH_ENCODER_HEAD not in heads:
        raise InputError(f"--english-encoder goes with the {ENGLISH_ENCODER_HEAD} head")
    if resume and (not fine_tune or trained_dir is None):
        raise InputError("--resume goes with --fine-tune and the --trained-dir of the run to resume")
    if continue_from is not None and not fine_tune:
        raise InputError("--continue-from goes with --fine-tune")


def build_and_score_head(
    name: str,
    out: Path,
    data_dir: str | os.PathLike[str] | None,
    progress: Progress,
    english_encoder: str | os.PathLike[str] | None,
    encoder: str,
) -> dict[str, Any]:
    """Build the head ``name``, score it on its test splits (and without its optional members, if it has any),
    save it in ``out/name`` and return its entry of the scores file."""
    recipe = RECIPES[name]
    started = time.perf_counter()
    model, summary = build_head(recipe, data_dir, progress, english_encoder=english_encoder, encoder=encoder)
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
    model.save(out / name, extra={"training": summary, "routes": recipe.routes})  # its languages: capabilities
    entry["build_seconds"] = round(time.perf_counter() - started, 1)
    return entry


def _record_scores(path: Path, head: str, entry: dict[str, Any]) -> None:
    """Put one head's entry into the scores file, keeping the other heads' entries (read just before writing)."""
    record = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"heads": {}}
    record["heads"][head] = entry
    record["heads"] = {name: record["heads"][name] for name in TAXONOMIES if name in record["heads"]}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
