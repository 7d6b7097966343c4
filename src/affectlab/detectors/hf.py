"""``hf``: fine-tune any Hugging Face encoder (a local model directory or a hub id) with a linear head.

Multi-label spaces get a sigmoid per label trained with binary cross-entropy (GoEmotions section 5.2); single-label
spaces (EmoContext) a softmax with cross-entropy. Dialogue context is encoded as the tokenizer's text pair: the
last turn is the text, the earlier turns, joined by the tokenizer's separator token, are the pair. ``preset``
applies EmoBench-UA App. H: the learning rate tuned there for that encoder (Table 6), batch 64, up to 50 epochs and
early stopping with patience 3 on dev; explicit parameters win over a preset.

Early stopping needs dev data inside ``fit``, which the shared protocol does not pass. This class alone takes it as
a keyword, ``fit(X, Y, space, validation=(X_dev, Y_dev), progress=callback)``, and says so in its capabilities'
``accepts_validation``; :func:`affectlab.evaluation.training.train_detector` passes its dev split to such detectors,
so no other detector's signature changes. Thresholds are still tuned afterwards by the shared step.

Saved models hold the fine-tuned encoder as safetensors plus its Hugging Face config and tokenizer files under
``encoder/`` in the model directory, each covered by a SHA-256 in ``config.json`` (see
:mod:`affectlab.detectors.serialization`); the head is in ``arrays.npz``. torch and transformers (the ``hf`` extra)
are imported only when a model is trained or loaded.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import numpy as np
from scipy.special import expit, softmax

from affectlab.detectors.base import Detector
from affectlab.detectors.batch import Inputs, as_inputs
from affectlab.detectors.capabilities import Capabilities, KindFacts
from affectlab.detectors.serialization import FILE_PREFIX
from affectlab.errors import InputError, ModelFileError
from affectlab.extras import require
from affectlab.labels import LabelSpace
from affectlab.metrics.classification import macro_f1
from affectlab.metrics.thresholds import fit_decision

if TYPE_CHECKING:
    from affectlab.encoders.hf_training import Encoded, FitProgress

ENCODER_DIR = "encoder/"
PRESETS: dict[str, float] = {
    "labse": 1e-4,
    "geotrend-bert": 1e-4,
    "mbert": 1e-5,
    "ukr-roberta-base": 1e-5,
    "xlm-roberta-base": 1e-5,
    "xlm-roberta-large": 1e-5,
    "twitter-xlm-roberta": 1e-4,
    "glot500-base": 1e-6,
    "multilingual-e5-large": 1e-5,
    "multilingual-e5-base": 1e-5,
}
"""Learning rates tuned per encoder on EmoBench-UA (App. H, Table 6)."""
APP_H_RECIPE: dict[str, Any] = {"batch_size": 64, "epochs": 50, "patience": 3}
"""What App. H used for every encoder besides the learning rate."""
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".pkl", ".pickle", ".ckpt")
CHOICES = {"pooling": ("cls", "mean"), "class_weight": (None, "capped"), "weight_storage": ("fp32", "int8")}
WEIGHTS_FILE = "model.safetensors"
INT8_WEIGHTS_FILE = "model.int8.safetensors"
POSITIVE_INTEGERS = ("epochs", "batch_size", "grad_accum", "max_length", "eval_batch_size")


class HFEncoderDetector(Detector):
    """A fine-tuned Hugging Face encoder + linear head. ``model`` is a local directory (read with
    ``local_files_only``) or a hub id; ``device``, ``bf16`` and ``attn_implementation`` default to CUDA, bf16
    autocast and SDPA when a GPU is there. ``class_weight="capped"`` weighs positives up to ``weight_cap``.
    ``weight_storage="int8"`` saves the encoder's matrices as int8 rows (:mod:`affectlab.encoders.int8`, a quarter
    of the size); they are float32 again once loaded."""

    name = "hf"
    description = "fine-tuned Hugging Face encoder (GoEmotions 5.2, EmoBench-UA App. H)"
    defaults = {
        "model": None,
        "preset": None,
        "lr": 2e-5,
        "epochs": 4,
        "batch_size": 32,
        "grad_accum": 1,
        "max_length": 128,
        "patience": 3,
        "class_weight": None,
        "weight_cap": 10.0,
        "pooling": "cls",
        "dropout": 0.1,
        "weight_decay": 0.01,
        "warmup": 0.1,
        "group_by_length": True,
        "eval_batch_size": 64,
        "seed": 0,
        "device": None,
        "bf16": None,
        "attn_implementation": None,
        "weight_storage": "fp32",
    }

    def _kind_facts(self) -> KindFacts:
        """``train_detector`` passes the dev split to :meth:`fit` (early stopping) and adds no out-of-fold threshold
        rows: they would cost five fine-tunings."""
        return {"accepts_validation": True, "cheap_to_refit": False}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        preset = self.params["preset"]
        if preset is not None:
            if preset not in PRESETS:
                raise InputError(f"unknown hf preset {preset!r} (known: {', '.join(PRESETS)})")
            for key, value in {**APP_H_RECIPE, "lr": PRESETS[preset]}.items():
                self.params[key] = params.get(key, value)
        for key, allowed in CHOICES.items():
            if self.params[key] not in allowed:
                raise InputError(f"hf {key} must be one of {', '.join(map(str, allowed))}, not {self.params[key]!r}")
        for key in POSITIVE_INTEGERS:
            if not isinstance(self.params[key], int) or self.params[key] < 1:
                raise InputError(f"hf {key} must be a positive whole number, not {self.params[key]!r}")
        self._validation: tuple[Inputs, np.ndarray] | None = None
        self._progress: Callable[[FitProgress], None] | None = None

    def fit(
        self,
        X: Any,
        Y: np.ndarray,
        label_space: LabelSpace,
        *,
        validation: tuple[Any, np.ndarray] | None = None,
        progress: Callable[[FitProgress], None] | None = None,
    ) -> Self:
        """:meth:`Detector.fit`, plus an optional dev set ``(X_dev, Y_dev)`` for early stopping on its macro-F1
        and a ``progress`` callable receiving a :class:`~affectlab.encoders.hf_training.FitProgress` per step."""
        if validation is not None:
            dev_inputs, y_dev = as_inputs(validation[0]), np.asarray(validation[1], dtype=np.int8)
            if y_dev.shape != (len(dev_inputs), len(label_space)):
                raise InputError(f"dev labels have shape {y_dev.shape}, expected {(len(dev_inputs), len(label_space))}")
            self._validation = (dev_inputs, y_dev)
        self._progress = progress
        try:
            return super().fit(X, Y, label_space)
        finally:
            self._validation, self._progress = None, None

    # --- the protocol -------------------------------------------------------------------------------------
    def _fit(self, inputs: Inputs, Y: np.ndarray) -> None:
        training = _training_module()
        import torch

        p = self.params
        if not p["model"]:
            raise InputError("the hf detector needs model=PATH (a local Hugging Face model directory) or a hub id")
        device = training.resolve_device(p["device"])
        self.bf16_ = training.resolve_bf16(p["bf16"], device)
        self.tokenizer_, encoder = _load_pretrained(p["model"], self._attention(device))
        self.uses_context_ = any(inputs.contexts)
        settings = training.TrainingSettings(**{f.name: p[f.name] for f in fields(training.TrainingSettings)})
        loss = training.make_loss(Y, self.label_space.multi_label, p["class_weight"], p["weight_cap"])
        # a private RNG stream: seeding must not change the caller's torch random state
        with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
            torch.manual_seed(p["seed"])
            self.model_ = training.EncoderClassifier(encoder, len(self.label_space), p["pooling"], p["dropout"])
            self.model_.to(device)
            self.history_ = training.fine_tune(
                self.model_, self._encode(inputs), Y, settings, loss, pad_id=self._pad_id(), bf16=self.bf16_,
                dev_score=self._dev_scorer(), progress=self._progress,
            )  # fmt: skip

    def _capabilities(self) -> Capabilities:
        """Context when it was trained with it (the turns are the tokenizer's second segment)."""
        return Capabilities(reads_context=self.uses_context_)

    def _predict_proba(self, inputs: Inputs) -> np.ndarray:
        return self._probabilities(self._encode(inputs))

    def _get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        training = _training_module()
        arrays = {
            "head.weight": self.model_.head.weight.detach().cpu().numpy(),
            "head.bias": self.model_.head.bias.detach().cpu().numpy(),
        }
        with tempfile.TemporaryDirectory() as tmp, training.quiet_transformers():
            self.model_.encoder.save_pretrained(tmp)
            self.tokenizer_.save_pretrained(tmp)
            if self.params["weight_storage"] == "int8":
                _to_int8(Path(tmp))
            for path in sorted(Path(tmp).rglob("*")):
                if path.suffix in PICKLE_SUFFIXES:
                    raise ModelFileError(f"the encoder would be saved with a pickle-based file ({path.name})")
                if path.is_file():
                    name = FILE_PREFIX + ENCODER_DIR + path.relative_to(tmp).as_posix()
                    arrays[name] = np.frombuffer(path.read_bytes(), dtype=np.uint8)
        return {"uses_context": self.uses_context_, "history": self.history_}, arrays

    def _set_state(self, state: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        training = _training_module()
        prefix = FILE_PREFIX + ENCODER_DIR
        files = {key.removeprefix(prefix): value for key, value in arrays.items() if key.startswith(prefix)}
        if not files:
            raise ValueError(f"no {ENCODER_DIR} files")
        device = training.resolve_device(self.params["device"])
        self.bf16_ = training.resolve_bf16(self.params["bf16"], device)
        # ignore_cleanup_errors: where open files cannot be deleted (Windows), the mapped weights stay readable
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
            for name, data in files.items():  # the verified bytes, in a private directory transformers can read
                (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
                (Path(tmp) / name).write_bytes(data.tobytes())
            if INT8_WEIGHTS_FILE in files:
                from affectlab.encoders.int8 import dequantize_file

                dequantize_file(str(Path(tmp) / INT8_WEIGHTS_FILE), str(Path(tmp) / WEIGHTS_FILE))
            try:
                self.tokenizer_, encoder = _load_pretrained(tmp, self._attention(device))
            except InputError as exc:
                raise ValueError(str(exc)) from None
        self.model_ = training.EncoderClassifier(
            encoder, len(self.label_space), self.params["pooling"], self.params["dropout"]
        )
        head = self.model_.head
        if arrays["head.weight"].shape != tuple(head.weight.shape) or arrays["head.bias"].shape != (len(head.bias),):
            raise ValueError("the head does not match the encoder and the label space")
        _copy_into(head.weight, arrays["head.weight"])
        _copy_into(head.bias, arrays["head.bias"])
        self.model_.to(device).eval()
        self.uses_context_ = bool(state["uses_context"])
        self.history_ = list(state.get("history") or [])

    # --- helpers ------------------------------------------------------------------------------------------
    def _encode(self, inputs: Inputs) -> Encoded:
        """Token ids without padding; with context, the text and the joined earlier turns as a text pair (the
        longer of the two is cut first when together they pass ``max_length``)."""
        pairs = None
        if self.uses_context_:
            separator = f" {self.tokenizer_.sep_token or '|'} "
            pairs = [separator.join(turns) for turns in inputs.contexts]
        encoded = self.tokenizer_(inputs.texts, text_pair=pairs, truncation=True, max_length=self.params["max_length"])
        return {key: list(encoded[key]) for key in self.tokenizer_.model_input_names if key in encoded}

    def _probabilities(self, encoded: Encoded) -> np.ndarray:
        """Sigmoid (multi-label) or softmax (single-label) of the logits, float64 in label-space order."""
        training = _training_module()
        logits = training.predict_logits(
            self.model_, encoded, self.params["eval_batch_size"], self._pad_id(), self.bf16_
        ).astype(np.float64)
        return expit(logits) if self.label_space.multi_label else softmax(logits, axis=1)

    def _dev_scorer(self) -> Callable[[], float] | None:
        """Dev macro-F1 after the shared decision step fitted on dev itself, so an epoch is judged by the labels
        it would give after :func:`train_detector` tunes its thresholds (App. H stops on a dev score)."""
        if self._validation is None:
            return None
        dev, y_dev = self._validation
        encoded = self._encode(dev)
        space, rule = self.label_space, self.rule()

        def score() -> float:
            probs = self._probabilities(encoded)
            return macro_f1(y_dev, fit_decision(rule, probs, y_dev, space, "macro_f1").apply(probs, space))

        return score

    def _pad_id(self) -> int:
        return int(self.tokenizer_.pad_token_id if self.tokenizer_.pad_token_id is not None else 0)

    def _attention(self, device: Any) -> str | None:
        """``attn_implementation``, or SDPA on a GPU (transformers' own default elsewhere)."""
        return self.params["attn_implementation"] or ("sdpa" if device.type == "cuda" else None)


def _training_module() -> Any:
    """:mod:`affectlab.encoders.hf_training`, after checking that the ``hf`` extra is installed."""
    require("torch", "hf", "the hf detector")
    require("transformers", "hf", "the hf detector")
    from affectlab.encoders import hf_training

    return hf_training


def _load_pretrained(model: str, attn_implementation: str | None) -> tuple[Any, Any]:
    """Tokenizer and fp32 encoder from a local directory (no network) or a hub id."""
    from transformers import AutoModel, AutoTokenizer

    training = _training_module()
    local = Path(model).is_dir()
    options = {"attn_implementation": attn_implementation} if attn_implementation else {}
    try:
        with training.quiet_transformers():
            tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=local)
            # fp32 master weights whatever the checkpoint's dtype; bf16 is applied by autocast
            encoder = AutoModel.from_pretrained(model, local_files_only=local, **options).float()
    except (OSError, ValueError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(
            f"cannot load the Hugging Face encoder {model!r} ({reason}); give a local model directory with "
            "config.json, the weights and the tokenizer files"
        ) from None
    return tokenizer, encoder


def _to_int8(directory: Path) -> None:
    """Replace the saved encoder's ``model.safetensors`` by its int8 copy."""
    from affectlab.encoders.int8 import quantize_file

    weights = directory / WEIGHTS_FILE
    if not weights.is_file():
        raise InputError(f"int8 storage needs the encoder saved as one {WEIGHTS_FILE} (it was sharded)")
    quantize_file(str(weights), str(directory / INT8_WEIGHTS_FILE))
    weights.unlink()


def _copy_into(parameter: Any, values: np.ndarray) -> None:
    import torch

    with torch.no_grad():
        parameter.copy_(torch.from_numpy(np.array(values, dtype=np.float32)))
