"""``affectlab.detect``: emotions of texts with the embedded default detector (or any saved detector), the common
case in one call and no configuration."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from affectlab.detectors import Detector
from affectlab.detectors.batch import prepare_batch
from affectlab.detectors.resolve import ModelRef, describe_model, resolve_detector
from affectlab.errors import InputError
from affectlab.labels import SCORE_DECIMALS, LabelSpace
from affectlab.langid import UNDETERMINED
from affectlab.metrics.intensity import intensity_levels
from affectlab.text import as_context, as_texts, check_count, check_lang


@dataclass
class Detection:
    """The result for one text: the predicted ``labels`` (highest score first) and every label's score in
    ``scores``. A score is on the decision's scale: 0.5 is the threshold tuned for that label (arg-max heads: the
    prior-shifted probability), so the labels given are those at the top of the scores (see
    :meth:`affectlab.metrics.thresholds.Decision.scores`). ``lang`` is the language the text was read as (given or
    identified: :mod:`affectlab.langid`), ``supported`` whether the model was trained on texts of it (None for a
    model that does not say), and ``intensities`` each emotion's intensity 0-3 when asked for (0 for an emotion
    not among the labels)."""

    text: str
    labels: list[str]
    scores: dict[str, float]
    notes: list[str] = field(default_factory=list)
    lang: str = UNDETERMINED
    supported: bool | None = None
    intensities: dict[str, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"text", "labels", "scores", "lang", "supported"}`` (plus ``intensities`` and ``notes`` when there are
        any)."""
        out: dict[str, Any] = {"text": self.text, "labels": self.labels, "scores": self.scores, "lang": self.lang,
                               "supported": self.supported}  # fmt: skip
        if self.intensities is not None:
            out["intensities"] = self.intensities
        if self.notes:
            out["notes"] = self.notes
        return out


@dataclass
class LabelledTexts:
    """What the default detection gives a batch of texts: decision ``scores`` ``(n, n_labels)``, each text's
    ``labels`` (highest score first), the language each was read as, and (when asked for) the 0-3 intensity of each
    label ``(n, n_labels)``, 0 where the label is not predicted."""

    scores: np.ndarray
    labels: list[list[str]]
    langs: list[str]
    intensities: np.ndarray | None = None


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
    ``lang`` reads every text as that language (a tag or code: ``de``, ``pt-BR``, ``orm``) instead of identifying
    each one's; ``intensity`` adds each emotion's intensity 0-3 (the default ekman head).
    """
    items = as_texts(texts)
    turns = as_context(context)
    top_k = check_count("top_k", top_k)
    lang = check_lang(lang)
    detector = resolve_detector(model, taxonomy, fast)
    if turns and not detector.capabilities.reads_context:
        raise InputError(context_not_read(detector))
    check_intensity(detector, intensity)
    contexts = [turns] * len(items)
    cut = encoder_cut(detector, items)
    done = labelled_texts(detector, items, contexts, [lang] * len(items) if lang else None, intensity)
    trained = detector.capabilities.trained_languages
    space = detector.label_space
    results = []
    for i, (text, row_scores, labels) in enumerate(zip(items, done.scores, done.labels, strict=True)):
        if top_k is not None:
            labels = labels[:top_k] or [space.labels[int(np.argmax(row_scores))]]
        supported = None if trained is None else done.langs[i] in trained
        notes = text_notes(text, cut, done.langs[i], supported)
        shown = {label: round(float(p), SCORE_DECIMALS) for label, p in zip(space.labels, row_scores, strict=True)}
        rated = None if done.intensities is None else _intensity_dict(space, done.intensities[i])
        results.append(Detection(text, labels, shown, notes, done.langs[i], supported, rated))
    return results


def encoder_cut(detector: Detector, texts: Sequence[str]) -> int | None:
    """How many characters of a text ``detector``'s encoder reads, when one of ``texts`` is long enough to be cut;
    None otherwise."""
    cut = detector.capabilities.max_chars
    return cut if cut is not None and any(len(text) > cut for text in texts) else None


def text_notes(text: str, cut: int | None, lang: str, supported: bool | None) -> list[str]:
    """What a reader of a text's scores should know: the text was cut for the encoder (at ``cut`` characters, from
    :func:`encoder_cut`), or the model was not trained on its language (``supported`` False)."""
    notes = [f"only the first {cut} characters were read by the encoder"] if cut and len(text) > cut else []
    return notes + ([unsupported_note(lang)] if supported is False else [])


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
    langs: list[str] | None = None,
    intensity: bool = False,
) -> LabelledTexts:
    """Decision scores, each text's predicted labels (highest score first), its language and (with ``intensity``)
    the 0-3 intensities: what :func:`detect`, ``detect --input`` and ``score`` give for a text, so that it reads the
    same in each. Each text's language is ``langs``' (tags or codes), else identified once (not once per routing
    step), and the encoder runs once for scores and intensities (:func:`~affectlab.detectors.batch.prepare_batch`,
    then :meth:`~affectlab.detectors.base.Detector.score`)."""
    batch = prepare_batch(detector, texts, contexts, langs)
    scored = detector.score(batch, intensity)
    rated = intensity_levels(scored.intensities, scored.labels) if scored.intensities is not None else None
    labels = detector.label_space.labels
    ranked = [
        [labels[j] for j in np.argsort(-row_scores, kind="stable") if row_predicted[j]]
        for row_scores, row_predicted in zip(scored.scores, scored.labels, strict=True)
    ]
    return LabelledTexts(scored.scores, ranked, batch.langs, rated)
