"""Where an LLM's replies come from (EmoBench-UA section 5.3 prompts models served by vLLM or loaded locally).

A backend turns prompts into replies: ``complete(prompts) -> replies``, in order. :class:`OpenAICompatibleBackend`
asks any OpenAI-compatible chat endpoint (vLLM, llama.cpp server, Ollama, hosted APIs) with several requests in
flight; :class:`LocalCausalLMBackend` generates greedily with a local Hugging Face causal LM; :class:`CachedBackend`
keeps every reply on disk so that evaluating again does not pay again. The API key is read from the environment
(``AFFECTLAB_LLM_API_KEY``, else ``OPENAI_API_KEY``), never from a command-line value, and never appears in an error.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from affectlab.errors import AffectlabError
from affectlab.extras import require
from affectlab.io.cache_paths import cache_dir
from affectlab.io.sqlite import SqliteMemo, memoized
from affectlab.llm.local import load_causal_lm, position_limit

API_KEY_ENVS = ("AFFECTLAB_LLM_API_KEY", "OPENAI_API_KEY")
NO_KEY = "EMPTY"
"""What local servers get as a key: the ``openai`` client refuses to start without one, and they check none."""


class EndpointError(AffectlabError):
    """An OpenAI-compatible endpoint that could not be reached or answered with an error."""


class LLMBackend(Protocol):
    """Anything that answers prompts; ``identity`` names the model and generation settings (the cache key)."""

    @property
    def identity(self) -> dict[str, Any]: ...

    def complete(self, prompts: Sequence[str]) -> list[str]: ...


def api_key_from_env() -> str:
    """The API key from ``AFFECTLAB_LLM_API_KEY`` or ``OPENAI_API_KEY``; a placeholder when neither is set."""
    return next((os.environ[name] for name in API_KEY_ENVS if os.environ.get(name)), NO_KEY)


def openai_client(base_url: str, api_key: str | None, timeout: float, max_retries: int) -> Any:
    """An ``openai.OpenAI`` client for ``base_url``. It retries connection errors, timeouts, 408/409/429 and 5xx
    answers ``max_retries`` times, waiting what a ``Retry-After`` header asks (up to its limit) or else 0.5 s
    doubling to at most 8 s, with jitter."""
    openai = require("openai", "llm", "asking an OpenAI-compatible endpoint")
    return openai.OpenAI(
        base_url=base_url, api_key=api_key or api_key_from_env(), timeout=timeout, max_retries=max_retries
    )


def describe_error(error: Exception, secret: str | None = None) -> str:
    """One line for an ``openai`` error: the HTTP status and the server's message, or what went wrong; ``secret``
    (the API key) is blanked out wherever a server echoed it."""
    status = getattr(error, "status_code", None)
    message = str(error) or type(error).__name__
    if error.__cause__ is not None:  # "Connection error." alone does not say refused, DNS or TLS
        message += f" ({error.__cause__})"
    if secret and secret != NO_KEY:
        message = message.replace(secret, "***")
    kind = f"HTTP {status}" if status is not None else type(error).__name__
    return " ".join(f"{kind}: {message}".split())[:300]


class OpenAICompatibleBackend:
    """Chat completions from ``model`` at ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``), each prompt as one
    user message, greedy (``temperature`` 0) and at most ``max_tokens`` long, ``concurrency`` requests in flight.
    Each request times out after ``timeout`` seconds and is retried as :func:`openai_client` says; the first
    request that still fails stops the batch with one :class:`EndpointError` line."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        concurrency: int = 8,
        timeout: float = 60.0,
        max_retries: int = 3,
        temperature: float = 0.0,
        max_tokens: int = 256,
        system_prompt: str | None = None,
    ) -> None:
        self.base_url = base_url
        self.model = model
        self.concurrency = max(1, concurrency)
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.system_prompt = system_prompt
        self._key = api_key or api_key_from_env()
        self._client = openai_client(base_url, self._key, timeout, max_retries)
        self._errors = require("openai", "llm", "asking an OpenAI-compatible endpoint").APIError

    @property
    def identity(self) -> dict[str, Any]:
        """Endpoint, model and generation settings (never the key)."""
        return {
            "backend": "openai-compatible",
            "base_url": self.base_url,
            "model": self.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "system_prompt": self.system_prompt,
        }

    def complete(self, prompts: Sequence[str]) -> list[str]:
        """The replies to ``prompts``, in order."""
        if self.concurrency == 1 or len(prompts) <= 1:
            return [self.complete_one(prompt) for prompt in prompts]
        pool = ThreadPoolExecutor(max_workers=min(self.concurrency, len(prompts)))
        futures = [pool.submit(self.complete_one, prompt) for prompt in prompts]
        try:
            return [future.result() for future in futures]
        finally:  # after a failure, requests not yet sent are not sent
            pool.shutdown(wait=False, cancel_futures=True)

    def complete_one(self, prompt: str) -> str:
        """The reply to one prompt (empty when the model returned no text)."""
        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        if self.system_prompt:
            messages.insert(0, {"role": "system", "content": self.system_prompt})
        try:
            response = self._client.chat.completions.create(
                model=self.model, messages=messages, max_tokens=self.max_tokens, temperature=self.temperature
            )
        except self._errors as error:
            raise EndpointError(f"{self.base_url} ({self.model}): {describe_error(error, self._key)}") from None
        if not response.choices:
            raise EndpointError(f"{self.base_url} ({self.model}): the response has no choices")
        return response.choices[0].message.content or ""


class LocalCausalLMBackend:
    """Greedy generation of at most ``max_tokens`` new tokens with the Hugging Face causal LM in ``model_dir``
    (CUDA when available, else CPU), ``batch_size`` prompts at a time, left-padded. A tokenizer with a chat
    template gets each prompt as one user turn; a base model continues the prompt as it stands, and its
    continuation is cut at the first of the ``stop`` strings (where it starts a made-up next example, e.g.
    ``"\nText:"``). A prompt longer than the model's context loses its beginning."""

    def __init__(
        self,
        model_dir: str | os.PathLike[str],
        max_tokens: int = 256,
        batch_size: int = 8,
        device: str | None = None,
        dtype: str | None = None,
        stop: Sequence[str] = (),
    ) -> None:
        self.model_dir = Path(model_dir).resolve()
        loaded = load_causal_lm(self.model_dir, device=device, dtype=dtype)
        self.model, self.tokenizer, self.device = loaded.model, loaded.tokenizer, loaded.device
        self.max_tokens = max_tokens
        self.batch_size = max(1, batch_size)
        self.chat = bool(getattr(self.tokenizer, "chat_template", None))
        self.stop = () if self.chat else tuple(stop)  # a chat reply is the model's own turn: nothing to cut
        self.tokenizer.padding_side = "left"  # generation continues each row from its last real token
        self.tokenizer.truncation_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token

    @property
    def identity(self) -> dict[str, Any]:
        """The model directory with its files' sizes and times (a retrained model is a new model) and settings."""
        files = sorted(
            (p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in self.model_dir.iterdir() if p.is_file()
        )
        return {
            "backend": "transformers",
            "model_dir": str(self.model_dir),
            "files": files,
            "max_tokens": self.max_tokens,
            "stop": list(self.stop),
        }

    def complete(self, prompts: Sequence[str]) -> list[str]:
        """The greedy continuation of each prompt, in order."""
        replies: list[str] = []
        for start in range(0, len(prompts), self.batch_size):
            replies += self._generate(prompts[start : start + self.batch_size])
        return replies

    def _generate(self, prompts: Sequence[str]) -> list[str]:
        torch = require("torch", "hf", "generating with a local model")
        transformers = require("transformers", "hf", "generating with a local model")
        texts = [self._as_chat(p) for p in prompts] if self.chat else list(prompts)
        limit = max(1, position_limit(self.model) - self.max_tokens)
        batch = self.tokenizer(
            texts,
            return_tensors="pt",
            padding=True,
            truncation=True,
            max_length=limit,
            add_special_tokens=not self.chat,
        ).to(self.device)
        config = transformers.GenerationConfig(
            max_new_tokens=self.max_tokens,
            do_sample=False,
            pad_token_id=self.tokenizer.pad_token_id,
            eos_token_id=self.tokenizer.eos_token_id,
        )
        with torch.no_grad():
            output = self.model.generate(**batch, generation_config=config)
        replies = self.tokenizer.batch_decode(output[:, batch["input_ids"].shape[1] :], skip_special_tokens=True)
        return [_cut_at_stop(reply, self.stop) for reply in replies]

    def _as_chat(self, prompt: str) -> str:
        messages = [{"role": "user", "content": prompt}]
        return str(self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))


def _cut_at_stop(reply: str, stop: Sequence[str]) -> str:
    """``reply`` up to the first stop string after its start."""
    return reply[: min((i for i in (reply.find(s) for s in stop) if i > 0), default=len(reply))]


class CachedBackend:
    """``backend`` with its replies kept in SQLite (a :class:`~affectlab.io.sqlite.SqliteMemo`) under ``directory``
    (default ``$AFFECTLAB_CACHE_DIR/llm``), keyed by SHA-256 of the backend's identity and the prompt. Replies are
    stored every ``chunk`` prompts, so a run that fails half-way keeps what it paid for."""

    def __init__(self, backend: LLMBackend, directory: str | os.PathLike[str] | None = None, chunk: int = 64) -> None:
        self.backend = backend
        folder = Path(directory) if directory is not None else cache_dir() / "llm"
        self.memo = SqliteMemo(folder / "replies.sqlite", "replies", "reply")
        self.path = self.memo.path
        self.chunk = max(1, chunk)
        self.identity = backend.identity

    def key(self, prompt: str) -> bytes:
        """The cache key of ``prompt`` for this backend."""
        payload = json.dumps([self.identity, prompt], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).digest()

    def complete(self, prompts: Sequence[str]) -> list[str]:
        """Cached replies, asking the backend only for prompts not seen before (each distinct one once)."""
        return memoized(prompts, [self.key(p) for p in prompts], self.backend.complete, self.memo, self.chunk)
