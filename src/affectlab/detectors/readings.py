"""Each document's reading, assembled from its scored units by kind (:mod:`affectlab.detectors.units`): a document
read whole takes its whole unit's scores, one read by its sentences the rule over theirs
(:func:`~affectlab.detectors.documents.document_row`), and an explained one its words' weights from its variants.
:func:`read_texts` is the one path from texts to readings: ``detect``, ``detect --input``, ``score`` and
``evaluate`` all go through it, so a text reads the same in each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from affectlab.detectors.base import Detector
from affectlab.detectors.batch import Inputs, prepare_batch
from affectlab.detectors.documents import (
    Span,
    document_intensity,
    document_labels,
    document_row,
    language_shares,
    majority_language,
)
from affectlab.detectors.explain import Explained, document_explanation, shifted
from affectlab.detectors.units import VARIANT, Documents, add_variants, read_documents
from affectlab.labels import LabelSpace
from affectlab.langid import UNDETERMINED
from affectlab.metrics.intensity import intensity_levels


@dataclass
class SentenceReading:
    """One sentence of a document as it was scored alone: its span, decision ``scores``, ranked ``labels``, the
    language it was read as, its 0-3 ``levels`` (or None) and its words' weights (or None)."""

    span: Span
    scores: np.ndarray
    labels: list[str]
    lang: str
    levels: np.ndarray | None = None
    explained: Explained | None = None


@dataclass
class Reading:
    """One document's reading: decision ``scores`` and 0/1 ``predicted`` ``(n_labels,)``, ranked ``labels``, its
    language, the unrounded 0-3 ``raw`` intensities and ``levels`` shown (or None), each language's share of its
    characters (a document read by its sentences; None for one read whole), its ``sentences`` (when asked for)
    and its words' weights (when explained)."""

    scores: np.ndarray
    predicted: np.ndarray
    labels: list[str]
    lang: str
    raw: np.ndarray | None = None
    levels: np.ndarray | None = None
    shares: dict[str, float] | None = None
    sentences: list[SentenceReading] | None = None
    explained: Explained | None = None


def reads_documents(detector: Detector) -> bool:
    """Whether ``detector`` reads a long text sentence by sentence (:mod:`affectlab.detectors.documents`): every
    detector that reads texts alone; one that reads dialogue context reads each turn whole (cut by its encoder)."""
    return not detector.capabilities.reads_context


def read_texts(
    detector: Detector,
    texts: Sequence[str],
    contexts: Sequence[list[str]] | None = None,
    langs: Sequence[str] | None = None,
    intensity: bool = False,
    sentences: bool = False,
    explain: bool = False,
) -> list[Reading]:
    """Each text's :class:`Reading`: its units (:func:`~affectlab.detectors.units.read_documents`, and their
    variants with ``explain``) scored in one batch by ``detector.score`` (one encoder pass), then assembled by
    document. ``langs``: each text's language tag (``""`` or None: identified, once, with its units)."""
    given = [lang or "" for lang in langs] if langs is not None else [""] * len(texts)
    turns = [list(turn) for turn in contexts] if contexts is not None else [[] for _ in texts]
    docs = read_documents(texts, turns, given, reads_documents(detector), sentences)
    if explain:
        add_variants(docs, sentences)
    units = Inputs([u.text for u in docs.units], docs.unit_contexts(), [u.lang for u in docs.units])
    scored = detector.score(prepare_batch(detector, units), intensity)
    assembly = _Assembly(detector.label_space, docs, scored.scores, scored.labels, scored.intensities, explain)
    return [assembly.document(doc, sentences) for doc in range(len(docs.texts))]


@dataclass
class _Assembly:
    """Documents' readings from their scored units."""

    space: LabelSpace
    docs: Documents
    scores: np.ndarray
    predicted: np.ndarray
    raw: np.ndarray | None
    explain: bool

    def __post_init__(self) -> None:
        space = self.space
        self.none_column = space.labels.index(space.none_label) if space.none_label else None
        self.width = len(space.labels)

    def ranked(self, scores: np.ndarray, predicted: np.ndarray) -> list[str]:
        """The predicted labels, highest score first."""
        return [self.space.labels[j] for j in np.argsort(-scores, kind="stable") if predicted[j]]

    def words(self, unit: int) -> Explained | None:
        """A unit's words (spans within it) and weights: its scores less each of its variants'."""
        variants = self.docs.variants(unit)
        if not variants:
            return None
        spans = [self.docs.units[v].span for v in variants]
        return Explained(spans, self.scores[unit] - self.scores[variants])

    def document(self, doc: int, with_sentences: bool) -> Reading:
        """Document ``doc``'s reading (with its sentences' when asked for)."""
        whole, parts = self.docs.whole(doc), self.docs.sentences(doc)
        reading = self._whole(whole) if whole is not None else self._by_sentences(parts)
        if with_sentences:
            reading.sentences = [self._sentence(unit) for unit in parts]
        return reading

    def _whole(self, unit: int) -> Reading:
        scores, predicted = self.scores[unit], self.predicted[unit]
        raw = None if self.raw is None else self.raw[unit]
        words = shifted(self.words(unit), 0, self.width) if self.explain else None
        lang, shares = self.docs.units[unit].shown, self.docs.mixed.get(self.docs.units[unit].doc)
        return Reading(scores, predicted, self.ranked(scores, predicted), lang, raw, _levels(raw, predicted), shares,
                       explained=words)  # fmt: skip

    def _by_sentences(self, parts: list[int]) -> Reading:
        units = [self.docs.units[i] for i in parts]
        scores = document_row(self.scores[parts], self.none_column)
        predicted = document_labels(scores, self.none_column)
        shares = language_shares([unit.shown for unit in units], [unit.span for unit in units])
        raw = None if self.raw is None else document_intensity(self.scores[parts], self.raw[parts])
        words = None
        if self.explain:
            by_unit = {i: found for i in parts if (found := self.words(i)) is not None}
            rule = lambda rows: document_row(rows, self.none_column)  # noqa: E731
            words = document_explanation([(i, unit.span) for i, unit in zip(parts, units, strict=True)], by_unit,
                                         self.scores, rule)  # fmt: skip
        return Reading(scores, predicted, self.ranked(scores, predicted), majority_language(shares, UNDETERMINED),
                       raw, _levels(raw, predicted), shares, explained=words)  # fmt: skip

    def _sentence(self, index: int) -> SentenceReading:
        unit = self.docs.units[index]
        assert unit.kind != VARIANT
        scores, predicted = self.scores[index], self.predicted[index]
        raw = None if self.raw is None else self.raw[index]
        words = shifted(self.words(index), unit.span.start, self.width) if self.explain else None
        return SentenceReading(unit.span, scores, self.ranked(scores, predicted), unit.shown,
                               _levels(raw, predicted), words)  # fmt: skip


def _levels(raw: np.ndarray | None, predicted: np.ndarray) -> np.ndarray | None:
    return None if raw is None else intensity_levels(raw, predicted)
