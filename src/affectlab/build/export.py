"""The shared encoder of the shipped default, fine-tuned on the datasets (:mod:`affectlab.build.encoder`, torch)
and exported int8 to ONNX (:mod:`affectlab.encoders.onnx_export`) where the heads and the served detector read it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from affectlab.build.encoder import CONTINUED, CONTINUED_SOURCES, SOURCES, EncoderRecipe, fine_tune_default_encoder
from affectlab.build.heads import ENCODER
from affectlab.io.progress import Progress


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
    :data:`~affectlab.build.encoder.CONTINUED` on
    :data:`~affectlab.build.encoder.CONTINUED_SOURCES`) and export it int8 to ``encoder_dir``; returns the
    training record."""
    from affectlab.encoders.onnx_export import export_encoder
    from affectlab.encoders.sentence import forget_encoder

    recipe, sources = (CONTINUED, CONTINUED_SOURCES) if continue_from is not None else (EncoderRecipe(), SOURCES)
    with tempfile.TemporaryDirectory() as tmp:
        trained = Path(trained_dir) if trained_dir is not None else Path(tmp) / "trained"
        record = fine_tune_default_encoder(
            trained, data_dir, recipe, sources, progress=progress, resume=resume, continue_from=continue_from
        )
        progress("exporting the fine-tuned encoder to ONNX and quantizing it to int8")
        export_encoder(trained, encoder_dir)
    forget_encoder(str(encoder_dir))
    forget_encoder(ENCODER)
    return record
