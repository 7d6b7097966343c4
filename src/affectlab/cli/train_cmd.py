"""``affectlab train MODEL --dataset D --out DIR``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from affectlab.cli.options import (
    ContextCol,
    DataDir,
    Json,
    LabelCol,
    LabelSep,
    Params,
    SplitCol,
    TextCol,
    file_options,
    parse_params,
)
from affectlab.cli.output import print_json, stage_progress, stdout
from affectlab.datasets import resolve_dataset
from affectlab.detectors import create_detector
from affectlab.errors import InputError
from affectlab.evaluation.training import train_detector
from affectlab.io.outputs import check_output_dir


def train(
    model: str = typer.Argument(
        ...,
        help="Model kind: keywords, tfidf-lr, tfidf-rf, embedding-lr, ensemble, translate-test, hf:ENCODER (a local "
        "Hugging Face encoder directory or hub id to fine-tune) or llm:MODEL (prompting; -p base_url=URL for a "
        "server).",
    ),
    dataset: str = typer.Option(..., "--dataset", "-d", help="Dataset name or a labelled user file/directory."),
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Where to save the model (default: models/MODEL-DATASET)."
    ),
    data_dir: Path | None = DataDir,
    params: list[str] | None = Params,
    translator: Path | None = typer.Option(
        None,
        "--translator",
        help="Translate-train: a local MarianMT/NLLB directory; every split is translated (and cached) before "
        "training.",
        show_default=False,
    ),
    translate: str | None = typer.Option(
        None, "--translate", help="With --translator: SOURCE:TARGET languages, e.g. en:uk.", show_default=False
    ),
    text_col: str = TextCol,
    label_col: str | None = LabelCol,
    label_sep: str | None = LabelSep,
    split_col: str | None = SplitCol,
    context_col: str | None = ContextCol,
    as_json: bool = Json,
) -> None:
    """Train a detector on the train split, tune its thresholds on dev, and save it (JSON + npz)."""
    detector = create_detector(model, **parse_params(params))
    options = file_options(text_col, label_col, label_sep, split_col, context_col)
    with stage_progress(not as_json) as progress:
        progress(f"loading {dataset}")
        spec, data = resolve_dataset(dataset, data_dir, options)
        if translator is not None or translate is not None:
            data = _translated(data, translator, translate, progress)
        target = check_output_dir(out or Path("models") / f"{_file_name(model)}-{Path(spec.name).stem}")
        summary = train_detector(detector, spec, data, progress=progress)
        progress(f"saving to {target}")
        detector.save(target, extra={"training": summary})
    result = {"model": model, "out": str(target), **summary}
    if as_json:
        print_json(result)
    else:
        stdout.print(
            f"trained {model} on {spec.name} ({summary['n_train']} texts, dev {summary['n_dev']}) "
            f"in {summary['seconds']:.1f} s; saved to {target}",
            highlight=False,
        )


def _file_name(model: str) -> str:
    """A model name usable in a default directory name: ``hf:path/to/xlm-r`` -> ``hf-xlm-r``."""
    kind, _, target = model.partition(":")
    return f"{kind}-{Path(target).name}" if target else kind


def _translated(data: Any, translator: Path | None, languages: str | None, progress: Any) -> Any:
    """Translate-train: ``data`` translated from SOURCE into TARGET with the local model ``translator``."""
    source, sep, target = (languages or "").partition(":")
    if translator is None or not (sep and source and target):
        raise InputError("translate-train needs both --translator DIR and --translate SOURCE:TARGET (e.g. en:uk)")
    from affectlab.encoders.translation import open_translator, translate_dataset

    return translate_dataset(data, open_translator(translator), source, target, progress=progress)
