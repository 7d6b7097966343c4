"""Log-likelihood scoring of multiple-choice answers with a local Hugging Face causal language model.

Section 4.1 of Eval-UA-tion 1.0 poses each task so that the model predicts one short answer (a letter, a number,
a word, ``так``/``ні``); scored by likelihood, the model's choice is the option whose answer is most probable after
the prompt, as in lm-evaluation-harness's ``multiple_choice`` output type (``acc``).

Leading-space convention: the scored continuation of a target is :data:`~affectlab.uatasks.prompts.
TARGET_DELIMITER` plus the target, so after ``...ВІДПОВІДЬ:`` the option ``A`` is scored as ``" A"`` (the same
string a few-shot example shows). Tokenization at the boundary follows lm-evaluation-harness (``HFLM.
_encode_pair``): trailing spaces of the prompt move to the continuation, prompt and prompt + continuation are
tokenized whole, and the continuation's tokens are those of the whole beyond the prompt's length, so a token that
merges across the boundary is scored as the tokenizer really splits the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from affectlab.errors import InputError
from affectlab.extras import require
from affectlab.llm.local import load_causal_lm, position_limit
from affectlab.uatasks.multiple_choice import Prediction
from affectlab.uatasks.prompts import TARGET_DELIMITER


def encode_pair(tokenizer: Any, prompt: str, continuation: str) -> tuple[list[int], list[int]]:
    """Token ids of ``prompt`` and of ``continuation`` after it, split the way lm-evaluation-harness splits them.

    The tokenizer's own special tokens (a BOS for Llama-type tokenizers, none for GPT-2) are kept, so the model
    sees its prompts as it was trained to. (lm-evaluation-harness 0.4's ``hf`` model leaves the BOS out unless given
    ``add_bos_token=True``, so for Llama-type models pass that to compare scores with the exported tasks.)
    """
    spaces = len(prompt) - len(prompt.rstrip())
    if spaces:  # a trailing space belongs with the word it precedes in most tokenizers
        prompt, continuation = prompt[:-spaces], prompt[-spaces:] + continuation
    context_ids = list(tokenizer(prompt)["input_ids"])
    whole_ids = list(tokenizer(prompt + continuation)["input_ids"])
    if not context_ids:
        raise InputError("a prompt to score must not be empty (nothing would condition the first token)")
    continuation_ids = whole_ids[len(context_ids) :]
    if not continuation_ids:
        raise InputError(f"the continuation {continuation!r} adds no tokens to the prompt")
    return context_ids, continuation_ids


def loglik_choices(
    model: Any,
    tokenizer: Any,
    prompt: str,
    targets: Sequence[str],
    target_delimiter: str = TARGET_DELIMITER,
    max_length: int | None = None,
) -> list[float]:
    """Sum of the log-probabilities of each target's tokens (``target_delimiter + target``) after ``prompt``.

    The targets go through the model in one padded batch, each distinct input once: single-token answers (``A``,
    ``B``, ...) after the same prompt share one row, as lm-evaluation-harness groups them. Sequences longer than
    ``max_length`` (default: the model's position limit) lose tokens from the left, as in lm-evaluation-harness.
    """
    require("torch", "hf", "log-likelihood scoring")
    if not targets:
        raise InputError("no targets to score")
    pairs = [encode_pair(tokenizer, prompt, target_delimiter + target) for target in targets]
    limit = max_length or position_limit(model)
    # the last token is only ever predicted, never an input
    sequences = [tuple((context + continuation)[-(limit + 1) :][:-1]) for context, continuation in pairs]
    rows = list(dict.fromkeys(sequences))
    logits = _forward(model, rows)
    scores = []
    for sequence, (_, continuation) in zip(sequences, pairs, strict=True):
        # the logits at position t predict token t + 1; the continuation is the last len(continuation) tokens
        start = len(sequence) - len(continuation)
        log_probs = logits[rows.index(sequence), start : len(sequence)].float().log_softmax(dim=-1)
        scores.append(float(log_probs[range(len(continuation)), continuation].sum()))
    return scores


def _forward(model: Any, rows: Sequence[Sequence[int]]) -> Any:
    """The model's logits for ``rows`` of token ids, right-padded into one batch."""
    torch = require("torch", "hf", "log-likelihood scoring")
    device = next(model.parameters()).device
    # right padding: a causal model's earlier positions never see the pad, so no position ids need shifting
    input_ids = torch.zeros((len(rows), max(len(row) for row in rows)), dtype=torch.long)
    attention_mask = torch.zeros_like(input_ids)
    for i, row in enumerate(rows):
        input_ids[i, : len(row)] = torch.tensor(row)
        attention_mask[i, : len(row)] = 1
    with torch.no_grad():
        return model(input_ids=input_ids.to(device), attention_mask=attention_mask.to(device)).logits


class HFCausalScorer:
    """Multiple-choice answers by log-likelihood from a local Hugging Face causal LM directory.

    ``device`` defaults to CUDA when available, else CPU; ``dtype`` (``float32``, ``float16``, ``bfloat16``)
    defaults to float32 on CPU and to the checkpoint's own dtype on CUDA. Nothing is downloaded: the directory
    must hold the model and its tokenizer.
    """

    def __init__(self, model_dir: str | Path, device: str | None = None, dtype: str | None = None) -> None:
        loaded = load_causal_lm(model_dir, device, dtype)
        self.model, self.tokenizer, self.device = loaded.model, loaded.tokenizer, loaded.device
        self.name = Path(model_dir).name

    @classmethod
    def from_model(cls, model: Any, tokenizer: Any, name: str) -> HFCausalScorer:
        """A scorer over a model and tokenizer already in memory (e.g. a randomly initialised one for timing)."""
        scorer = cls.__new__(cls)
        scorer.model, scorer.tokenizer, scorer.name = model.eval(), tokenizer, name
        scorer.device = str(next(model.parameters()).device)
        return scorer

    def score(self, prompt: str, targets: Sequence[str]) -> Prediction:
        """The option whose target is most likely after ``prompt`` (the first one on a tie)."""
        scores = loglik_choices(self.model, self.tokenizer, prompt, targets)
        return Prediction(index=max(range(len(scores)), key=scores.__getitem__), scores=tuple(scores))
