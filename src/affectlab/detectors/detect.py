"""``affectlab.detect``: emotions of texts with the embedded default detector (or any saved detector), the common
case in one call and no configuration. A :class:`Reader` (a detector and what the call asks of it, checked once)
reads the texts through the document model (:mod:`affectlab.detectors.units`, :mod:`affectlab.detectors.readings`)
and turns each reading into the :class:`~affectlab.detectors.results.Detection` every output shows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from affectlab.detectors.base import Detector
from affectlab.detectors.checks import (
    check_intensity,
    check_lengths,
    check_sentences,
    context_not_read,
    explained_labels,
    unscorable,
)
from affectlab.detectors.documents import languages_shown
from affectlab.detectors.explain import Explained, SpanWeight, label_weights
from affectlab.detectors.notes import document_notes, encoder_cut, languages_note, text_notes, trained_on
from affectlab.detectors.readings import Reading, SentenceReading, read_texts
from affectlab.detectors.resolve import ModelRef, resolve_detector
from affectlab.detectors.results import Detection, Sentence, file_columns, file_values
from affectlab.errors import InputError
from affectlab.labels import SCORE_DECIMALS, LabelSpace
from affectlab.langid import check_lang
from affectlab.text import as_context, as_texts, check_count


def detect(
    texts: str | Sequence[str],
    taxonomy: str = "ekman",
    context: Sequence[str] | None = None,
    top_k: int | None = None,
    model: ModelRef = "default",
    fast: bool = False,
    lang: str | None = None,
    intensity: bool = False,
    sentences: bool = False,
    explain: bool | Sequence[str] = False,
) -> list[Detection]:
    """Detect emotions in ``texts`` (one string or several) with the default head for ``taxonomy``
    (``ekman``, ``goemotions``, ``emocontext``), or with ``model``: a detector object, or a saved detector's folder
    (loaded once per process: :func:`~affectlab.detectors.resolve.resolve_detector`).

    ``context`` gives earlier dialogue turns as a list of str (the same for every text; EmoContext reads the last
    two); a detector that reads texts alone (the default ``ekman`` and ``goemotions`` heads) refuses it rather than
    ignore it. ``top_k`` (a whole number, at least 1) keeps only the k predicted labels with the highest scores,
    and at least the top one. Bad arguments raise :class:`~affectlab.errors.AffectlabError` subclasses (also
    ``TypeError``/``ValueError``), checked as the command line and the service check them.
    ``fast`` uses the default head's n-gram member alone (no encoder): much faster, somewhat less accurate.
    ``lang`` reads every text as that language (a BCP 47 tag or code: ``de``, ``pt-BR``, ``orm``, ``zh-Hant``, read
    as the language of the 28 it names and shown as given: :func:`affectlab.langid.normalise`) instead of
    identifying each one's; ``intensity`` adds each emotion's intensity 0-3 (the default ekman head).

    A text is read whole: one over :data:`~affectlab.detectors.documents.WHOLE_UP_TO` characters sentence by
    sentence, its result built from its sentences' (:mod:`affectlab.detectors.documents`; a text over
    :data:`~affectlab.detectors.documents.MAX_TEXT_CHARS` characters is refused). ``sentences`` gives each result
    its ``sentences``, each scored alone (the emotion arc of a long text); a detector that reads dialogue context
    (``emocontext``) reads a turn whole and refuses it.

    ``explain`` gives each result (and sentence) its ``explanation``: for each label given (after ``top_k``), and
    for each label named when ``explain`` is a list of labels, every word of the text with how far the label's
    decision score falls when the word is removed (:mod:`affectlab.detectors.explain`; each text costs one more
    scored text per word). A detector that reads dialogue context explains the last turn, its context kept.
    """
    items = as_texts(texts)
    turns = as_context(context)
    top_k = check_count("top_k", top_k)
    lang = check_lang(lang)
    check_lengths(items)
    detector = resolve_detector(model, taxonomy, fast)
    if turns and not detector.capabilities.reads_context:
        raise InputError(context_not_read(detector))
    reader = Reader.checked(detector, intensity, sentences, explain, top_k)
    return reader.detections(items, [lang or ""] * len(items), [turns] * len(items))


@dataclass(frozen=True)
class Reader:
    """A detector with what a call asks of it (checked once by :meth:`checked`): ``intensity``, ``sentences``, the
    labels to explain beside the given ones (``explain``; None: no explanation) and ``top_k``. What
    :func:`detect`, ``detect --input`` and ``score`` read texts with."""

    detector: Detector
    intensity: bool = False
    sentences: bool = False
    explain: list[str] | None = None
    top_k: int | None = None

    @classmethod
    def checked(
        cls, detector: Detector, intensity: bool = False, sentences: bool = False,
        explain: bool | Sequence[str] = False, top_k: int | None = None,
    ) -> Reader:  # fmt: skip
        """The reader, refusing in one line what ``detector`` cannot give (intensity, sentences, a label to
        explain it does not have)."""
        check_intensity(detector, intensity)
        check_sentences(detector, sentences)
        return cls(detector, intensity, sentences, explained_labels(detector.label_space, explain), top_k)

    @property
    def space(self) -> LabelSpace:
        """The detector's label space."""
        return self.detector.label_space

    def detections(
        self, texts: Sequence[str], langs: Sequence[str] | None = None, contexts: Sequence[list[str]] | None = None
    ) -> list[Detection]:
        """The :class:`~affectlab.detectors.results.Detection` of each text (``langs``: each one's tag, ``""`` to
        identify it; ``contexts``: each one's earlier turns), all scored in one batch
        (:func:`~affectlab.detectors.readings.read_texts`)."""
        readings = read_texts(self.detector, texts, contexts, langs, self.intensity, self.sentences,
                              self.explain is not None)  # fmt: skip
        return [self.detection(text, reading) for text, reading in zip(texts, readings, strict=True)]

    def file_rows(
        self, texts: Sequence[str], langs: Sequence[str]
    ) -> list[tuple[list[float], list[str], dict[str, Any]]]:
        """What a file run writes for each text: its scores in label order, its labels and the values of its
        :meth:`file_columns` (:func:`~affectlab.detectors.results.file_values`)."""
        emotions, labels = self._emotions, self.space.labels
        return [([found.scores[label] for label in labels], found.labels, file_values(found, emotions))
                for found in self.detections(texts, langs)]  # fmt: skip

    def file_columns(self, read_as: bool = True) -> list[tuple[str, Any]]:
        """The columns a file run writes after ``labels`` (:func:`~affectlab.detectors.results.file_columns`;
        ``read_as`` False: the input's own ``lang`` column is filled in instead of a new one)."""
        said, explain = self.detector.capabilities.trained_languages is not None, self.explain is not None
        return file_columns(self.space.labels, self._emotions, read_as=read_as, supported=said,
                            intensity=self.intensity, sentences=self.sentences, explain=explain)  # fmt: skip

    @staticmethod
    def problem(text: object) -> str:
        """Why ``text`` cannot be scored, or "" (:func:`~affectlab.detectors.checks.unscorable`)."""
        return unscorable(text)

    @property
    def _emotions(self) -> list[tuple[int, str]]:
        space = self.space
        return [(j, label) for j, label in enumerate(space.labels) if label != space.none_label]

    def detection(self, text: str, reading: Reading) -> Detection:
        """The :class:`~affectlab.detectors.results.Detection` of ``text`` from its ``reading``: labels cut to
        ``top_k`` (at least the top one), explanations of those labels and of ``explain``'s, notes."""
        trained = self.detector.capabilities.trained_languages
        supported = trained_on(trained, reading.lang)
        mixed = None if reading.shares is None else languages_shown(reading.shares)
        notes = text_notes(
            text, encoder_cut(self.detector, [text]), reading.lang, supported, reading.shares is not None
        )
        arc = None if reading.sentences is None else len(reading.sentences)
        notes += document_notes(text, arc, self.detector) + ([languages_note(mixed)] if mixed else [])
        labels = self._top(reading.scores, reading.labels)
        sentences = None if reading.sentences is None else [self.sentence(text, part) for part in reading.sentences]
        return Detection(text, labels, self._shown(reading.scores), notes, reading.lang, supported,
                         self._rated(reading.levels), sentences, self._why(reading.explained, text, labels),
                         mixed)  # fmt: skip

    def sentence(self, text: str, part: SentenceReading) -> Sentence:
        """The :class:`~affectlab.detectors.results.Sentence` of one of ``text``'s scored sentences."""
        labels = self._top(part.scores, part.labels)
        supported = trained_on(self.detector.capabilities.trained_languages, part.lang)
        return Sentence(part.span.start, part.span.end, text[part.span.start : part.span.end], labels,
                        self._shown(part.scores), part.lang, self._rated(part.levels),
                        self._why(part.explained, text, labels), supported)  # fmt: skip

    def _top(self, row_scores: np.ndarray, labels: list[str]) -> list[str]:
        if self.top_k is None:
            return labels
        return labels[: self.top_k] or [self.space.labels[int(np.argmax(row_scores))]]

    def _shown(self, row_scores: np.ndarray) -> dict[str, float]:
        labels = self.space.labels
        return {label: round(float(p), SCORE_DECIMALS) for label, p in zip(labels, row_scores, strict=True)}

    def _rated(self, levels: np.ndarray | None) -> dict[str, int] | None:
        if levels is None:
            return None
        space = self.space
        return {
            label: int(level) for label, level in zip(space.labels, levels, strict=True) if label != space.none_label
        }

    def _why(self, explained: Explained | None, text: str, labels: list[str]) -> dict[str, list[SpanWeight]] | None:
        if explained is None:
            return None
        wanted = list(dict.fromkeys([*labels, *(self.explain or [])]))
        return label_weights(self.space.labels, explained.weights, explained.spans, text, wanted)
