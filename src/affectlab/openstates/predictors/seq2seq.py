"""``seq2seq``: a T5/mT5 fine-tuned to fill affective-state masks (MASIVE section 4.1, App. D.1).

Training follows App. D.1: batch 4, 3 epochs, Adafactor at lr 1e-4 (transformers' implementation, with the
relative step and parameter scaling off so that the learning rate is the one given), a linear schedule without
warm-up, weight decay 0.01; inputs over 512 tokens are trimmed by whole sentences without cutting a mask.
Prediction is beam search with 5 beams returning the top k (k <= beams) sequences, up to 32 new tokens; each
returned sequence gives one term per sentinel, and a mask's ranking is the j-th span of each beam in beam order
(a term repeated by a lower beam counts once). Scores are the beams' probabilities (exp of the length-normalised
sequence score). :meth:`gold_nll` gives the negative log-likelihood of the gold target (summed over its tokens)
and its log-perplexity (the mean per token): the paper does not define either, this is our reading.

torch and transformers (the ``hf`` extra) are imported only when a model is loaded or trained.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Self

import numpy as np

from affectlab.errors import InputError
from affectlab.extras import require
from affectlab.openstates.collect.masking import MAX_TOKENS, SENTINEL, sentinel, trim_to_length
from affectlab.openstates.predictors.base import Ranked, TermScore, n_masks, write_config

DEFAULTS: dict[str, Any] = {
    "epochs": 3,
    "batch_size": 4,
    "lr": 1e-4,
    "weight_decay": 0.01,
    "num_beams": 5,
    "max_new_tokens": 32,
    "max_length": MAX_TOKENS,
    "seed": 0,
}
"""App. D.1."""
WEIGHTS_DIR = "model"


class Seq2SeqStatePredictor:
    """A T5-style model from ``model`` (a local directory) that fills sentinel masks with affective states."""

    kind = "seq2seq"

    def __init__(self, model: str | Path, device: str | None = None, **settings: Any) -> None:
        unknown = set(settings) - set(DEFAULTS)
        if unknown:
            raise InputError(f"seq2seq has no setting {', '.join(sorted(unknown))}")
        self.settings = {**DEFAULTS, **settings}
        require("torch", "hf", "the seq2seq affective-state predictor")
        require("transformers", "hf", "the seq2seq affective-state predictor")
        import torch
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        from affectlab.encoders.hf_training import quiet_transformers

        local = Path(model).is_dir()
        try:
            with quiet_transformers():
                self.tokenizer = AutoTokenizer.from_pretrained(str(model), local_files_only=local)
                self.model = AutoModelForSeq2SeqLM.from_pretrained(str(model), local_files_only=local)
        except (OSError, ValueError) as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise InputError(f"cannot load the seq2seq model {str(model)!r} ({reason})") from None
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.model.to(self.device).eval()
        unknown_ids = (None, self.tokenizer.unk_token_id)
        missing = [sentinel(i) for i in range(2) if self.tokenizer.convert_tokens_to_ids(sentinel(i)) in unknown_ids]
        if missing:
            raise InputError(f"the tokenizer of {str(model)!r} has no T5 sentinels ({', '.join(missing)})")
        self.history: list[dict[str, float]] = []

    # --- data ---------------------------------------------------------------------------------------------
    def _trimmed(self, masked: str) -> str:
        def count(text: str) -> int:
            return len(self.tokenizer(text)["input_ids"])

        return trim_to_length(masked, count, self.settings["max_length"])

    def _batch(self, texts: Sequence[str], targets: Sequence[str] | None = None) -> dict[str, Any]:
        encoded = self.tokenizer(
            [self._trimmed(t) for t in texts], padding=True, truncation=True, max_length=self.settings["max_length"],
            return_tensors="pt",
        )  # fmt: skip
        if targets is not None:
            labels = self.tokenizer(list(targets), padding=True, return_tensors="pt")["input_ids"]
            labels[labels == self.tokenizer.pad_token_id] = -100
            encoded["labels"] = labels
        return {key: value.to(self.device) for key, value in encoded.items()}

    # --- training -----------------------------------------------------------------------------------------
    def fit(self, masked: Sequence[str], targets: Sequence[str], progress: Callable[[str], None] | None = None) -> Self:
        """Fine-tune on masked texts and their T5 targets (App. D.1 settings); ``history`` gets the mean loss and
        the samples/s of each epoch."""
        import torch
        from transformers import get_linear_schedule_with_warmup
        from transformers.optimization import Adafactor

        if len(masked) != len(targets) or not masked:
            raise InputError(f"{len(masked)} texts for {len(targets)} targets; need at least one pair")
        s = self.settings
        steps = math.ceil(len(masked) / s["batch_size"]) * s["epochs"]
        optimizer = Adafactor(
            self.model.parameters(), lr=s["lr"], weight_decay=s["weight_decay"], scale_parameter=False,
            relative_step=False, warmup_init=False,
        )  # fmt: skip
        scheduler = get_linear_schedule_with_warmup(optimizer, 0, steps)
        rng = np.random.default_rng(s["seed"])
        self.model.train()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(s["seed"])
            for epoch in range(1, s["epochs"] + 1):
                started, losses, order = time.perf_counter(), [], rng.permutation(len(masked))
                for i, start in enumerate(range(0, len(masked), s["batch_size"]), start=1):
                    index = order[start : start + s["batch_size"]].tolist()
                    batch = self._batch([masked[j] for j in index], [targets[j] for j in index])
                    loss = self.model(**batch).loss
                    loss.backward()
                    optimizer.step()
                    scheduler.step()
                    optimizer.zero_grad(set_to_none=True)
                    losses.append(float(loss.detach()))
                    if progress is not None and i % 50 == 0:
                        done = f"{start + len(index)}/{len(masked)}"
                        progress(f"epoch {epoch}/{s['epochs']}: {done}, loss {np.mean(losses):.3f}")
                seconds = time.perf_counter() - started
                self.history.append(
                    {"epoch": epoch, "loss": float(np.mean(losses)), "seconds": round(seconds, 3),
                     "samples_per_s": round(len(masked) / seconds, 2)}
                )  # fmt: skip
        self.model.eval()
        return self

    # --- prediction ---------------------------------------------------------------------------------------
    def predict(self, masked: Sequence[str], langs: Sequence[str] | None = None, k: int = 5) -> list[Ranked]:
        """Per text, per mask, the top ``k`` terms from beam search (``k`` at most ``num_beams``)."""
        import torch

        beams = max(self.settings["num_beams"], k)
        out: list[Ranked] = []
        for start in range(0, len(masked), 8):
            texts = list(masked[start : start + 8])
            batch = self._batch(texts)
            with torch.no_grad():
                generated = self.model.generate(
                    **batch, num_beams=beams, num_return_sequences=k, max_new_tokens=self.settings["max_new_tokens"],
                    output_scores=True, return_dict_in_generate=True, early_stopping=True,
                )  # fmt: skip
            sequences = self.tokenizer.batch_decode(generated.sequences, skip_special_tokens=False)
            scores = generated.sequences_scores.exp().cpu().numpy()
            for i, text in enumerate(texts):
                rows = range(i * k, (i + 1) * k)
                out.append(rank_spans([sequences[r] for r in rows], [float(scores[r]) for r in rows], n_masks(text)))
        return out

    def score_terms(self, masked: Sequence[str], langs: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        """Log-likelihood of "<extra_id_0> term <extra_id_1>" for each candidate at each text's first mask, summed
        over its tokens (section 4.2.2 ranks the label words by likelihood; it does not say whether normalised)."""
        targets = [f"{sentinel(0)} {term} {sentinel(1)}" for term in candidates]
        return -np.array([[nll for nll, _ in self.gold_nll([text] * len(targets), targets)] for text in masked])

    def gold_nll(self, masked: Sequence[str], targets: Sequence[str]) -> list[tuple[float, float]]:
        """Per text: (summed negative log-likelihood of the gold target's tokens, their mean = log-perplexity)."""
        import torch

        out = []
        for text, target in zip(masked, targets, strict=True):
            batch = self._batch([text], [target])
            with torch.no_grad():
                logits = self.model(**batch).logits[0]
            labels = batch["labels"][0]
            token_nll = torch.nn.functional.cross_entropy(logits, labels, ignore_index=-100, reduction="none")
            kept = token_nll[labels != -100]
            out.append((float(kept.sum()), float(kept.mean())))
        return out

    # --- saving -------------------------------------------------------------------------------------------
    def save(self, directory: str | Path) -> None:
        """The model and tokenizer (safetensors) under ``model/`` and the settings in ``open_states.json``."""
        from affectlab.encoders.hf_training import quiet_transformers

        path = Path(directory)
        with quiet_transformers():
            self.model.save_pretrained(path / WEIGHTS_DIR)
            self.tokenizer.save_pretrained(path / WEIGHTS_DIR)
        write_config(path, self.kind, {"settings": self.settings, "history": self.history})

    @classmethod
    def load(cls, directory: str | Path, device: str | None = None) -> Seq2SeqStatePredictor:
        """A predictor saved by :meth:`save`."""
        import json

        config = json.loads((Path(directory) / "open_states.json").read_text(encoding="utf-8"))
        predictor = cls(Path(directory) / WEIGHTS_DIR, device=device, **config.get("settings", {}))
        predictor.history = list(config.get("history") or [])
        return predictor


def parse_spans(generated: str, n: int) -> list[str]:
    """The term after each of the first ``n`` sentinels in a T5 output (``""`` where a sentinel is missing)."""
    text = generated.replace("<pad>", "").replace("</s>", "")
    parts = SENTINEL.split(text)
    spans = {int(parts[i]): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    return [spans.get(i, "") for i in range(n)]


def rank_spans(sequences: Sequence[str], scores: Sequence[float], n: int) -> Ranked:
    """Per mask, the distinct non-empty terms of the beams in beam order, each with its beam's score."""
    ranked: Ranked = [[] for _ in range(n)]
    for sequence, score in zip(sequences, scores, strict=True):
        for j, term in enumerate(parse_spans(sequence, n)):
            if term and term.lower() not in {t.term for t in ranked[j]}:
                ranked[j].append(TermScore(term.lower(), score))
    return ranked
