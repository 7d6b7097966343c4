"""What a detection gives: the records :func:`affectlab.detect` returns (:class:`Detection`, with its
:class:`Sentence` results and explanations), one per text, as the command line, ``--json``, files and the service
show them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from affectlab.detectors.explain import SpanWeight
from affectlab.langid import UNDETERMINED


@dataclass
class Sentence:
    """One sentence of a text as :func:`detect` scored it alone: ``text[start:end]`` of the text it is in, its
    ``labels`` (highest score first), every label's score, the language it was read as (its own, identified unless
    given), whether the model was trained on it (``supported``; None for a model that does not say) and (when asked
    for) each emotion's intensity 0-3."""

    start: int
    end: int
    text: str
    labels: list[str]
    scores: dict[str, float]
    lang: str
    intensities: dict[str, int] | None = None
    explanation: dict[str, list[SpanWeight]] | None = None
    supported: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"start", "end", "text", "labels", "scores", "lang"}`` and ``supported`` (for a model that says; plus
        ``intensities`` and ``explanation`` when asked for)."""
        out: dict[str, Any] = {"start": self.start, "end": self.end, "text": self.text, "labels": self.labels,
                               "scores": self.scores, "lang": self.lang}  # fmt: skip
        if self.supported is not None:
            out["supported"] = self.supported
        if self.intensities is not None:
            out["intensities"] = self.intensities
        if self.explanation is not None:
            out["explanation"] = explanation_dict(self.explanation)
        return out


@dataclass
class Detection:
    """The result for one text: the predicted ``labels`` (highest score first) and every label's score in
    ``scores``. A score is on the decision's scale: 0.5 is the threshold tuned for that label (arg-max heads: the
    prior-shifted probability), so the labels given are those at the top of the scores (see
    :meth:`affectlab.metrics.thresholds.Decision.scores`). ``lang`` is the language the text was read as (given or
    identified: :mod:`affectlab.langid`; a tag given is shown as given), ``supported`` whether the model was
    trained on texts of it (None for a model that does not say), ``intensities`` each emotion's intensity 0-3 when
    asked for (0 for an emotion not among the labels), and ``sentences`` its sentences, each scored alone, when
    asked for (a text over :data:`~affectlab.detectors.documents.WHOLE_UP_TO` characters is scored from them:
    :mod:`affectlab.detectors.documents`). A document read sentence by sentence has the language most of its
    characters were read as, is ``supported`` where that language is, and where its sentences are in several
    languages, ``languages`` gives each one's share of its characters (those of at least 5 %; also in
    ``notes``)."""

    text: str
    labels: list[str]
    scores: dict[str, float]
    notes: list[str] = field(default_factory=list)
    lang: str = UNDETERMINED
    supported: bool | None = None
    intensities: dict[str, int] | None = None
    sentences: list[Sentence] | None = None
    explanation: dict[str, list[SpanWeight]] | None = None
    languages: dict[str, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"text", "labels", "scores", "lang", "supported"}`` (plus ``languages``, ``intensities``,
        ``sentences``, ``explanation`` and ``notes`` when there are any)."""
        out: dict[str, Any] = {"text": self.text, "labels": self.labels, "scores": self.scores, "lang": self.lang,
                               "supported": self.supported}  # fmt: skip
        if self.languages is not None:
            out["languages"] = self.languages
        if self.intensities is not None:
            out["intensities"] = self.intensities
        if self.sentences is not None:
            out["sentences"] = [sentence.to_dict() for sentence in self.sentences]
        if self.explanation is not None:
            out["explanation"] = explanation_dict(self.explanation)
        if self.notes:
            out["notes"] = self.notes
        return out


def explanation_dict(explanation: dict[str, list[SpanWeight]]) -> dict[str, list[dict[str, Any]]]:
    """An explanation as JSON: label -> ``[{"start", "end", "text", "weight"}, ...]``."""
    return {label: [span.to_dict() for span in spans] for label, spans in explanation.items()}
