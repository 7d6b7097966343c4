"""What a detector can do, as one frozen record: the :class:`Capabilities` that ``fit`` and loading compute and
``save`` writes into ``config.json``, so that a loaded model (a router of 29 members included) answers what it can
do without building anything. Composites (an ensemble, a router) combine their members' records here, in one place.

A few of its fields are facts of the detector's kind and parameters rather than of training (:class:`KindFacts`):
each kind states them in one place (``Detector._kind_facts``), every record a detector computes holds them, and they
are never saved nor read from a saved config (a model saved before them loads to the same facts).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, TypedDict

from affectlab.errors import ModelFileError


class KindFacts(TypedDict, total=False):
    """The :class:`Capabilities` fields a kind sets from its kind and parameters (those it leaves out keep their
    defaults); documented on :class:`Capabilities`."""

    decision_rule: str | None
    tunes_decision: bool
    accepts_validation: bool
    may_rate_intensity: bool
    cheap_to_refit: bool


@dataclass(frozen=True)
class Capabilities:
    """What a detector can do and what it reads: what training gave it, and the facts of its kind (the last five
    fields, :class:`KindFacts`)."""

    encoders: frozenset[str] = frozenset()
    """The sentence encoders it embeds texts with, by name (empty for n-gram and keyword models): what a batch
    runs once, for every member that reads them."""
    max_chars: int | None = None
    """How many characters of a text its encoder reads (None: nothing cuts texts)."""
    reads_context: bool = False
    """Whether it reads earlier dialogue turns; one that does not scores each text alone."""
    rates_intensity: bool = False
    """Whether it rates each emotion's intensity on track B's 0-3 scale."""
    trained_languages: frozenset[str] | None = None
    """The languages of its training data (None: it does not say): detections of a text in another language say so."""
    left_out: tuple[str, ...] = ()
    """Why parts of it were left out when it was loaded (e.g. an optional member whose extra is not installed)."""
    diagnostics: tuple[str, ...] = ()
    """The counts it keeps of its last prediction (e.g. ``n_invalid``, generated answers that named no label),
    read with :meth:`affectlab.detectors.base.Detector.diagnostics`."""
    decision_rule: str | None = None
    """``argmax`` or ``thresholds`` to force a rule; None picks by the label space (multi-label: thresholds)."""
    tunes_decision: bool = True
    """Whether training tunes the decision on dev; False keeps the untuned one (thresholds 0.5, arg-max without
    bias) for a detector whose dev predictions cost money and whose probabilities are 0/1 anyway (LLM prompting)."""
    accepts_validation: bool = False
    """Whether ``fit`` takes ``validation=(X_dev, Y_dev)`` and ``progress=`` keywords (a fine-tuned encoder stops
    early on dev); training passes them only to such detectors."""
    may_rate_intensity: bool = False
    """Whether this kind can rate intensity at all (whether a trained one does is ``rates_intensity``): training
    refuses an intensity dataset for a kind that never does before it trains anything."""
    cheap_to_refit: bool = True
    """Whether refitting five times for out-of-fold threshold rows is affordable (not for a fine-tuned encoder)."""

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON (sorted lists for the sets, so a saved config does not depend on set order), without
        the kind facts, which are never saved."""
        languages = None if self.trained_languages is None else sorted(self.trained_languages)
        return {
            "encoders": sorted(self.encoders),
            "max_chars": self.max_chars,
            "reads_context": self.reads_context,
            "rates_intensity": self.rates_intensity,
            "trained_languages": languages,
            "left_out": list(self.left_out),
            "diagnostics": list(self.diagnostics),
        }

    @classmethod
    def from_dict(cls, saved: Mapping[str, Any]) -> Capabilities:
        """Read what :meth:`to_dict` wrote (the kind facts keep their defaults: the detector sets its own)."""
        try:
            languages = saved.get("trained_languages")
            max_chars = saved.get("max_chars")
            return cls(
                encoders=frozenset(map(str, saved.get("encoders") or ())),
                max_chars=None if max_chars is None else int(max_chars),
                reads_context=bool(saved.get("reads_context", False)),
                rates_intensity=bool(saved.get("rates_intensity", False)),
                trained_languages=None if languages is None else frozenset(map(str, languages)),
                left_out=tuple(map(str, saved.get("left_out") or ())),
                diagnostics=tuple(map(str, saved.get("diagnostics") or ())),
            )
        except (AttributeError, TypeError, ValueError) as exc:
            raise ModelFileError(f"the saved capabilities are not readable ({exc})") from None

    def with_languages(self, languages: Iterable[str] | None) -> Capabilities:
        """The same record with ``trained_languages`` set (None: unknown)."""
        return replace(self, trained_languages=None if languages is None else frozenset(languages))

    def with_kind_facts(self, facts: KindFacts) -> Capabilities:
        """The same record with a kind's ``facts`` (the others at their defaults)."""
        merged: KindFacts = {**DEFAULT_KIND_FACTS, **facts}
        return replace(self, **merged)

    def kind_facts(self) -> KindFacts:
        """The facts of the detector's kind in this record."""
        return KindFacts(
            decision_rule=self.decision_rule,
            tunes_decision=self.tunes_decision,
            accepts_validation=self.accepts_validation,
            may_rate_intensity=self.may_rate_intensity,
            cheap_to_refit=self.cheap_to_refit,
        )


DEFAULT_KIND_FACTS = Capabilities().kind_facts()
"""What a kind that states no facts of its own has."""


def combine(
    running: Sequence[Capabilities],
    intensity_from: Literal["any", "every"],
    trained_languages: frozenset[str] | None = None,
    left_out: Sequence[str] = (),
    rating: Sequence[Capabilities] | None = None,
) -> Capabilities:
    """The record of a composite over its members' records ``running`` (those whose output it uses): it embeds with
    every encoder they read, reads as many characters as its shortest cut, reads context when any member does, and
    rates intensity when ``any`` of ``rating`` (default: ``running``) does (an ensemble takes one rating member's
    intensities) or when ``every`` one does (a router asks each text's language member). Its kind facts are the
    defaults: the composite sets its own (the members' are not the composite's)."""
    rating = running if rating is None else rating
    cuts = [member.max_chars for member in running if member.max_chars is not None]
    rates = any if intensity_from == "any" else all
    return Capabilities(
        encoders=frozenset().union(*(member.encoders for member in running)),
        max_chars=min(cuts, default=None),
        reads_context=any(member.reads_context for member in running),
        rates_intensity=bool(rating) and rates(member.rates_intensity for member in rating),
        trained_languages=trained_languages,
        left_out=tuple(left_out) + tuple(note for member in running for note in member.left_out),
        diagnostics=tuple(dict.fromkeys(name for member in running for name in member.diagnostics)),
    )
