"""Long texts read whole: a text longer than the encoder reads well is split into sentences (sentencex), every
sentence is scored as a text of its own in the same batch as the short texts, and the document's scores, labels
and intensities are built from its sentences' by one rule (:func:`document_row`), tuned on documents made from dev
texts (``benchmarks/documents/documents.py``; BENCHMARKS.md "Whole documents").

Why split at all: one vector for a long text that is mostly neutral washes out the one sentence that carries the
emotion. On documents of 32-86 dev texts with one or two emotional ones, one vector (the first 2,000 characters)
scores macro-F1 0.17 and the sentence rule 0.49; by length, one vector falls from 0.52 (under 150 characters) to
0.27 (500-1,000) and 0.14 (1,000-1,500). A long text that is emotional throughout (the longer dev texts of
German, Swedish, Portuguese) is still read better whole up to about 1,000 characters, so a text up to
:data:`WHOLE_UP_TO` characters is read whole (as before, so the scores of texts that short are unchanged) and a
longer one sentence by sentence. A sentence longer than :data:`SENTENCE_MAX_CHARS` (a run-on without full stops)
is cut at spaces into pieces no longer, so nothing the encoder reads is cut off; a text longer than
:data:`MAX_TEXT_CHARS` is refused in one line by the callers.

sentencex is the segmenter: on the 28 languages' dev texts joined in pairs it finds 0.97 of the sentence ends
(pysbd 0.91), gives the text back exactly (offsets are exact) and is about 100 times faster
(``benchmarks/documents/sentence_segmenters.py``). Whitespace between sentences belongs to no sentence.

Each sentence has its own language (identified, unless the caller gave one); the document's is the language most of
its characters were read as (:func:`majority_language`), and where several languages each make up at least
:data:`LANGUAGE_MIN_SHARE` of it, its result names them with their shares (:func:`languages_shown`).

A short text (read whole) is identified whole, and also sentence by sentence where no language was given; it is
told mixed only where its sentences are read as three or more languages (:func:`short_text_shares`): sentences
that short are misread as a neighbour often enough (Moroccan as Algerian Arabic, Swedish as Norwegian) that the long
texts' rule would call one in ten of the one-language dev texts with two or more sentences mixed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

WHOLE_UP_TO = 1000
"""Texts up to this many characters are read whole (one vector); longer ones sentence by sentence."""
SENTENCE_MAX_CHARS = 600
"""A sentence longer than this is cut at spaces (or, without spaces, at this length) into pieces no longer."""
MAX_TEXT_CHARS = 1_000_000
"""The longest text scored (about 10,000 sentences); a longer one is refused, not cut."""
LANGUAGE_MIN_SHARE = 0.05
"""The share of a document's characters from which a language is named in its result (issue 41): a quoted phrase
or one short sentence misread is noise; a paragraph is a language of the document."""
SHORT_SENTENCE_CHARS = 15
"""A short text's sentences of fewer characters are too short to tell its languages by (:func:`short_text_shares`)."""
MIXED_MIN_SENTENCES = 3
"""A short text is told mixed only when its sentences are read as at least this many languages
(:func:`short_text_shares`), so one with fewer sentences that long is never identified sentence by sentence."""
DOCUMENT_MARGIN = 0.0
"""How far above its threshold a sentence's score must be for the document to take the label: tuned on the dev-built
documents over 0-0.3, where 0 scored best (0.49; 0.47 at 0.05, 0.36 at 0.2; a margin growing with the log of the
number of sentences, or a blend of the two highest, scored no better): the sentences' own thresholds hold."""

_SPACE = re.compile(r"\s")


@dataclass(frozen=True)
class Span:
    """A sentence of a text: ``text[start:end]``, without the whitespace around it."""

    start: int
    end: int


def sentence_spans(text: str, lang: str | None = None) -> list[Span]:
    """The sentences of ``text`` as character spans, in order, each at most :data:`SENTENCE_MAX_CHARS` long;
    ``lang`` (a tag such as ``uk`` or ``pt-BR``; None: English rules) picks sentencex's rules for abbreviations and
    the like. A text with no sentence-final punctuation is one sentence (cut only when over-long)."""
    import sentencex

    spans, position = [], 0
    for piece in sentencex.segment((lang or "en").split("-")[0], text):
        start = position + len(piece) - len(piece.lstrip())
        end = position + len(piece.rstrip())
        position += len(piece)
        if end > start:
            spans.extend(_pieces(text, start, end))
    return spans


def _pieces(text: str, start: int, end: int) -> list[Span]:
    """``text[start:end]`` cut at spaces into parts of at most :data:`SENTENCE_MAX_CHARS` characters."""
    spans = []
    while end - start > SENTENCE_MAX_CHARS:
        window = text[start : start + SENTENCE_MAX_CHARS + 1]
        cut = max((m.start() for m in _SPACE.finditer(window)), default=0) or SENTENCE_MAX_CHARS
        spans.append(Span(start, start + cut))
        start += cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        spans.append(Span(start, end))
    return spans


def document_row(scores: np.ndarray, none_column: int | None, margin: float = DOCUMENT_MARGIN) -> np.ndarray:
    """A document's decision scores from its sentences' ``(n_sentences, n_labels)``: each emotion's is its highest
    sentence score less ``margin`` (so 0.5 stays the document's threshold), and the none label's its lowest
    sentence score (a document is neutral only where every sentence is)."""
    row = scores.max(axis=0) - margin
    if none_column is not None:
        row[none_column] = scores[:, none_column].min()
    return np.clip(row, 0.0, 1.0)


def document_labels(row: np.ndarray, none_column: int | None) -> np.ndarray:
    """The 0/1 labels of a document's ``row`` (:func:`document_row`): the emotions at or over 0.5, and the none
    label exactly where no emotion is."""
    labels = (row >= 0.5).astype(np.int8)
    if none_column is not None:
        labels[none_column] = 0 if np.delete(labels, none_column).any() else 1
    return labels


def document_intensity(scores: np.ndarray, raw: np.ndarray) -> np.ndarray:
    """A document's unrounded 0-3 intensity of each label: that of the sentence with the label's highest score."""
    best = scores.argmax(axis=0)
    return raw[best, np.arange(raw.shape[1])]


def language_shares(langs: Sequence[str], spans: Sequence[Span]) -> dict[str, float]:
    """Each language's share of a document's characters (its sentences' lengths summed by the language each was
    read as), largest first (ties: the first sentence's first)."""
    totals: dict[str, int] = {}
    for lang, span in zip(langs, spans, strict=True):
        totals[lang] = totals.get(lang, 0) + span.end - span.start
    whole = sum(totals.values()) or 1
    return {lang: count / whole for lang, count in sorted(totals.items(), key=lambda item: -item[1])}


def majority_language(shares: dict[str, float], undetermined: str = "und") -> str:
    """The language of a document (:func:`language_shares`): the one most of its characters were read as, of those
    identified (``undetermined`` only where no sentence's language was)."""
    return next((lang for lang in shares if lang != undetermined), undetermined)


def short_text_shares(
    langs: Sequence[str], spans: Sequence[Span], undetermined: str = "und"
) -> dict[str, float] | None:
    """The language shares of a short text (read whole) from its sentences' languages (``langs``, at ``spans``),
    where they tell it mixed, else None: counting only its sentences of at least :data:`SHORT_SENTENCE_CHARS`
    characters whose language was told, three or more languages with at least :data:`LANGUAGE_MIN_SHARE` each.
    Chosen on the 28 languages' dev texts (``benchmarks/languages/langid_mixed_short.py``), where it tells mixed 0.3 %
    of the one-language texts with two or more sentences (the long texts' rule, two languages: 9.6 %, most of
    them Moroccan read as Algerian Arabic, Swedish as Norwegian or Swahili with English) and 55 % of the texts
    made of 2-7 dev sentences in as many languages (of those in five or more, 79-89 %; a text in two keeps the
    language it is read as whole: a short sentence misread would otherwise take an Arabizi text away from Moroccan
    Arabic)."""
    counted = [(lang, span) for lang, span in zip(langs, spans, strict=True)
               if lang != undetermined and span.end - span.start >= SHORT_SENTENCE_CHARS]  # fmt: skip
    shares = language_shares([lang for lang, _ in counted], [span for _, span in counted])
    return shares if sum(share >= LANGUAGE_MIN_SHARE for share in shares.values()) >= MIXED_MIN_SENTENCES else None


def languages_shown(shares: dict[str, float]) -> dict[str, float] | None:
    """The languages a document's result names with their shares: those of at least :data:`LANGUAGE_MIN_SHARE`,
    where there are two or more (None for a document in one language)."""
    shown = {lang: round(share, 3) for lang, share in shares.items() if share >= LANGUAGE_MIN_SHARE}
    return shown if len(shown) > 1 else None
