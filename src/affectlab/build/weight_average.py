"""A fine-tuning run averaged, weight by weight, with the run it was continued from (WiSE-FT: Wortsman et al.,
"Robust fine-tuning of zero-shot models", 2022): the average keeps much of what the continued training taught and
much of what the start knew, without training again.

Both folders are fine-tuning runs (:mod:`affectlab.encoders.checkpoint`'s layout: the encoder's and the heads'
safetensors, ``config.json``, ``training.json``) of the same architecture. The average is written as a run of its
own, so ``onnx_export.export_encoder`` and ``build-default`` take it as they take any run; its ``training.json`` is
the tuned run's with ``weights_averaged`` added (both records and the share). Written by hand because it is one
weighted mean of two arrays per tensor: merging tools (mergekit) take whole Hugging Face model folders, YAML and
torch for the same arithmetic.

    python -m affectlab.build.weight_average START TUNED OUT [--tuned-share 0.5]
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np

from affectlab.encoders.checkpoint import ENCODER_CONFIG, ENCODER_WEIGHTS, HEADS_WEIGHTS, TRAINING_RECORD
from affectlab.errors import InputError


def average_tensors(start: dict[str, np.ndarray], tuned: dict[str, np.ndarray], tuned_share: float) -> dict:
    """``(1 - tuned_share) * start + tuned_share * tuned`` for every tensor, in float32; the two must have the same
    names and shapes."""
    if start.keys() != tuned.keys():
        raise InputError(f"the two runs hold different tensors ({len(start)} and {len(tuned)}); not the same model")
    averaged = {}
    for name, first in start.items():
        if first.shape != tuned[name].shape:
            raise InputError(f"tensor {name!r} has shape {first.shape} in one run and {tuned[name].shape} in the other")
        mixed = (1.0 - tuned_share) * first.astype(np.float64) + tuned_share * tuned[name].astype(np.float64)
        averaged[name] = mixed.astype(np.float32)
    return averaged


def average_runs(start_dir: str | Path, tuned_dir: str | Path, out_dir: str | Path, tuned_share: float = 0.5) -> Path:
    """Write the run whose weights are ``start_dir``'s and ``tuned_dir``'s averaged with ``tuned_share`` for the
    tuned one (its config and record from ``tuned_dir``) to ``out_dir``; returns ``out_dir``."""
    from safetensors.numpy import load_file, save_file

    if not 0.0 <= tuned_share <= 1.0:
        raise InputError(f"--tuned-share must be between 0 and 1, not {tuned_share}")
    start, tuned, out = Path(start_dir), Path(tuned_dir), Path(out_dir)
    for run in (start, tuned):
        missing = [name for name in (ENCODER_WEIGHTS, HEADS_WEIGHTS, TRAINING_RECORD) if not (run / name).is_file()]
        if missing:
            raise InputError(f"{str(run)!r} is not a fine-tuning run (no {', '.join(missing)})")
    out.mkdir(parents=True, exist_ok=True)
    for name in (ENCODER_WEIGHTS, HEADS_WEIGHTS):
        save_file(average_tensors(load_file(start / name), load_file(tuned / name), tuned_share), out / name)
    shutil.copyfile(tuned / ENCODER_CONFIG, out / ENCODER_CONFIG)
    record = json.loads((tuned / TRAINING_RECORD).read_text(encoding="utf-8"))
    record["weights_averaged"] = {
        "tuned_share": tuned_share,
        "start": {"dir": str(start), "record": json.loads((start / TRAINING_RECORD).read_text(encoding="utf-8"))},
        "tuned_dir": str(tuned),
    }
    (out / TRAINING_RECORD).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> None:
    """The command line: ``START TUNED OUT [--tuned-share 0.5]``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("start", help="the run the tuned one was continued from")
    parser.add_argument("tuned", help="the continued run")
    parser.add_argument("out", help="the folder to write the averaged run to")
    parser.add_argument("--tuned-share", type=float, default=0.5, help="the tuned run's weight (default 0.5)")
    args = parser.parse_args(argv)
    try:
        print(average_runs(args.start, args.tuned, args.out, args.tuned_share))
    except InputError as exc:
        parser.exit(2, f"error: {exc}\n")


if __name__ == "__main__":
    main()
