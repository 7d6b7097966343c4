"""``affectlab checklist``: the behavioural suite (:mod:`affectlab.checklist.suite`) run on a detector as a user
calls it (:func:`affectlab.detectors.detect.detect`, each text's language identified), with pass rates per
language, capability and detail (a negation's scope, an edit) and the failing sentences."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from affectlab.checklist.suite import (
    CAPABILITIES,
    EDITS,
    SOURCES,
    Case,
    edited,
    invariance_sources,
    suite_languages,
    written_cases,
)
from affectlab.detectors.detect import detect
from affectlab.detectors.resolve import ModelRef, describe_model, resolve_detector
from affectlab.errors import InputError
from affectlab.labels import EKMAN

CountProgress = Callable[[int, int], None]
"""A callback of texts scored and texts in all."""
CHUNK = 256
"""Texts scored per call, between progress reports."""


@dataclass
class CapabilityResult:
    """One language's result on one capability: cases passed of ``n``, the same per detail, and the failures
    (text, template, what was expected, the labels given)."""

    lang: str
    capability: str
    passed: int = 0
    n: int = 0
    by: dict[str, list[int]] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rate(self) -> float | None:
        """The share of cases passed (None without cases)."""
        return round(self.passed / self.n, 4) if self.n else None

    def add(self, case: Case, labels: list[str], passed: bool) -> None:
        """Count one case's outcome."""
        self.passed, self.n = self.passed + passed, self.n + 1
        if case.detail:
            counts = self.by.setdefault(case.detail, [0, 0])
            counts[0], counts[1] = counts[0] + passed, counts[1] + 1
        if not passed:
            self.failures.append({"text": case.text, "template": case.template, "expected": case.expected(),
                                  "labels": labels})  # fmt: skip

    def to_dict(self, examples: int | None = None) -> dict[str, Any]:
        """The result as JSON, with at most ``examples`` failures (None: all)."""
        by = {detail: {"rate": round(p / n, 4), "passed": p, "n": n} for detail, (p, n) in self.by.items()}
        return {"lang": self.lang, "capability": self.capability, "rate": self.rate, "passed": self.passed,
                "n": self.n, "by": by, "failures": self.failures[:examples]}  # fmt: skip


@dataclass
class ChecklistReport:
    """The suite's results on one detector: per language and capability, in the suite's order."""

    model: str
    split: str
    languages: tuple[str, ...]
    results: list[CapabilityResult]
    seconds: float

    def result(self, lang: str, capability: str) -> CapabilityResult:
        """The result of ``lang`` on ``capability``."""
        return next(r for r in self.results if r.lang == lang and r.capability == capability)

    def to_dict(self, examples: int | None = None) -> dict[str, Any]:
        """The report as JSON (at most ``examples`` failures per result)."""
        return {"model": self.model, "split": self.split, "languages": list(self.languages),
                "results": [r.to_dict(examples) for r in self.results], "seconds": self.seconds}  # fmt: skip


def run_checklist(
    model: ModelRef = "default",
    langs: list[str] | None = None,
    split: str = "test",
    progress: CountProgress | None = None,
) -> ChecklistReport:
    """Run the behavioural suite's ``split`` (``dev``, ``test`` or ``all``) in ``langs`` (default: every language
    of the suite) on ``model`` (``default``, a saved ``ekman`` detector's folder, or a detector object)."""
    languages = _checked_languages(langs)
    if split not in ("dev", "test", "all"):
        raise InputError(f"unknown split {split!r} (dev, test or all)")
    detector = resolve_detector(model, "ekman")
    space = getattr(detector, "label_space_", EKMAN)
    if tuple(space.labels) != tuple(EKMAN.labels):
        raise InputError(
            f"the suite reads the ekman labels; {describe_model(detector)} gives {', '.join(space.labels)}"
        )
    started = time.perf_counter()
    cases = [case for lang in languages for case in written_cases(lang, None if split == "all" else split)]
    variants = [edited(case, edit) for case in invariance_sources(cases) for edit in EDITS]
    labels = _labels(detector, [case.text for case in cases + variants], progress)
    results = {(lang, cap): CapabilityResult(lang, cap) for lang in languages for cap in CAPABILITIES}
    given = {(c.lang, c.template): got for c, got in zip(cases, labels, strict=False) if c.capability in SOURCES}
    for case, got in zip(cases, labels, strict=False):
        results[case.lang, case.capability].add(case, got, case.passes(set(got)))
    for case, got in zip(variants, labels[len(cases) :], strict=True):
        before = given[case.lang, case.template]
        expected = dataclasses.replace(case, only=tuple(before))
        results[case.lang, "invariance"].add(expected, got, set(got) == set(before))
    return ChecklistReport(
        describe_model(detector), split, languages,
        [r for r in results.values() if r.n], round(time.perf_counter() - started, 1),
    )  # fmt: skip


def _checked_languages(langs: list[str] | None) -> tuple[str, ...]:
    known = suite_languages()
    chosen = tuple(dict.fromkeys(langs)) if langs else known
    unknown = [lang for lang in chosen if lang not in known]
    if unknown:
        raise InputError(f"the suite has no language {unknown[0]!r} (languages: {', '.join(known)})")
    return chosen


def _labels(detector: Any, texts: list[str], progress: CountProgress | None) -> list[list[str]]:
    """Each text's labels, as ``detect`` gives them, scored in chunks with progress."""
    out: list[list[str]] = []
    for start in range(0, len(texts), CHUNK):
        out += [list(d.labels) for d in detect(texts[start : start + CHUNK], model=detector)]
        if progress is not None:
            progress(len(out), len(texts))
    return out
