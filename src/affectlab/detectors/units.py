"""The document model of a detection: every text a call scores is a *unit* of one of its documents (spaCy's
``Doc`` and its spans), recorded with its document, its kind (the whole text, one of its sentences, or a variant
without one word), its span and its language, read once here (:mod:`affectlab.detectors.identify`). Reading long
texts by sentences (:mod:`affectlab.detectors.documents`) and explaining (:mod:`affectlab.detectors.explain`) are
steps that add units; the units are scored in one batch, and each document's result is assembled from its units by
kind (:func:`document_readings`), never by their offsets in the batch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from affectlab.detectors.documents import (
    MIXED_MIN_SENTENCES,
    SHORT_SENTENCE_CHARS,
    WHOLE_UP_TO,
    Span,
    majority_language,
    sentence_spans,
    short_text_shares,
)
from affectlab.detectors.explain import without, word_spans
from affectlab.detectors.identify import read_language, read_languages
from affectlab.langid import UNDETERMINED

WHOLE = "whole"
"""A document read whole (one vector)."""
SENTENCE = "sentence"
"""A sentence of a document, scored alone (a long document is read by them; asked for, they make its arc)."""
VARIANT = "variant"
"""A unit without one of its words (explanation by occlusion): its span is the word's, within its ``parent``."""


@dataclass(frozen=True)
class Unit:
    """One text the model scores: of document ``doc``, of ``kind``, at ``span`` of the document's text (a variant:
    the removed word's span in its ``parent`` unit), read as ``lang`` (a tag given, normalised, else identified)
    and shown as ``shown`` (a tag given as given, else ``lang``)."""

    doc: int
    kind: str
    text: str
    span: Span
    lang: str
    shown: str
    parent: int | None = None


@dataclass
class Documents:
    """The documents of one call (``texts``, each with its earlier dialogue turns and the language tag given for
    it, ``""`` where none was) and the units scored for them, in the order they were added."""

    texts: list[str]
    contexts: list[list[str]]
    given: list[str]
    units: list[Unit] = field(default_factory=list)
    mixed: dict[int, dict[str, float]] = field(default_factory=dict)
    """The language shares of each short document read whole that its sentences tell mixed
    (:func:`~affectlab.detectors.documents.short_text_shares`)."""
    _index: dict[tuple[int, str], list[int]] = field(default_factory=dict)
    _variants: dict[int, list[int]] = field(default_factory=dict)
    _sentences: dict[int, list[int]] = field(default_factory=dict)

    def add(self, unit: Unit) -> int:
        """Add ``unit``; its index among the units."""
        self.units.append(unit)
        index = len(self.units) - 1
        if unit.kind == VARIANT:
            assert unit.parent is not None
            self._variants.setdefault(unit.parent, []).append(index)
        else:
            self._index.setdefault((unit.doc, unit.kind), []).append(index)
        return index

    def of(self, doc: int, kind: str) -> list[int]:
        """The indices of document ``doc``'s units of ``kind`` (WHOLE or SENTENCE), in text order."""
        return self._index.get((doc, kind), [])

    def variants(self, unit: int) -> list[int]:
        """The indices of the variants of ``unit``, in the order of its words."""
        return self._variants.get(unit, [])

    def whole(self, doc: int) -> int | None:
        """The unit that reads document ``doc`` whole, or None (it is read by its sentences)."""
        found = self.of(doc, WHOLE)
        return found[0] if found else None

    def sentences(self, doc: int) -> list[int]:
        """Document ``doc``'s sentence units: its whole unit where it is one sentence that spans the whole text."""
        return self._sentences.get(doc, [])

    def set_sentences(self, doc: int, units: list[int]) -> None:
        """Record document ``doc``'s sentence units (in text order)."""
        self._sentences[doc] = units

    def unit_contexts(self) -> list[list[str]]:
        """Each unit's context: its document's earlier turns (only a detector that reads each turn whole, never split
        into sentences, reads them)."""
        return [self.contexts[unit.doc] for unit in self.units]


def read_documents(
    texts: Sequence[str], contexts: Sequence[list[str]], given: Sequence[str], split_long: bool, with_sentences: bool
) -> Documents:
    """The units of ``texts``: a text up to :data:`~affectlab.detectors.documents.WHOLE_UP_TO` characters (any
    text when ``split_long`` is False: a detector that reads context reads each text as a whole turn) is read
    whole; a longer one by its sentences; ``with_sentences`` also adds a short text's sentences (its arc)."""
    docs = Documents(list(texts), [list(turns) for turns in contexts], [tag or "" for tag in given])
    long = [split_long and len(text) > WHOLE_UP_TO for text in docs.texts]
    short = [doc for doc, is_long in enumerate(long) if not is_long]
    read = read_languages([docs.texts[doc] for doc in short], [docs.given[doc] for doc in short])
    langs = dict(zip(short, read, strict=True))
    for doc, (text, tag) in enumerate(zip(docs.texts, docs.given, strict=True)):
        whole = None if long[doc] else _add_whole(docs, doc, text, tag, langs[doc])
        if long[doc] or with_sentences:
            _add_sentences(docs, doc, whole)
    return docs


def _add_whole(docs: Documents, doc: int, text: str, tag: str, lang: str) -> int:
    """Document ``doc``'s whole unit, read as ``lang`` (``tag`` where one was given, else as identified); where its
    sentences tell it mixed (:func:`~affectlab.detectors.documents.short_text_shares`), as most of its characters
    were read (as a long text is), with the shares recorded."""
    shares = None if tag else _short_text_shares(text, lang)
    if shares:
        docs.mixed[doc], lang = shares, majority_language(shares, UNDETERMINED)
    return docs.add(Unit(doc, WHOLE, text, Span(0, len(text)), lang, tag.strip() or lang))


def _short_text_shares(text: str, lang: str) -> dict[str, float] | None:
    """The language shares of a short ``text`` (identified whole as ``lang``) where its sentences tell it mixed
    (:func:`~affectlab.detectors.documents.short_text_shares`); only a text with enough sentences long enough to
    tell is identified sentence by sentence."""
    if len(text) < MIXED_MIN_SENTENCES * SHORT_SENTENCE_CHARS:
        return None
    spans = [span for span in sentence_spans(text, lang) if span.end - span.start >= SHORT_SENTENCE_CHARS]
    if len(spans) < MIXED_MIN_SENTENCES:
        return None
    parts = [text[span.start : span.end] for span in spans]
    return short_text_shares(read_languages(parts, [""] * len(parts)), spans, UNDETERMINED)


def _add_sentences(docs: Documents, doc: int, whole: int | None) -> None:
    """Document ``doc``'s sentences, split by the rules of its language (the tag given as given, else its whole
    unit's, else that of its first :data:`WHOLE_UP_TO` characters), each a unit with its own language."""
    text, tag = docs.texts[doc], docs.given[doc]
    rules = tag or (docs.units[whole].lang if whole is not None else read_language(text[:WHOLE_UP_TO]))
    spans = sentence_spans(text, rules) or [Span(0, len(text))]
    if whole is not None and len(spans) == 1 and spans[0] == Span(0, len(text)):
        docs.set_sentences(doc, [whole])
        return
    parts = [text[span.start : span.end] for span in spans]
    langs = read_languages(parts, [tag] * len(parts))
    indices = [docs.add(Unit(doc, SENTENCE, part, span, lang, tag.strip() or lang))
               for part, span, lang in zip(parts, spans, langs, strict=True)]  # fmt: skip
    docs.set_sentences(doc, indices)


def add_variants(docs: Documents, with_sentences: bool) -> None:
    """The explanation step: every explained unit's variants, each without one of its words (read as its unit is):
    each document's whole unit, else its sentences, and with ``with_sentences`` every sentence too."""
    explained: list[int] = []
    for doc in range(len(docs.texts)):
        whole = docs.whole(doc)
        explained += [whole] if whole is not None else []
        if whole is None or with_sentences:
            explained += [unit for unit in docs.sentences(doc) if unit != whole]
    for index in sorted(set(explained)):
        unit = docs.units[index]
        for span in word_spans(unit.text):
            docs.add(Unit(unit.doc, VARIANT, without(unit.text, span), span, unit.lang, unit.shown, parent=index))
