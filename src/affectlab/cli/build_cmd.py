"""``affectlab build-default``: rebuild the embedded default heads from the datasets."""

from __future__ import annotations

from pathlib import Path

import typer

from affectlab.cli.options import DataDir, Json
from affectlab.cli.output import print_json, stage_progress, stdout, styled

OutOption = typer.Option(None, "--out", "-o", help="Where to write the heads (default: inside the package).")
HeadsOption = typer.Option(None, "--head", help="Only this head (repeatable): ekman, goemotions, emocontext.")
EnglishEncoderOption = typer.Option(
    None,
    "--english-encoder",
    help="Add a fine-tuned English encoder to the goemotions head, stored int8 (needs the hf extra): a saved "
    "`affectlab train hf:...` GoEmotions model, or a Hugging Face encoder directory to fine-tune first "
    "(hours on a CPU).",
)
FineTuneOption = typer.Option(
    False,
    "--fine-tune",
    help="First fine-tune the shared encoder (multilingual-e5-small) on the datasets and export it int8 to "
    "ONNX (needs the hf extra; about three hours on 2 CPU cores, in epochs that --resume goes on from). "
    "Without it the heads read the installed encoder.",
)
EncoderOutOption = typer.Option(
    None, "--encoder-out", help="With --fine-tune: where to write the encoder (default: inside the package)."
)
TrainedDirOption = typer.Option(
    None, "--trained-dir", help="With --fine-tune: keep the float32 fine-tuned weights here (for benchmarks)."
)
ResumeOption = typer.Option(
    False,
    "--resume",
    help="With --fine-tune: go on from the last checkpoint of a run in --trained-dir (saved every 200 steps and "
    "after each epoch).",
)

ContinueFromOption = typer.Option(
    None,
    "--continue-from",
    help="With --fine-tune: start from the fine-tuned weights of a finished run (its --trained-dir, or the shipped "
    "encoder as `python -m affectlab.build.shipped_run DIR` writes it) and train one more epoch at a lower learning "
    "rate, with every GoEmotions disgust comment, edited texts, denials and \"not A but B\" rows added (about an "
    "hour on 2 CPU cores, then about 50 minutes for the heads).",
)


def build_default_command(
    data_dir: Path | None = DataDir,
    out: Path | None = OutOption,
    heads: list[str] | None = HeadsOption,
    english_encoder: Path | None = EnglishEncoderOption,
    fine_tune: bool = FineTuneOption,
    encoder_out: Path | None = EncoderOutOption,
    trained_dir: Path | None = TrainedDirOption,
    resume: bool = ResumeOption,
    continue_from: Path | None = ContinueFromOption,
    as_json: bool = Json,
) -> None:
    """Train the default heads (fine-tuned encoder + n-gram ensembles) and record their test scores.

    With --fine-tune, the shared encoder is fine-tuned and exported first."""
    from affectlab.build.jobs import build_default
    from affectlab.detectors.default import HEADS_DIR, TAXONOMIES
    from affectlab.errors import InputError

    if not fine_tune and (encoder_out is not None or trained_dir is not None or continue_from is not None):
        raise InputError("--encoder-out, --trained-dir and --continue-from go with --fine-tune")
    target = out or HEADS_DIR
    with stage_progress(not as_json) as progress:
        record = build_default(
            data_dir, target, tuple(heads or TAXONOMIES), progress=progress, english_encoder=english_encoder,
            fine_tune=fine_tune, encoder_dir=encoder_out, trained_dir=trained_dir, resume=resume,
            continue_from=continue_from,
        )  # fmt: skip
    if as_json:
        print_json(record)
        return
    for name, head in record["heads"].items():
        scores = ", ".join(f"{ds} {s['metric']} {s['test']:.3f}" for ds, s in head["scores"].items())
        stdout.print(f"{name}: {scores} ({head['build_seconds']:.0f} s)", highlight=False)
    stdout.print(styled("heads written to {}", target))
