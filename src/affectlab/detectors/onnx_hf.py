"""``hf-onnx``: a fine-tuned ``hf`` detector (encoder, pooling and head) exported to ONNX and quantized to int8,
served by ONNX Runtime with its ``tokenizers`` tokenizer: no torch. Made from a saved ``hf`` model by
``affectlab export-onnx MODEL --out DIR`` (which needs torch once, for the export); it cannot be trained itself.

Texts (and, for dialogue models, their earlier turns joined by the separator token, as the text pair) are tokenised
as the ``hf`` detector does, sorted by length into batches, and run by ONNX Runtime; the graph gives the head's
logits, turned into probabilities in numpy. The saved directory holds ``encoder/model.int8.onnx`` and
``encoder/tokenizer.json`` under the model's checksums.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy.special import expit, softmax

from affectlab.detectors.base import Detector
from affectlab.detectors.batch import Inputs
from affectlab.detectors.capabilities import Capabilities
from affectlab.detectors.serialization import FILE_PREFIX
from affectlab.errors import InputError

ONNX_FILE = "encoder/model.int8.onnx"
TOKENIZER_FILE = "encoder/tokenizer.json"


class OnnxHFDetector(Detector):
    """An exported fine-tuned encoder classifier run by ONNX Runtime."""

    name = "hf-onnx"
    description = "a fine-tuned hf detector exported to ONNX int8 (export-onnx), run without torch"
    defaults = {"max_length": 128, "batch_size": 32}

    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        raise InputError("an hf-onnx model is exported from a trained hf model (affectlab export-onnx), not trained")

    def _predict_proba(self, inputs: Inputs) -> np.ndarray:
        encodings = self._encode(inputs)
        logits = np.zeros((len(encodings), len(self.label_space)), dtype=np.float32)
        order = np.argsort([len(e.ids) for e in encodings], kind="stable")
        for start in range(0, len(order), self.params["batch_size"]):
            rows = order[start : start + self.params["batch_size"]]
            logits[rows] = self._logits([encodings[i] for i in rows])
        logits = logits.astype(np.float64)
        return expit(logits) if self.label_space.multi_label else softmax(logits, axis=1)

    def _capabilities(self) -> Capabilities:
        """Context when the exported model was trained with it."""
        return Capabilities(reads_context=self.uses_context_)

    def _encode(self, inputs: Inputs) -> list[Any]:
        if not self.uses_context_:
            return self.tokenizer_.encode_batch(inputs.texts)
        separator = f" {self.separator_} "
        return self.tokenizer_.encode_batch(
            [(text, separator.join(turns)) for text, turns in zip(inputs.texts, inputs.contexts, strict=True)]
        )

    def _logits(self, batch: list[Any]) -> np.ndarray:
        width = max(len(e.ids) for e in batch)
        feeds = {}
        for name, field in (("input_ids", "ids"), ("attention_mask", "attention_mask"), ("token_type_ids", "type_ids")):
            if name in self.input_names_:
                padded = np.zeros((len(batch), width), dtype=np.int64)
                if name == "input_ids":
                    padded[:] = self.pad_id_
                for i, encoding in enumerate(batch):
                    values = getattr(encoding, field)
                    padded[i, : len(values)] = values
                feeds[name] = padded
        return self.session_.run(None, feeds)[0]

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        state = {
            "uses_context": self.uses_context_,
            "input_names": self.input_names_,
            "pad_id": self.pad_id_,
            "separator": self.separator_,
            "exported_from": self.exported_from_,
        }
        files = {FILE_PREFIX + ONNX_FILE: self.onnx_bytes_, FILE_PREFIX + TOKENIZER_FILE: self.tokenizer_bytes_}
        return state, files

    def _set_state(self, state: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        self.uses_context_ = bool(state["uses_context"])
        self.input_names_ = list(state["input_names"])
        self.pad_id_ = int(state["pad_id"])
        self.separator_ = str(state["separator"])
        self.exported_from_ = dict(state.get("exported_from") or {})
        self._open(arrays[FILE_PREFIX + ONNX_FILE], arrays[FILE_PREFIX + TOKENIZER_FILE])

    def _open(self, onnx_bytes: np.ndarray, tokenizer_bytes: np.ndarray) -> None:
        """The ONNX Runtime session and the tokenizer, from the saved files' bytes."""
        import onnxruntime as ort
        from tokenizers import Tokenizer

        from affectlab.encoders.onnx_encoder import cpu_session_options

        options = cpu_session_options()
        self.onnx_bytes_, self.tokenizer_bytes_ = onnx_bytes, tokenizer_bytes
        self.session_ = ort.InferenceSession(onnx_bytes.tobytes(), options, providers=["CPUExecutionProvider"])
        self.tokenizer_ = Tokenizer.from_str(tokenizer_bytes.tobytes().decode("utf-8"))
        self.tokenizer_.enable_truncation(self.params["max_length"])
        self.tokenizer_.no_padding()


def export_hf(model: Detector, directory: str | os.PathLike[str]) -> OnnxHFDetector:
    """Export a trained ``hf`` detector to an ``hf-onnx`` one (int8) and save it in ``directory``; needs torch."""
    import json
    import tempfile
    from pathlib import Path

    from affectlab.detectors.hf import HFEncoderDetector
    from affectlab.encoders.onnx_export import export_classifier

    if not isinstance(model, HFEncoderDetector):
        raise InputError(f"export-onnx takes a saved hf model, not {model.name}")
    tokenizer = model.tokenizer_
    if not getattr(tokenizer, "is_fast", False):
        raise InputError("export-onnx needs a model with a fast (tokenizers) tokenizer")
    names = [name for name in tokenizer.model_input_names if name in ("input_ids", "attention_mask", "token_type_ids")]
    with tempfile.TemporaryDirectory() as tmp:
        onnx_path = Path(tmp) / "model.int8.onnx"
        export_classifier(model.model_, names, onnx_path)
        tokenizer_json = json.loads(tokenizer.backend_tokenizer.to_str())
        onnx_bytes = np.frombuffer(onnx_path.read_bytes(), dtype=np.uint8)
    text = json.dumps(tokenizer_json, ensure_ascii=False).encode("utf-8")
    assert model.decision_ is not None  # a trained model has one
    state = {
        "uses_context": model.uses_context_,
        "input_names": names,
        "pad_id": int(tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0),
        "separator": tokenizer.sep_token or "|",
        "exported_from": {"model": model.params["model"], "pooling": model.params["pooling"]},
    }
    config = {
        "params": {"max_length": model.params["max_length"], "batch_size": model.params["eval_batch_size"]},
        "label_space": model.label_space.to_dict(),
        "decision": model.decision_.to_dict(),
        "state": state,
        "capabilities": model.capabilities.to_dict(),
    }
    files = {FILE_PREFIX + ONNX_FILE: onnx_bytes, FILE_PREFIX + TOKENIZER_FILE: np.frombuffer(text, dtype=np.uint8)}
    exported = OnnxHFDetector.from_saved(config, files)  # restored from the exported files, as a load would
    exported.save(directory)
    return exported
