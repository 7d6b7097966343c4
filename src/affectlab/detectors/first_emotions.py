"""Each text's first emotion by the default detector: what ``annotate select`` spreads its draw over (EmoBench-UA
section 3.2), passed to :func:`affectlab.annotation.jobs.select_pool`, whose package sits below the detectors."""

from __future__ import annotations

from affectlab.detectors.detect import detect


def first_emotions(texts: list[str]) -> list[str]:
    """Each text's highest-scoring Ekman emotion by the default detector, or ``none`` when it gives no label."""
    found = detect(texts, taxonomy="ekman")
    chosen = [[label for label in d.labels if label != "none"] for d in found]
    return [
        max(labels, key=d.scores.__getitem__) if labels else "none" for labels, d in zip(chosen, found, strict=True)
    ]
