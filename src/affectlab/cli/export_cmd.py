"""``affectlab export-onnx``: a saved ``hf`` model exported to an ``hf-onnx`` one (int8, runs without torch)."""

from __future__ import annotations

from pathlib import Path

import typer

from affectlab.cli.options import Json
from affectlab.cli.output import print_json, stdout, styled


def export_onnx_command(
    model: Path = typer.Argument(..., help="A saved hf model directory (affectlab train hf:...)."),
    out: Path = typer.Option(..., "--out", "-o", help="Where to save the exported model."),
    as_json: bool = Json,
) -> None:
    """Export a fine-tuned hf model to ONNX int8, served by ONNX Runtime without torch (needs torch once)."""
    from affectlab.detectors import read_detector
    from affectlab.detectors.onnx_hf import export_hf

    exported = export_hf(read_detector(model), out)
    size = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
    report = {"model": exported.name, "out": str(out), "bytes": size, "labels": list(exported.label_space.labels)}
    if as_json:
        print_json(report)
        return
    stdout.print(styled("exported to {} ({:.1f} MB, runs without torch)", out, size / 1e6))
