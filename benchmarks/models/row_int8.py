"""Which int8 activations make a text's scores independent of its batch without losing speed or fidelity (issue 22).

Three graphs with the same int8 weights (the default's encoder as ONNX Runtime's ``quantize_dynamic`` wrote it):
``per-tensor`` (that graph: one activation scale per batch tensor), ``per-row`` (:mod:`affectlab.encoders.row_int8`:
one scale per token row, what ships now) and ``float activations`` (the int8 weights dequantized to float32 and no
activation quantization: the reference for fidelity, since the float32 fine-tuned weights are not on this machine).
For each: texts/s over length-sorted batches of 32 (3,000 test texts; the three graphs interleaved in five rounds:
the median, and the median of each round's ratio to ``per-tensor``, since this VM's speed drifts within minutes),
the share of texts whose vector is bit-for-bit the same alone as in the whole split, the cosine to the
float-activation vectors, and the ``ekman`` head's test macro-F1 with thresholds tuned on dev per graph.

    git show 7df7b07:src/affectlab/encoders/e5_affect/model.int8.onnx > /tmp/dynamic.onnx
    python benchmarks/models/row_int8.py --dynamic /tmp/dynamic.onnx --data-dir ../shared/data

Writes ``benchmarks/results/row_int8.json``. Needs the ``onnx`` package (``hf`` extra).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper
from scipy.special import expit

from affectlab.datasets import resolve_dataset
from affectlab.encoders.onnx_encoder import CONFIG_FILE, HEADS_FILE, ONNX_FILE, OnnxEncoder
from affectlab.encoders.row_int8 import per_row_file
from affectlab.encoders.sentence import E5_AFFECT_DIR
from affectlab.labels import EKMAN
from affectlab.metrics.classification import primary_score
from affectlab.metrics.thresholds import fit_decision

DATASETS = ("emobench-ua", "semeval2025-eng", "semeval2025-esp")
ROUNDS = 5
SPEED_TEXTS = 3000


def float_activations(source: str, target: str) -> None:
    """The ``quantize_dynamic`` graph ``source`` with each int8 product replaced by a float32 product with the
    dequantized weights: the same weights, no activation quantization."""
    model = onnx.load(source)
    graph = model.graph
    weights = {tensor.name: tensor for tensor in graph.initializer}
    inputs = {node.output[0]: node.input[0] for node in graph.node if node.op_type == "DynamicQuantizeLinear"}
    readers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node)
    replace, drop = {}, set()
    for node in graph.node:
        if node.op_type != "MatMulInteger":
            continue
        quantized, weight, _, zero_point = node.input
        cast = readers[node.output[0]][0]
        mul = readers[cast.output[0]][0]
        stem = weight[: -len("_quantized")]
        values = numpy_helper.to_array(weights[weight]).astype(np.float32)
        values -= numpy_helper.to_array(weights[zero_point]).astype(np.float32)
        values *= numpy_helper.to_array(weights[stem + "_scale"]).astype(np.float32)
        graph.initializer.append(numpy_helper.from_array(values, stem + "_float"))
        replace[node.name] = helper.make_node("MatMul", [inputs[quantized], stem + "_float"], [mul.output[0]])
        drop |= {cast.name, mul.name}
    nodes = [replace.get(node.name, node) for node in graph.node
             if node.name not in drop and node.op_type != "DynamicQuantizeLinear"]  # fmt: skip
    outputs = {output.name for output in graph.output}
    while True:  # drop what nothing reads (the scale products)
        read = outputs | {name for node in nodes for name in node.input}
        kept = [node for node in nodes if any(name in read for name in node.output)]
        if len(kept) == len(nodes):
            break
        nodes = kept
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.save(model, target)


def encoder_dir(root: Path, name: str, graph: str) -> Path:
    """A copy of the shipped encoder directory with ``graph`` as its ONNX file."""
    folder = root / name
    folder.mkdir()
    for file in (CONFIG_FILE, HEADS_FILE):
        shutil.copy(Path(E5_AFFECT_DIR) / file, folder / file)
    shutil.copy(graph, folder / ONNX_FILE)
    return folder


def texts_per_second(encoder: OnnxEncoder, texts: list[str]) -> float:
    started = time.perf_counter()
    encoder.encode(texts)
    return len(texts) / (time.perf_counter() - started)


def set_entry(encoder: OnnxEncoder, vectors: dict, reference: np.ndarray, spec, data, head) -> dict:
    """One graph on one dataset: batch independence, fidelity and the ekman head's test score."""
    test = vectors["test"]
    sample = list(data["test"]["text"])[:300]
    alone = np.vstack([encoder.encode([text]) for text in sample])
    cosine = (test * reference).sum(1) / np.linalg.norm(test, axis=1) / np.linalg.norm(reference, axis=1)
    space, metric, (weight, bias) = spec.label_space, spec.primary_metric, head
    columns = [EKMAN.labels.index(label) for label in space.labels]
    probs = {split: expit(vectors[split] @ weight.T + bias)[:, columns] for split in ("dev", "test")}
    decision = fit_decision("thresholds", probs["dev"], space.encode(data["dev"]["labels"]), space, metric)
    score = primary_score(metric, space.encode(data["test"]["labels"]), decision.apply(probs["test"], space), space)
    return {
        "n_test": len(test),
        "alone_equals_batched": round(float((alone == test[: len(sample)]).all(axis=1).mean()), 4),
        "cosine_to_float_activations_mean": round(float(cosine.mean()), 5),
        "cosine_to_float_activations_min": round(float(cosine.min()), 5),
        f"ekman_head_test_{metric}": round(score, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dynamic", required=True, help="the quantize_dynamic graph (the encoder before issue 22)")
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "row_int8.json"))
    args = parser.parse_args()
    splits = {name: resolve_dataset(name, args.data_dir) for name in DATASETS}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        per_row_file(args.dynamic, root / "row.onnx")
        float_activations(args.dynamic, str(root / "float.onnx"))
        graphs = {"per-tensor": args.dynamic, "per-row": root / "row.onnx", "float activations": root / "float.onnx"}
        encoders = {name: OnnxEncoder(encoder_dir(root, name.replace(" ", "_"), str(graph)), threads=2)
                    for name, graph in graphs.items()}  # fmt: skip
        speed_texts = [text for _, data in splits.values() for text in data["test"]["text"]][:SPEED_TEXTS]
        for encoder in encoders.values():
            encoder.encode(speed_texts[:64])  # load and warm up
        speeds: dict[str, list[float]] = {name: [] for name in encoders}
        for _ in range(ROUNDS):
            for name, encoder in encoders.items():
                speeds[name].append(texts_per_second(encoder, speed_texts))
        vectors = {name: {ds: {split: encoder.encode(list(data[split]["text"])) for split in ("dev", "test")}
                          for ds, (_, data) in splits.items()} for name, encoder in encoders.items()}  # fmt: skip
        head = encoders["per-row"].heads()["ekman"]
        result = {"date": time.strftime("%Y-%m-%d"), "texts_for_speed": len(speed_texts), "graphs": {}}
        for name, encoder in encoders.items():
            sets = {ds: set_entry(encoder, vectors[name][ds], vectors["float activations"][ds]["test"], spec, data,
                                  head) for ds, (spec, data) in splits.items()}  # fmt: skip
            paired = [mine / base for mine, base in zip(speeds[name], speeds["per-tensor"], strict=True)]
            result["graphs"][name] = {"texts_per_second": round(statistics.median(speeds[name]), 1),
                                      "texts_per_second_rounds": [round(s, 1) for s in speeds[name]],
                                      "speed_vs_per_tensor_median_of_rounds": round(statistics.median(paired), 3),
                                      "sets": sets}  # fmt: skip
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
