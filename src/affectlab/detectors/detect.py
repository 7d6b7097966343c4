"""``affectlab.detect``: emotions of texts with the embedded default detector (or any saved detector), the common
case in one call and no configuration."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from affectlab.detectors import Detector, Inputs
from affectlab.detectors.resolve import ModelRef, describe_model, resolve_detector
from affectlab.encoders.sentence import MAX_CHARS
from affectlab.errors import InputError
from affectlab.io.outputs import check_output_file
from affectlab.labels import SCORE_DECIMALS
from affectlab.langid import detect_languages
from affectlab.text import as_context, as_texts, check_count

if TYPE_CHECKING:
    from affectlab.io.batchfile import ScoreProgress, ScoreSummary


@dataclass
class Detection:
    """The result for one text: the predicted ``labels`` (highest score first) and every label's score in
    ``scores``. A score is on the decision's scale: 0.5 is the threshold tuned for that label (arg-max heads: the
    prior-shifted probability), so the labels given are those at the top of the scores (see
    :meth:`affectlab.metrics.thresholds.Decision.scores`)."""

    text: str
    labels: list[str]
    scores: dict[str, float]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """``{"text", "labels", "scores"}`` (plus ``notes`` when there are any)."""
        out: dict[str, Any] = {"text": self.text, "labels": self.labels, "scores": self.scores}
        if self.notes:
            out["notes"] = self.notes
        return out


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
    """
    items = as_texts(texts)
    turns = as_context(context)
    top_k = check_count("top_k", top_k)
    detector = resolve_detector(model, taxonomy, fast)
    if turns and not detector.reads_context:
        raise InputError(context_not_read(detector))
    contexts = [turns] * len(items)
    # asked only when a text is long enough to be cut (a router would build every member to answer)
    cut = detector.encoder_max_chars if any(len(text) > MAX_CHARS for text in items) else None
    scores, ranked = labelled_texts(detector, items, contexts)
    space = detector.label_space
    results = []
    for text, row_scores, labels in zip(items, scores, ranked, strict=True):
        if top_k is not None:
            labels = labels[:top_k] or [space.labels[int(np.argmax(row_scores))]]
        notes = [f"only the first {cut} characters were read by the encoder"] if cut and len(text) > cut else []
        shown = {label: round(float(p), SCORE_DECIMALS) for label, p in zip(space.labels, row_scores, strict=True)}
        results.append(Detection(text=text, labels=labels, scores=shown, notes=notes))
    return results


def detect_file(
    input_path: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    taxonomy: str = "ekman",
    model: ModelRef = "default",
    fast: bool = False,
    text_col: str = "text",
    batch_size: int = 1024,
    progress: Callable[[ScoreProgress], None] | None = None,
) -> ScoreSummary:
    """Score every row of a file (CSV, TSV, JSON Lines, plain text or Parquet) into ``output_path``, as ``affectlab
    detect --input`` does: each row's scores and labels are those :func:`detect` gives the text alone, written
    batch by batch (``batch_size`` rows), and a run stopped part way resumes when called again. See
    :func:`affectlab.io.batchfile.score_file` for the formats, bad rows and resuming."""
    from affectlab.io.batchfile import score_file  # here: pyarrow would slow the start of every `detect TEXT`
    from affectlab.io.tables import check_readable_file

    check_readable_file(Path(input_path))
    check_output_file(Path(output_path), exists_ok=True)  # before the model loads; resuming is score_file's to judge
    detector = resolve_detector(model, taxonomy, fast)
    predict = lambda batch: labelled_texts(detector, batch)  # noqa: E731
    return score_file(Path(input_path), Path(output_path), predict, detector.label_space.labels, text_col=text_col,
                      batch_size=batch_size, progress=progress)  # fmt: skip


def labelled_texts(
    detector: Detector, texts: list[str], contexts: list[list[str]] | None = None
) -> tuple[np.ndarray, list[list[str]]]:
    """Decision scores ``(n, n_labels)`` and each text's predicted labels, highest score first: what
    :func:`detect`, ``detect --input`` and ``score`` give for a text, so that it reads the same in each."""
    scores, predicted = score_texts(detector, texts, contexts)
    labels = detector.label_space.labels
    ranked = [
        [labels[j] for j in np.argsort(-row_scores, kind="stable") if row_predicted[j]]
        for row_scores, row_predicted in zip(scores, predicted, strict=True)
    ]
    return scores, ranked


def score_texts(
    detector: Detector, texts: list[str], contexts: list[list[str]] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Decision scores ``(n, n_labels)`` and the 0/1 label matrix of ``texts``, each text's language identified
    once (not once per routing step)."""
    unknown = Inputs(texts, contexts or [[] for _ in texts], [""] * len(texts))
    return detector.scores_and_labels(Inputs(texts, unknown.contexts, detect_languages(unknown)))
