"""Int8 activations with one scale per token row, so that a text's vector does not depend on its batch.

ONNX Runtime's dynamic quantization (``quantize_dynamic``) puts a ``DynamicQuantizeLinear`` before each int8
matrix product: one scale and zero point for the whole activation tensor, that is for every token of every text in
the batch. A text's vector then depends on the texts batched with it: the same text alone and in a file could get
different labels (issue 22). This rewrite keeps the int8 weights and the integer products and quantizes each token
row on its own (symmetric, ``scale = max|row| / 127``, stored as uint8 around 128):

    x (..., k) -> scale (..., 1) -> QuantizeLinear per row -> MatMulIntegerToFloat (weight scales) -> * row scale

Integer products are exact and every other operation works row by row, so each token's output, and with it each
text's vector, is the same bit for bit in any batch (``tests/test_row_int8.py``, and on real texts
``tests/test_determinism.py``). One scale per token is also closer to float32 activations than one scale per batch
(``benchmarks/models/row_int8.py``).

Written by hand because ONNX Runtime has no per-row dynamic quantization: its ``DynamicQuantizeLinear`` is per
tensor, ``MatMulIntegerToFloat`` takes one activation scale (its graph fusion reads a row-scale tensor as a single
scale, which is why the row scale is applied after the product here), and ``MatMulNBits``' int8 path is slower
than float32 on this CPU. Build-time only: it needs the ``onnx`` package (the ``hf`` extra).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

MS_DOMAIN = "com.microsoft"
ZERO_POINT = 128
"""Symmetric int8 values in [-127, 127] stored as uint8 around 128: ONNX Runtime's fast int8 kernels take uint8
activations and a zero point per tensor, which this constant one is."""


def _constants(graph: Any, opset: int) -> None:
    """The shared constants of the rewritten graph."""
    from onnx import numpy_helper

    values: dict[str, np.ndarray] = {
        "row_int8/inv127": np.array(1 / 127, np.float32),
        "row_int8/eps": np.array(1e-12, np.float32),
        "row_int8/one": np.array(1.0, np.float32),
        "row_int8/zero_point": np.array(ZERO_POINT, np.uint8),
        "row_int8/flat": np.array([-1], np.int64),
    }
    if opset >= 18:  # ReduceMax/ReduceMin read their axes from an input
        values["row_int8/last"] = np.array([-1], np.int64)
    graph.initializer.extend(numpy_helper.from_array(value, name) for name, value in values.items())


def _reduce(op: str, source: str, target: str, opset: int) -> Any:
    """``op`` over the last axis, keeping it (opset 18 moved ``axes`` from an attribute to an input)."""
    from onnx import helper

    if opset >= 18:
        return helper.make_node(op, [source, "row_int8/last"], [target], keepdims=1)
    return helper.make_node(op, [source], [target], axes=[-1], keepdims=1)


def _quantize_rows(node: Any, opset: int, width: int) -> list[Any]:
    """Nodes that replace one ``DynamicQuantizeLinear`` of an input ``(..., width)``: its outputs become the uint8
    values in the input's shape and the row scales ``(..., 1)`` (its zero-point output is no longer read).
    ``QuantizeLinear`` takes one scale per row only along an axis of a 2-D view, hence the reshapes."""
    from onnx import TensorProto, helper

    x, (quantized, scale, _), p = node.input[0], node.output, node.name + "/row_int8"
    make = helper.make_node
    return [
        _reduce("ReduceMax", x, p + "/high", opset),
        _reduce("ReduceMin", x, p + "/low", opset),
        make("Neg", [p + "/low"], [p + "/minus_low"]),
        make("Max", [p + "/high", p + "/minus_low", "row_int8/eps"], [p + "/absmax"]),
        make("Mul", [p + "/absmax", "row_int8/inv127"], [scale]),
        make("Constant", [], [p + "/rows_shape"], value_ints=[-1, width]),
        make("Reshape", [x, p + "/rows_shape"], [p + "/rows"]),
        make("Reshape", [scale, "row_int8/flat"], [p + "/row_scale"]),
        make("Shape", [p + "/row_scale"], [p + "/n_rows"]),
        make("ConstantOfShape", [p + "/n_rows"], [p + "/row_zero_point"],
             value=helper.make_tensor("zp", TensorProto.UINT8, [1], [ZERO_POINT])),
        make("QuantizeLinear", [p + "/rows", p + "/row_scale", p + "/row_zero_point"], [p + "/quantized_rows"],
             axis=0),
        make("Shape", [x], [p + "/shape"]),
        make("Reshape", [p + "/quantized_rows", p + "/shape"], [quantized]),
    ]  # fmt: skip


def _product(node: Any, output: str, weight_scale: str) -> list[Any]:
    """Nodes that replace ``MatMulInteger -> Cast -> Mul(row scale x weight scale)``: the int8 product scaled by the
    weight scales in one kernel, then by the row scales."""
    from onnx import helper

    quantized, weight, _, weight_zero_point = node.input
    p = node.name + "/row_int8"
    return [
        helper.make_node(
            "MatMulIntegerToFloat",
            [quantized, weight, "row_int8/one", weight_scale, "row_int8/zero_point", weight_zero_point],
            [p + "/product"],
            domain=MS_DOMAIN,
        ),
        helper.make_node("Mul", [p + "/product", quantized_scale_name(quantized)], [output]),
    ]


def quantized_scale_name(quantized: str) -> str:
    """The scale output that ``quantize_dynamic`` names beside a quantized activation ``<x>_quantized``."""
    return quantized[: -len("_quantized")] + "_scale"


def per_row_activations(model: Any) -> Any:
    """Rewrite a ``quantize_dynamic`` graph (``onnx.ModelProto``, changed in place and returned) so that every
    activation is quantized per token row. Raises ``ValueError`` on a graph of another shape."""
    from onnx import helper

    graph = model.graph
    opset = next((entry.version for entry in model.opset_import if entry.domain in ("", "ai.onnx")), 0)
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    consumers: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    quantizers = {node.output[0]: node for node in graph.node if node.op_type == "DynamicQuantizeLinear"}
    replaced: dict[str, list[Any]] = {}
    dropped: set[str] = set()
    for node in graph.node:
        if node.op_type == "DynamicQuantizeLinear":
            replaced[node.name] = _quantize_rows(node, opset, _input_width(node, consumers, initializers))
        elif node.op_type == "MatMulInteger":
            replaced[node.name], redundant = _rewrite_product(node, consumers, quantizers, initializers)
            dropped |= redundant
    if not replaced:
        raise ValueError("the graph has no dynamically quantized matrix products")
    nodes = [new for node in graph.node if node.name not in dropped for new in replaced.get(node.name, [node])]
    _constants(graph, opset)
    del graph.node[:]
    graph.node.extend(_live(nodes, {output.name for output in graph.output}))
    if not any(entry.domain == MS_DOMAIN for entry in model.opset_import):
        model.opset_import.append(helper.make_opsetid(MS_DOMAIN, 1))
    return model


def _rewrite_product(node: Any, consumers: dict[str, list[Any]], quantizers: dict[str, Any],
                     initializers: dict[str, Any]) -> tuple[list[Any], set[str]]:  # fmt: skip
    """The replacement of one ``MatMulInteger`` chain and the names of the nodes it makes redundant."""
    quantized, weight = node.input[0], node.input[1]
    chain = consumers.get(node.output[0], [])
    cast = chain[0] if len(chain) == 1 and chain[0].op_type == "Cast" else None
    mul = consumers.get(cast.output[0], []) if cast is not None else []
    if cast is None or len(mul) != 1 or mul[0].op_type != "Mul" or quantized not in quantizers:
        raise ValueError(f"{node.name}: not a MatMulInteger -> Cast -> Mul chain of quantize_dynamic")
    weight_scale = weight[: -len("_quantized")] + "_scale"
    if weight_scale not in initializers or weight not in initializers:
        raise ValueError(f"{node.name}: its weight {weight!r} has no scale {weight_scale!r}")
    return _product(node, mul[0].output[0], weight_scale), {cast.name, mul[0].name}


def _input_width(node: Any, consumers: dict[str, list[Any]], initializers: dict[str, Any]) -> int:
    """The last dimension of a ``DynamicQuantizeLinear``'s input: the rows of the weights its products read."""
    widths = {int(initializers[reader.input[1]].dims[0]) for reader in consumers.get(node.output[0], [])
              if reader.op_type == "MatMulInteger" and reader.input[1] in initializers}  # fmt: skip
    if len(widths) != 1:
        raise ValueError(f"{node.name}: its products do not agree on the input width ({sorted(widths)})")
    return widths.pop()


def _live(nodes: list[Any], outputs: set[str]) -> list[Any]:
    """``nodes`` without those whose outputs nothing reads (the old scale products), in their order."""
    while True:
        read = outputs | {name for node in nodes for name in node.input}
        kept = [node for node in nodes if any(name in read for name in node.output)]
        if len(kept) == len(nodes):
            return kept
        nodes = kept


def per_row_file(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """Write the per-row rewrite of the ``quantize_dynamic`` ONNX file ``source`` to ``target``."""
    import onnx

    onnx.save(per_row_activations(onnx.load(str(source))), str(target))
