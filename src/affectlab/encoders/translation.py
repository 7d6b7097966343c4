"""Machine translation behind one small interface, for translate-test and translate-train (EmoBench-UA,
section 5.3.1: Ukrainian inputs translated into English for an English model, and an English training corpus
translated into Ukrainian; the paper uses NLLB, ``facebook/nllb-200-distilled-600M``, for both directions).

* :class:`Translator` is the protocol: ``translate(texts, source, target) -> list[str]`` plus an ``identity``.
* :class:`HFTranslator` runs a local Hugging Face seq2seq directory. The intended models are **NLLB** (one model,
  any pair: the source code is set on the tokenizer and the target code forced as the first generated token) and
  **MarianMT** (``opus-mt-SRC-TGT``: one direction per model, checked before anything is loaded). Any other
  ``AutoModelForSeq2SeqLM`` directory is run as it is, without language handling.
* :class:`CachedTranslator` keeps every translation in SQLite under ``$AFFECTLAB_CACHE_DIR/translations``, keyed
  by SHA-256 of (model identity, source, target, text), so translating a dataset again costs nothing.
* :func:`translate_dataset` translates a ``DatasetDict`` (texts and context turns), keeping its labels.

Languages are given as ISO 639-1 codes (``uk``, ``en``, ``es``), ISO 639-3 codes or NLLB codes (``ukr_Cyrl``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from affectlab.errors import InputError, ModelFileError
from affectlab.extras import require
from affectlab.io.cache_paths import cache_dir
from affectlab.io.sqlite import SqliteMemo, memoized

LANGUAGES: dict[str, tuple[str, str]] = {
    "uk": ("ukr", "ukr_Cyrl"),
    "en": ("eng", "eng_Latn"),
    "es": ("spa", "spa_Latn"),
    "ru": ("rus", "rus_Cyrl"),
    "de": ("deu", "deu_Latn"),
    "fr": ("fra", "fra_Latn"),
    "pl": ("pol", "pol_Latn"),
    "it": ("ita", "ita_Latn"),
    "pt": ("por", "por_Latn"),
}
"""ISO 639-1 code -> (ISO 639-3 code, NLLB code) for the languages we name in errors and metadata."""
NLLB_CODE = re.compile(r"^[a-z]{3}_[A-Z][a-z]{3}$")
MARIAN_NAME = re.compile(r"opus-mt-(?:tc-(?:big|base)-)?([a-z]{2,3})-([a-z]{2,3})$")
"""Helsinki-NLP directory names (``opus-mt-uk-en``, ``opus-mt-tc-big-en-uk``) carry the direction."""


def short_code(lang: str) -> str:
    """The ISO 639-1 code of ``lang`` (``ukr_Cyrl``, ``ukr`` and ``uk`` all give ``uk``); unknown codes as given."""
    key = lang.strip()
    for short, (iso3, nllb) in LANGUAGES.items():
        if key in (short, iso3, nllb):
            return short
    return key


def nllb_code(lang: str) -> str:
    """The NLLB code of ``lang`` (``uk`` -> ``ukr_Cyrl``); an NLLB-style code is passed through."""
    if NLLB_CODE.match(lang):
        return lang
    short = short_code(lang)
    if short not in LANGUAGES:
        raise InputError(f"no NLLB code known for language {lang!r}: give one such as ukr_Cyrl, eng_Latn, spa_Latn")
    return LANGUAGES[short][1]


@runtime_checkable
class Translator(Protocol):
    """Translates texts from ``source`` into ``target``, one output per input in input order. ``identity``
    names the model and its decoding settings: translations cached under one identity are reused by it only."""

    identity: str

    def translate(self, texts: Sequence[str], source: str, target: str) -> list[str]:
        """Translate ``texts``."""
        ...


def model_family(model_dir: Path) -> str:
    """``marian``, ``nllb`` or ``seq2seq`` (any other encoder-decoder), from the directory's config files."""
    config = _read_json(model_dir / "config.json")
    if config is None:
        raise ModelFileError(f"{str(model_dir)!r} is not a Hugging Face model directory (no config.json)")
    if config.get("model_type") == "marian":
        return "marian"
    tokenizer_config = _read_json(model_dir / "tokenizer_config.json") or {}
    if str(tokenizer_config.get("tokenizer_class", "")).startswith("Nllb"):
        return "nllb"
    return "seq2seq"


def marian_direction(model_dir: Path) -> tuple[str, str] | None:
    """The (source, target) ISO 639-1 codes of a Marian model: from its tokenizer config (``source_lang``,
    ``target_lang``), else from an ``opus-mt-SRC-TGT`` directory name; None when neither says."""
    tokenizer_config = _read_json(model_dir / "tokenizer_config.json") or {}
    source, target = tokenizer_config.get("source_lang"), tokenizer_config.get("target_lang")
    if isinstance(source, str) and isinstance(target, str):
        return short_code(source), short_code(target)
    match = MARIAN_NAME.search(model_dir.resolve().name)
    return (short_code(match.group(1)), short_code(match.group(2))) if match else None


def _read_json(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"{str(path)!r} is not valid JSON ({exc})") from None
    return data if isinstance(data, dict) else None


class HFTranslator:
    """A local seq2seq translation model (NLLB or MarianMT; see the module docstring), loaded on first use.

    Texts are translated in batches of ``batch_size`` sorted by length (less padding; outputs come back in input
    order); inputs are cut at ``max_length`` tokens and outputs at ``max_length`` new tokens. ``num_beams``
    None keeps the model's own generation config."""

    def __init__(
        self,
        model_dir: str | os.PathLike[str],
        device: str | None = None,
        batch_size: int = 16,
        max_length: int = 256,
        num_beams: int | None = None,
    ) -> None:
        self.model_dir = Path(model_dir)
        if not self.model_dir.is_dir():
            raise ModelFileError(f"translation model directory {str(self.model_dir)!r} does not exist")
        if batch_size < 1 or max_length < 1:
            raise InputError("batch_size and max_length must be positive")
        self.family = model_family(self.model_dir)
        self.device = device
        self.batch_size = batch_size
        self.max_length = max_length
        self.num_beams = num_beams
        self.identity = f"{self.model_dir.resolve().name}-{self._fingerprint()}"
        self._model: Any = None
        self._tokenizer: Any = None
        self._loading = threading.Lock()  # threads that come while the model loads wait for it, not load another
        # one tokenizer for every thread: NLLB's source language is set on it before each batch, and a fast
        # tokenizer refuses a call from one thread while a call from another changes its truncation settings
        self._tokenizing = threading.Lock()

    def _fingerprint(self) -> str:
        """SHA-256 over the directory's file names, sizes and modification times and the decoding settings:
        replacing the weights (or copying the model) starts a fresh cache rather than reusing stale output."""
        digest = hashlib.sha256()
        for path in sorted(self.model_dir.iterdir()):
            if path.is_file():
                stat = path.stat()
                digest.update(f"{path.name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
        digest.update(f"max_length={self.max_length}\0num_beams={self.num_beams}".encode())
        return digest.hexdigest()[:16]

    def check_languages(self, source: str, target: str) -> None:
        """Raise :class:`InputError` when the model cannot translate ``source`` into ``target``."""
        if self.family == "nllb":
            for lang in (source, target):
                nllb_code(lang)
        elif self.family == "marian":
            direction = marian_direction(self.model_dir)
            asked = (short_code(source), short_code(target))
            if direction is not None and direction != asked:
                raise InputError(
                    f"{self.model_dir.name} is a Marian model for {direction[0]}->{direction[1]} only (one direction "
                    f"per model); {asked[0]}->{asked[1]} needs another model, or an NLLB model for any pair"
                )

    def translate(self, texts: Sequence[str], source: str, target: str) -> list[str]:
        """Translate ``texts`` from ``source`` into ``target`` (blank texts stay blank without the model)."""
        self.check_languages(source, target)
        out = [""] * len(texts)
        todo = sorted((i for i, text in enumerate(texts) if text.strip()), key=lambda i: len(texts[i]))
        for start in range(0, len(todo), self.batch_size):
            rows = todo[start : start + self.batch_size]
            for row, translation in zip(rows, self._generate([texts[i] for i in rows], source, target), strict=True):
                out[row] = translation
        return out

    def encode(self, texts: list[str], source: str, target: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """The model inputs of a batch and the ``generate`` arguments (for NLLB, the forced target code)."""
        tokenizer = self.tokenizer
        kwargs: dict[str, Any] = {"max_new_tokens": self.max_length}
        if self.num_beams is not None:
            kwargs["num_beams"] = self.num_beams
        with self._tokenizing:
            if self.family == "nllb":
                tokenizer.src_lang = nllb_code(source)
                kwargs["forced_bos_token_id"] = self._token_id(nllb_code(target))
            inputs = tokenizer(texts, return_tensors="pt", padding=True, truncation=True, max_length=self.max_length)
        return {key: value.to(self.model.device) for key, value in inputs.items()}, kwargs

    def _generate(self, texts: list[str], source: str, target: str) -> list[str]:
        import torch

        inputs, kwargs = self.encode(texts, source, target)
        with torch.inference_mode():
            outputs = self.model.generate(**inputs, **kwargs)
        with self._tokenizing:
            decoded = self.tokenizer.batch_decode(outputs, skip_special_tokens=True)
        return [text.strip() for text in decoded]

    def _token_id(self, token: str) -> int:
        token_id = self.tokenizer.convert_tokens_to_ids(token)
        if token_id is None or token_id == self.tokenizer.unk_token_id:
            raise InputError(f"{self.model_dir.name} has no language code {token!r}")
        return int(token_id)

    @property
    def tokenizer(self) -> Any:
        """The tokenizer, loaded on first use (once, whatever the threads)."""
        if self._tokenizer is None:
            with self._loading:
                if self._tokenizer is None:
                    self._tokenizer = self._load_tokenizer()
        return self._tokenizer

    @property
    def model(self) -> Any:
        """The model in eval mode on ``device`` (CUDA when available and none is given), loaded on first use (once,
        whatever the threads)."""
        if self._model is None:
            with self._loading:
                if self._model is None:
                    self._model = self._load_model()
        return self._model

    def _load_tokenizer(self) -> Any:
        transformers = require("transformers", "hf", "translation with a local model")
        if self.family == "marian":
            require("sentencepiece", "hf", "MarianMT's tokenizer")
        return transformers.AutoTokenizer.from_pretrained(self.model_dir)

    def _load_model(self) -> Any:
        torch = require("torch", "hf", "translation with a local model")
        transformers = require("transformers", "hf", "translation with a local model")
        device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        return transformers.AutoModelForSeq2SeqLM.from_pretrained(self.model_dir).to(device).eval()


def translation_key(identity: str, source: str, target: str, text: str) -> bytes:
    """The cache key of one translation: SHA-256 of the JSON list (identity, source, target, text)."""
    return hashlib.sha256(json.dumps([identity, source, target, text], ensure_ascii=False).encode("utf-8")).digest()


class CachedTranslator:
    """Wraps a :class:`Translator`, storing each translation in SQLite (a :class:`~affectlab.io.sqlite.SqliteMemo`).
    Missing texts are translated ``chunk_size`` at a time, shortest first, and each chunk is committed, so a long run
    that is interrupted resumes where it stopped; ``on_chunk(n)`` is called after each chunk of ``n`` new
    translations."""

    def __init__(
        self,
        inner: Translator,
        directory: str | os.PathLike[str] | None = None,
        chunk_size: int = 256,
        on_chunk: Callable[[int], None] | None = None,
    ) -> None:
        self.inner = inner
        self.identity = inner.identity
        folder = Path(directory) if directory is not None else cache_dir() / "translations"
        self.memo = SqliteMemo(folder / "translations.sqlite", "translations", "text")
        self.path = self.memo.path
        self.chunk_size = chunk_size
        self.on_chunk = on_chunk

    def translate(self, texts: Sequence[str], source: str, target: str) -> list[str]:
        """Translations of ``texts``: cached ones from the database, the others (each distinct text once) from
        the wrapped translator."""
        keys = [translation_key(self.identity, source, target, text) for text in texts]
        return memoized(
            texts, keys, lambda chunk: self.inner.translate(chunk, source, target), self.memo, self.chunk_size,
            order=len, on_chunk=self.on_chunk,
        )  # fmt: skip

    def __len__(self) -> int:
        return len(self.memo)


def open_translator(model_dir: str | os.PathLike[str], cache: bool = True, **options: Any) -> Translator:
    """An :class:`HFTranslator` for ``model_dir`` (``options``: device, batch_size, max_length, num_beams),
    wrapped in a :class:`CachedTranslator` unless ``cache`` is False."""
    translator = HFTranslator(model_dir, **options)
    return CachedTranslator(translator) if cache else translator


def translate_dataset(
    data: Any, translator: Translator, source: str, target: str, progress: Callable[[str], None] | None = None
) -> Any:
    """Translate-train: every split of the ``DatasetDict`` ``data`` with its texts and context turns translated
    from ``source`` into ``target``; ids and labels are kept, ``lang`` becomes ``target``'s ISO code and each
    row's ``meta`` gains ``translation`` (source and target language, translator identity, original text)."""
    from datasets import DatasetDict

    splits = {}
    for split, rows in data.items():
        if progress is not None:
            progress(f"translating {split} ({len(rows)} texts, {source}->{target})")
        splits[split] = _translate_split(rows, translator, source, target)
    return DatasetDict(splits)


def _translate_split(rows: Any, translator: Translator, source: str, target: str) -> Any:
    """One split of :func:`translate_dataset`: all texts and turns go to the translator in one call, so each
    distinct string is translated once and the translator sorts them all by length."""
    from datasets import Dataset

    missing = {"text", "context", "lang", "meta"} - set(rows.column_names)
    if missing:
        raise InputError(f"cannot translate a dataset without the standard columns {', '.join(sorted(missing))}")
    columns = rows.to_dict()
    texts, contexts = columns["text"], columns["context"]
    translated = translator.translate([*texts, *(turn for context in contexts for turn in context)], source, target)
    new_turns = iter(translated[len(texts) :])
    record = {"source_lang": source, "target_lang": target, "translator": translator.identity}
    columns["context"] = [[next(new_turns) for _ in context] for context in contexts]
    columns["text"] = translated[: len(texts)]
    columns["lang"] = [short_code(target)] * len(texts)
    columns["meta"] = [
        json.dumps({**_meta(meta), "translation": {**record, "source_text": text}}, ensure_ascii=False)
        for meta, text in zip(columns["meta"], texts, strict=True)
    ]
    return Dataset.from_dict(columns, features=rows.features, info=rows.info, split=rows.split)


def _meta(meta: str) -> dict[str, Any]:
    try:
        parsed = json.loads(meta or "{}")
    except json.JSONDecodeError:
        return {"original_meta": meta}  # keep a source's malformed meta rather than lose it
    return parsed if isinstance(parsed, dict) else {"original_meta": parsed}
