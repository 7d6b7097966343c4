"""``affectlab.detect``: emotions of texts with the embedded default detector (or any saved detector), the common
case in one call and no configuration."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from affectlab.detectors import Detector
from affectlab.detectors.base import Inputs
from affectlab.detectors.batch import prepare_batch
from affectlab.detectors.documents import (
    MAX_TEXT_CHARS,
    WHOLE_UP_TO,
    Plan,
    Span,
    document_intensity,
    document_labels,
    document_row,
    language_shares,
    languages_shown,
    majority_language,
    plan_units,
)
from affectlab.detectors.explain import (
    Explained,
    Occlusions,
    SpanWeight,
    document_explanation,
    explained_units,
    label_weights,
    occlusions,
    shifted,
    unit_explanations,
)
from affectlab.detectors.resolve import ModelRef, describe_model, resolve_detector
from affectlab.detectors.results import Detection, Sentence
from affectlab.errors import ArgumentTypeError, InputError
from affectlab.labels import SCORE_DECIMALS, LabelSpace
from affectlab.langid import UNDETERMINED, arabizi, detect_languages, normalise, undetermined_reason
from affectlab.metrics.intensity import intensity_levels
from affectlab.text import as_context, as_texts, check_count, check_lang


@dataclass
class LabelledTexts:
    """What the default detection gives a batch of texts: decision ``scores`` ``(n, n_labels)``, each text's
    ``labels`` (highest score first), the language each was read as, (when asked for) the 0-3 intensity of each
    label ``(n, n_labels)``, 0 where the label is not predicted, (when asked for) each text's sentences, and for
    each text read sentence by sentence each language's share of its characters
    (:func:`~affectlab.detectors.documents.language_shares`; None for a text read whole)."""

    scores: np.ndarray
    labels: list[list[str]]
    langs: list[str]
    intensities: np.ndarray | None = None
    sentences: list[LabelledSentences] | None = None
    explanations: list[Explained] | None = None
    shares: list[dict[str, float] | None] | None = None


@dataclass
class LabelledSentences:
    """One text's sentences as :func:`labelled_texts` scored them: their spans, decision ``scores``
    ``(n_sentences, n_labels)``, ``labels`` (highest score first), languages and 0-3 ``intensities`` (or None)."""

    spans: list[Span]
    scores: np.ndarray
    labels: list[list[str]]
    langs: list[str]
    intensities: np.ndarray | None = None
    explanations: list[Explained] | None = None


def unsupported_note(lang: str) -> str:
    """The one-line note for a text in a language the model was not trained on."""
    return f"the model was not trained on {lang!r} texts; take these scores as a guess"


def context_not_read(detector: Detector) -> str:
    """Why a context given to ``detector`` would be ignored, as one line."""
    return (
        f"{describe_model(detector)} reads each text alone, so the context would be ignored: earlier dialogue turns "
        "are read by the emocontext taxonomy and by models trained with context"
    )


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
    check_intensity(detector, intensity)
    check_sentences(detector, sentences)
    asked = explained_labels(detector.label_space, explain)
    langs = [lang] * len(items) if lang else None
    done = labelled_texts(detector, items, [turns] * len(items), langs, intensity, sentences, asked is not None)
    return [detection(detector, done, i, text, top_k, asked) for i, text in enumerate(items)]


def explained_labels(space: LabelSpace, explain: bool | Sequence[str] | str) -> list[str] | None:
    """The labels ``explain`` names beside the given ones (``[]`` for True; None: no explanation), refusing a
    label the taxonomy does not have."""
    if isinstance(explain, bool):
        return [] if explain else None
    if isinstance(explain, str):
        explain = [part.strip() for part in explain.split(",") if part.strip()]
    wanted = "explain must be True, False or a list of label names (str)"
    if not isinstance(explain, Sequence):
        raise ArgumentTypeError(f"{wanted}, not {type(explain).__name__}")
    odd = [type(label).__name__ for label in explain if not isinstance(label, str)]
    if odd:
        raise ArgumentTypeError(f"{wanted}, not a {type(explain).__name__} holding {odd[0]}")
    unknown = [label for label in explain if label not in space.labels]
    if unknown:
        raise InputError(f"cannot explain {', '.join(map(repr, unknown))}: the labels are {', '.join(space.labels)}")
    return list(dict.fromkeys(explain))


def detection(
    detector: Detector, done: LabelledTexts, i: int, text: str, top_k: int | None = None,
    explain: Sequence[str] | None = None,
) -> Detection:  # fmt: skip
    """The :class:`Detection` of ``done``'s ``i``-th text ``text``, its labels cut to ``top_k`` (at least the top
    one), with the explanation of those labels and of ``explain``'s when the batch was explained."""
    space = detector.label_space
    trained = detector.capabilities.trained_languages
    lang = done.langs[i]
    supported = trained_on(trained, lang)
    arc = None if done.sentences is None else done.sentences[i]
    shares = done.shares[i] if done.shares else None
    mixed = None if shares is None else languages_shown(shares)
    notes = text_notes(text, encoder_cut(detector, [text]), lang, supported, shares is not None)
    notes += document_notes(text, arc, detector) + ([languages_note(mixed)] if mixed else [])
    rated = None if done.intensities is None else _intensity_dict(space, done.intensities[i])
    labels = _top(space, done.scores[i], done.labels[i], top_k)
    shown = _shown(space, done.scores[i])
    why = _why(space, done.explanations[i] if done.explanations else None, text, labels, explain)
    sentence_list = sentence_results(space, text, arc, top_k, explain, trained)
    return Detection(text, labels, shown, notes, lang, supported, rated, sentence_list, why, mixed)


def trained_on(trained: frozenset[str] | None, lang: str) -> bool | None:
    """Whether a model trained on the languages ``trained`` (None: it does not say) was trained on ``lang`` (a tag
    as given or identified: ``zh-Hant`` is Chinese)."""
    return None if trained is None else normalise(lang) in trained


def _why(
    space: LabelSpace, explained: Explained | None, text: str, labels: list[str], asked: Sequence[str] | None
) -> dict[str, list[SpanWeight]] | None:
    if explained is None:
        return None
    wanted = list(dict.fromkeys([*labels, *(asked or [])]))
    return label_weights(space.labels, explained.weights, explained.spans, text, wanted)


def sentence_results(
    space: LabelSpace, text: str, arc: LabelledSentences | None, top_k: int | None = None,
    explain: Sequence[str] | None = None, trained: frozenset[str] | None = None,
) -> list[Sentence] | None:  # fmt: skip
    """The :class:`Sentence` results of one text's scored sentences (None when they were not asked for), each
    ``supported`` where ``trained`` (the model's languages) holds its language."""
    if arc is None:
        return None
    results = []
    for j, span in enumerate(arc.spans):
        rated = None if arc.intensities is None else _intensity_dict(space, arc.intensities[j])
        labels = _top(space, arc.scores[j], arc.labels[j], top_k)
        shown = _shown(space, arc.scores[j])
        why = _why(space, arc.explanations[j] if arc.explanations else None, text, labels, explain)
        results.append(Sentence(span.start, span.end, text[span.start : span.end], labels, shown, arc.langs[j],
                                rated, why, trained_on(trained, arc.langs[j])))  # fmt: skip
    return results


def _top(space: LabelSpace, row_scores: np.ndarray, labels: list[str], top_k: int | None) -> list[str]:
    if top_k is None:
        return labels
    return labels[:top_k] or [space.labels[int(np.argmax(row_scores))]]


def _shown(space: LabelSpace, row_scores: np.ndarray) -> dict[str, float]:
    return {label: round(float(p), SCORE_DECIMALS) for label, p in zip(space.labels, row_scores, strict=True)}


def check_lengths(texts: Sequence[str]) -> None:
    """Refuse a text longer than :data:`~affectlab.detectors.documents.MAX_TEXT_CHARS`, naming it (1-based)."""
    for number, text in enumerate(texts, start=1):
        if len(text) > MAX_TEXT_CHARS:
            raise InputError(too_long(len(text), f"text {number}"))


def too_long(n_chars: int, what: str = "the text") -> str:
    """Why a text of ``n_chars`` characters is not scored, as one line."""
    return f"{what} has {n_chars:,} characters; the limit is {MAX_TEXT_CHARS:,}: split it into parts"


def check_sentences(detector: Detector, sentences: bool) -> None:
    """Refuse ``sentences`` for a detector that reads a dialogue turn whole (with its context)."""
    if sentences and not reads_documents(detector):
        raise InputError(
            f"{describe_model(detector)} reads a dialogue turn whole, with its context, so it does not score "
            "sentences: sentences are for the ekman and goemotions taxonomies"
        )


def encoder_cut(detector: Detector, texts: Sequence[str]) -> int | None:
    """How many characters of a text ``detector``'s encoder reads, when one of ``texts`` is long enough to be cut
    (only a detector that reads each turn whole cuts: :func:`reads_documents`); None otherwise."""
    cut = detector.capabilities.max_chars
    if reads_documents(detector) or cut is None:
        return None
    return cut if any(len(text) > cut for text in texts) else None


def text_notes(text: str, cut: int | None, lang: str, supported: bool | None, by_sentences: bool = False) -> list[str]:
    """What a reader of a text's scores should know: the text was cut for the encoder (at ``cut`` characters, from
    :func:`encoder_cut`), and for a model that says which languages it was trained on (``supported`` not None),
    why its language was not identified (``und``), that the model was not trained on it (``supported`` False), or
    that it is Arabic in Latin letters (:data:`ARABIZI_NOTE`). ``by_sentences``: the text was read sentence by
    sentence (its language is theirs)."""
    notes = [f"only the first {cut} characters were read by the encoder"] if cut and len(text) > cut else []
    if supported is None:
        return notes
    if normalise(lang) == UNDETERMINED:
        return [*notes, undetermined_note(text, by_sentences)]
    if supported is False:
        return [*notes, unsupported_note(lang)]
    return notes + ([ARABIZI_NOTE] if normalise(lang) in ("ary", "arq") and arabizi(text) else [])


def undetermined_note(text: str, by_sentences: bool = False) -> str:
    """Why no language was told for ``text`` (:func:`~affectlab.langid.undetermined_reason`), as one line."""
    reason = undetermined_reason(text) or (
        "no sentence's language could be told" if by_sentences else "no language the identifier knows fits it"
    )
    return f"language not identified ({reason}): scored as a text of any language; take these scores as a guess"


ARABIZI_NOTE = (
    "Arabic in Latin letters (Arabizi), read as Moroccan Arabic: the model learnt from few such texts (about 280, none "
    "Algerian), so take these scores as a guess"
)
"""The note of a text in Latin-script Moroccan or Algerian Arabic (:func:`affectlab.langid.arabizi`): 283 of the
1,608 Moroccan training texts are Latin-script, and none of the Algerian ones."""


def languages_note(shares: dict[str, float]) -> str:
    """The line naming a document's languages with their shares (from
    :func:`~affectlab.detectors.documents.languages_shown`): ``languages: en 40 %, fi 20 %, ja 15 %``."""
    return "languages: " + ", ".join(f"{lang} {round(100 * share)} %" for lang, share in shares.items())


def document_notes(text: str, arc: LabelledSentences | None, detector: Detector) -> list[str]:
    """A note that a long text was read sentence by sentence (how many, when they were scored)."""
    if not reads_documents(detector) or len(text) <= WHOLE_UP_TO:
        return []
    count = "" if arc is None else f" ({len(arc.spans)})"
    return [f"read sentence by sentence{count}: the text is over {WHOLE_UP_TO:,} characters"]


def check_intensity(detector: Detector, intensity: bool) -> None:
    """Refuse ``intensity`` for a detector that does not rate it, rather than give no intensities."""
    if intensity and not detector.capabilities.rates_intensity:
        raise InputError(
            f"{describe_model(detector)} does not rate intensity (a model whose encoder was fine-tuned with an "
            "intensity head does: the default ekman head as `affectlab build-default --fine-tune` builds it)"
        )


def _intensity_dict(space: LabelSpace, row: np.ndarray) -> dict[str, int]:
    return {label: int(level) for label, level in zip(space.labels, row, strict=True) if label != space.none_label}


def labelled_texts(
    detector: Detector,
    texts: list[str],
    contexts: list[list[str]] | None = None,
    langs: Sequence[str] | None = None,
    intensity: bool = False,
    sentences: bool = False,
    explain: bool = False,
) -> LabelledTexts:
    """Decision scores, each text's predicted labels (highest score first), its language and (with ``intensity``)
    the 0-3 intensities: what :func:`detect`, ``detect --input`` and ``score`` give for a text, so that it reads the
    same in each. Each text's language is ``langs``' (tags or codes; ``""`` or None: identified) once (not once
    per routing step), and the encoder runs once for scores and intensities
    (:func:`~affectlab.detectors.batch.prepare_batch`, then :meth:`~affectlab.detectors.base.Detector.score`).
    A text longer than :data:`~affectlab.detectors.documents.WHOLE_UP_TO` characters is read sentence by sentence
    in the same batch (:mod:`affectlab.detectors.documents`); ``sentences`` also gives every text's sentences, and
    ``explain`` each text's (and sentence's) words with their weights, from variants without each word scored in
    the same batch (:mod:`affectlab.detectors.explain`)."""
    given = [lang or "" for lang in langs] if langs is not None else [""] * len(texts)
    plan = plan_units(texts, given, sentences, split_long=reads_documents(detector))
    typed = list(plan.unit_langs)  # a tag given is shown as given (zh-Hant), read as the language it names (zh)
    whole_only = len(plan.units) == len(texts) and all(plan.whole[i] == i for i in range(len(texts)))
    unit_contexts = contexts if whole_only else None
    occluded = None
    if explain:
        wanted = explained_units(plan.whole, plan.sentences, len(plan.units), sentences)
        occluded = occlusions(plan.units, wanted)
        plan.unit_langs = detect_languages(Inputs(plan.units, [[] for _ in plan.units], plan.unit_langs))
    batch_texts, batch_contexts, batch_langs = _with_variants(plan, unit_contexts, occluded)
    batch = prepare_batch(detector, batch_texts, batch_contexts, batch_langs)
    scored = detector.score(batch, intensity)
    n = len(plan.units)
    shown_langs = [tag.strip() or found for tag, found in zip(typed, batch.langs[:n], strict=True)]
    units = _LabelledUnits(detector.label_space, scored.scores[:n], scored.labels[:n], shown_langs,
                           None if scored.intensities is None else scored.intensities[:n])  # fmt: skip
    by_unit = unit_explanations(occluded, units.scores, scored.scores[n:]) if occluded is not None else None
    if whole_only and not sentences:
        done = LabelledTexts(units.scores, units.ranked(range(len(texts))), units.langs, units.levels())
        if by_unit is not None:
            done.explanations = [shifted(by_unit.get(i), 0, units.scores.shape[1]) for i in range(len(texts))]
        return done
    return _documents(units, plan, sentences, by_unit)


def _with_variants(
    plan: Plan, contexts: Sequence[list[str]] | None, occluded: Occlusions | None
) -> tuple[list[str], Sequence[list[str]] | None, list[str]]:
    """The texts, contexts and languages of one batch: the plan's units, then each variant of an occluded unit
    (with its unit's context and language)."""
    if occluded is None:
        return plan.units, contexts, plan.unit_langs
    texts = plan.units + occluded.texts
    langs = plan.unit_langs + [plan.unit_langs[unit] for unit in occluded.unit]
    if contexts is None:
        return texts, None, langs
    return texts, [*contexts, *(contexts[unit] for unit in occluded.unit)], langs


def reads_documents(detector: Detector) -> bool:
    """Whether ``detector`` reads a long text sentence by sentence (:mod:`affectlab.detectors.documents`): every
    detector that reads texts alone; one that reads dialogue context reads each turn whole (cut by its encoder)."""
    return not detector.capabilities.reads_context


@dataclass
class _LabelledUnits:
    """The scored units of one batch (texts read whole and sentences of long ones)."""

    space: LabelSpace
    scores: np.ndarray
    predicted: np.ndarray
    langs: list[str]
    raw_intensities: np.ndarray | None

    def ranked(self, rows: Iterable[int]) -> list[list[str]]:
        """The predicted labels of ``rows``, highest score first."""
        return [_ranked(self.space, self.scores[i], self.predicted[i]) for i in rows]

    def levels(self) -> np.ndarray | None:
        """The 0-3 intensities shown for every unit (0 where the label is not predicted), or None."""
        if self.raw_intensities is None:
            return None
        return intensity_levels(self.raw_intensities, self.predicted)


def _ranked(space: LabelSpace, row_scores: np.ndarray, row_predicted: np.ndarray) -> list[str]:
    return [space.labels[j] for j in np.argsort(-row_scores, kind="stable") if row_predicted[j]]


def _documents(
    units: _LabelledUnits, plan: Plan, with_sentences: bool, by_unit: dict[int, Explained] | None = None
) -> LabelledTexts:
    """Each document's result: its whole reading, or the rule over its sentences
    (:func:`~affectlab.detectors.documents.document_row`); with ``with_sentences``, its sentences' own; with
    ``by_unit`` (each occluded unit's words and weights), each document's (and sentence's) explanation."""
    space = units.space
    none_column = space.labels.index(space.none_label) if space.none_label else None
    n_labels = len(space.labels)
    levels = units.levels()
    rows, predicted, langs, raw, arcs, explained = [], [], [], [], [], []
    shares: list[dict[str, float] | None] = []
    for whole, sentences in zip(plan.whole, plan.sentences, strict=True):
        indices = [unit for unit, _ in sentences]
        if whole is not None:
            rows.append(units.scores[whole])
            predicted.append(units.predicted[whole])
            langs.append(units.langs[whole])
            shares.append(None)
        else:
            rows.append(document_row(units.scores[indices], none_column))
            predicted.append(document_labels(rows[-1], none_column))
            mix = language_shares([units.langs[i] for i in indices], [span for _, span in sentences])
            shares.append(mix)
            langs.append(majority_language(mix, UNDETERMINED))
        if units.raw_intensities is not None:
            unit_rows = [whole] if whole is not None else indices
            raw.append(document_intensity(units.scores[unit_rows], units.raw_intensities[unit_rows]))
        if by_unit is not None:
            explained.append(
                shifted(by_unit.get(whole), 0, n_labels) if whole is not None
                else document_explanation(sentences, by_unit, units.scores, lambda s: document_row(s, none_column))
            )  # fmt: skip
        if with_sentences:
            why = None if by_unit is None else [shifted(by_unit.get(i), s.start, n_labels) for i, s in sentences]
            arcs.append(LabelledSentences([span for _, span in sentences], units.scores[indices],
                                          units.ranked(indices), [units.langs[i] for i in indices],
                                          None if levels is None else levels[indices], why))  # fmt: skip
    scores, labels = np.asarray(rows), np.asarray(predicted)
    rated = intensity_levels(np.asarray(raw), labels) if raw else None
    ranked = [_ranked(space, row, row_labels) for row, row_labels in zip(scores, labels, strict=True)]
    return LabelledTexts(scores, ranked, langs, rated, arcs if with_sentences else None,
                         explained if by_unit is not None else None, shares)  # fmt: skip
