"""``affectlab build-default``: rebuild the embedded default heads from the datasets."""

from __future__ import annotations

from pathlib import Path

import typer

from affectlab.cli.options import DataDir, Json
from affectlab.cli.output import print_json, stage_progress, stdout


def build_default_command(
    data_dir: Path | None = DataDir,
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Where to write the heads (default: inside the package)."
    ),
    heads: list[str] | None = typer.Option(
        None, "--head", help="Only this head (repeatable): ekman, goemotions, emocontext."
    ),
    english_encoder: Path | None = typer.Option(
        None,
        "--english-encoder",
        help="Add a fine-tuned English encoder to the goemotions head, stored int8 (needs the hf extra): a saved "
        "`affectlab train hf:...` GoEmotions model, or a Hugging Face encoder directory to fine-tune first "
        "(hours on a CPU).",
    ),
    as_json: bool = Json,
) -> None:
    """Train the default heads (embedding + n-gram ensembles) from the datasets and record their test scores."""
    from affectlab.detectors.default import HEADS_DIR, TAXONOMIES
    from affectlab.evaluation.default_build import build_default

    target = out or HEADS_DIR
    with stage_progress(not as_json) as progress:
        record = build_default(
            data_dir, target, tuple(heads or TAXONOMIES), progress=progress, english_encoder=english_encoder
        )
    if as_json:
        print_json(record)
        return
    for name, head in record["heads"].items():
        scores = ", ".join(f"{ds} {s['metric']} {s['test']:.3f}" for ds, s in head["scores"].items())
        stdout.print(f"{name}: {scores} ({head['build_seconds']:.0f} s)", highlight=False)
    stdout.print(f"heads written to {target}", highlight=False)
