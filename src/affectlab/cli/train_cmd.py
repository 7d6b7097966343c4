"""``affectlab train MODEL --dataset D --out DIR``."""

from __future__ import annotations

from pathlib import Path

import typer

from affectlab.cli.options import DataDir, Json, Params, UserFileColumns, optional, parse_params, takes_option_groups
from affectlab.cli.output import print_json, stage_progress, stdout, styled
from affectlab.datasets import FileOptions
from affectlab.evaluation.jobs import train_and_save

ModelOption = typer.Argument(
    ...,
    help="Model kind: keywords, tfidf-lr, tfidf-rf, embedding-lr, ensemble, translate-test, hf:ENCODER (a local "
    "Hugging Face encoder directory or hub id to fine-tune) or llm:MODEL (prompting; -p base_url=URL for a "
    "server).",
)
OutOption = typer.Option(None, "--out", "-o", help="Where to save the model (default: models/MODEL-DATASET).")
TranslatorOption = optional(
    "--translator",
    "Translate-train: a local MarianMT/NLLB directory; every split is translated (and cached) before training.",
)
TranslateOption = optional("--translate", "With --translator: SOURCE:TARGET languages, e.g. en:uk.")


@takes_option_groups
def train(
    model: str = ModelOption,
    dataset: str = typer.Option(..., "--dataset", "-d", help="Dataset name or a labelled user file/directory."),
    out: Path | None = OutOption,
    data_dir: Path | None = DataDir,
    params: list[str] | None = Params,
    translator: Path | None = TranslatorOption,
    translate: str | None = TranslateOption,
    columns: FileOptions = UserFileColumns,
    as_json: bool = Json,
) -> None:
    """Train a detector on the train split, tune its thresholds on dev, and save it (JSON + npz)."""
    with stage_progress(not as_json) as progress:
        result = train_and_save(
            model, dataset, out, params=parse_params(params), data_dir=data_dir, file_options=columns,
            translator=translator, translate=translate, progress=progress,
        )  # fmt: skip
    if as_json:
        print_json(result)
    else:
        stdout.print(
            styled("trained {} on {} ({} texts, dev {}) in {:.1f} s; saved to {}", model, result["dataset"],
                   result["n_train"], result["n_dev"], result["seconds"], result["out"])
        )  # fmt: skip
