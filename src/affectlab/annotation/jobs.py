"""The whole jobs of ``affectlab annotate``, one call each, so that the Python API does what the command does:
read the ratings, aggregate them and write the labels; or read, aggregate, measure agreement, compare with released
labels and write the report and its chart."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from affectlab.annotation.aggregation import Aggregation, aggregate
from affectlab.annotation.agreement import agreement_report
from affectlab.annotation.comparison import compare
from affectlab.annotation.files import write_aggregation
from affectlab.annotation.readers import Level, RatingsSource, read_controls
from affectlab.annotation.report import agreement_chart, markdown_report
from affectlab.annotation.selection import EmotionReader
from affectlab.errors import InputError
from affectlab.io.atomic import write_atomically
from affectlab.io.progress import Progress, quiet

REPORT_FILE, CHART_FILE = "report.md", "agreement.png"


def aggregate_ratings(
    ratings: RatingsSource,
    method: str = "dawid-skene",
    min_confidence: float = 0.9,
    out: str | Path | None = None,
    progress: Progress = quiet,
    controls: str | Path | None = None,
    min_votes: int = 2,
) -> Aggregation:
    """Aggregate the ratings into one label set per item (crowd-kit's ``method``, one model per label) and write
    them to ``out`` (CSV, TSV or JSON Lines, atomically) when given; ``controls``: a file of control questions'
    known answers (:func:`~affectlab.annotation.readers.read_controls`), taken as known truths by Dawid-Skene;
    ``min_votes``: what ``votes`` needs."""
    progress(f"reading {ratings.name}")
    annotations = ratings.read()
    known = read_controls(controls) if controls is not None else None
    progress(f"fitting {method} on {len(annotations.items):,} items")
    aggregation = aggregate(annotations, method, min_confidence=min_confidence, controls=known, min_votes=min_votes)
    if out is not None:
        progress(f"writing {out}")
        write_aggregation(aggregation, out)
    return aggregation


def write_report(
    ratings: RatingsSource,
    out: str | Path,
    method: str = "dawid-skene",
    min_confidence: float = 0.9,
    gold: Sequence[str | Path] = (),
    level: Level | None = None,
    n_bootstrap: int = 1000,
    command: str = "",
    progress: Progress = quiet,
) -> tuple[Path, Path]:
    """Write ``report.md`` (the data, agreement per label with 95 % intervals, the aggregation, the comparison with
    the ``gold`` labels if any, and ``command``, the command line that made it) and ``agreement.png`` (alpha per
    label) to the folder ``out``, both at once or neither. Returns their paths."""
    progress(f"reading {ratings.name}")
    annotations = ratings.read(level)
    progress(f"fitting {method} on {len(annotations.items):,} items")
    aggregation = aggregate(annotations, method, min_confidence=min_confidence)
    progress(f"agreement with {n_bootstrap:,} bootstrap resamples")
    agreement = agreement_report(annotations, level=level, n_bootstrap=n_bootstrap)
    progress("comparing with the gold labels")
    comparison = compare(aggregation, list(gold)) if gold else None
    progress("writing the report")
    markdown = markdown_report(
        ratings.name, annotations, agreement, n_bootstrap, aggregation, command,
        binarized=ratings.binarize_values, comparison=comparison, gold=[str(path) for path in gold],
    )  # fmt: skip
    chart = agreement_chart(agreement, level or annotations.level)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    write_atomically({folder / REPORT_FILE: markdown.encode("utf-8"), folder / CHART_FILE: chart})
    return folder / REPORT_FILE, folder / CHART_FILE


SELECTION_MANIFEST_SUFFIX = ".manifest.json"
"""The manifest of ``annotate select --out FILE`` is written beside it as ``FILE.manifest.json``."""


def select_pool(
    pool: str | Path,
    protocol: str | Path,
    size: int,
    out: str | Path,
    text_col: str = "text",
    id_col: str | None = None,
    toxic_words: str | Path | None = None,
    toxicity_col: str | None = None,
    max_toxicity: float | None = None,
    seed: int = 0,
    progress: Progress = quiet,
    read_emotions: EmotionReader | None = None,
) -> dict[str, Any]:
    """Select ``size`` texts of the ``pool`` table for annotation under ``protocol``'s selection settings
    (:mod:`~affectlab.annotation.selection`; ``read_emotions`` gives each text its first emotion, required) and
    write them to ``out`` (id, text, lang, emotion) with the
    manifest beside it (every stage's counts, the settings, the seed), both atomically. Returns the manifest."""
    from affectlab.annotation.files import output_suffix, records_text
    from affectlab.annotation.protocol import ANY_LANGUAGE, read_protocol
    from affectlab.annotation.selection import SelectionSettings, select_texts

    out = Path(out)
    suffix = output_suffix(out)
    chosen = read_protocol(protocol)
    progress(f"reading {Path(pool).name}")
    ids, texts, scores = read_pool(Path(pool), text_col, id_col, toxicity_col)
    languages = tuple(lang for lang in chosen.selection.languages or chosen.languages if lang != ANY_LANGUAGE)
    settings = SelectionSettings(
        min_words=chosen.selection.min_words, max_words=chosen.selection.max_words, languages=languages,
        toxic_words=frozenset(read_word_list(Path(toxic_words))) if toxic_words else frozenset(),
        max_toxicity=max_toxicity, size=size, neutral_share=chosen.selection.neutral_share, seed=seed,
    )  # fmt: skip
    if max_toxicity is not None and toxicity_col is None:
        raise InputError("--max-toxicity needs --toxicity-col, the column of toxicity scores")
    if read_emotions is None:
        raise InputError("selecting texts needs a reader of their emotions (read_emotions)")
    selection = select_texts(texts, settings, read_emotions, scores if toxicity_col else None, progress)
    records = [
        {"id": ids[i], "text": texts[i], "lang": selection.languages[i], "emotion": selection.emotions[i]}
        for i in selection.rows
    ]
    manifest = {
        "pool": str(pool), "protocol": chosen.name, "out": str(out), "seed": seed, "size": size,
        "settings": {
            "min_words": settings.min_words, "max_words": settings.max_words, "languages": list(languages),
            "neutral_share": settings.neutral_share, "toxic_words": len(settings.toxic_words),
            "toxicity_col": toxicity_col, "max_toxicity": max_toxicity,
        },
        "toxicity": "no toxicity model ships with affectlab: only the word list and the score column given filter",
        "stages": selection.stages,
        "selected_by_emotion": dict(Counter(record["emotion"] for record in records)),
    }  # fmt: skip
    progress(f"writing {out}")
    manifest_path = out.with_name(out.name + SELECTION_MANIFEST_SUFFIX)
    write_atomically({
        out: records_text(records, suffix).encode("utf-8"),
        manifest_path: (json.dumps(manifest, ensure_ascii=False, indent=1) + "\n").encode("utf-8"),
    })  # fmt: skip
    return manifest


def read_pool(
    path: Path, text_col: str, id_col: str | None, toxicity_col: str | None
) -> tuple[list[str], list[str], list[float | None]]:
    """Ids (``id_col``, else the row number from 1), texts and toxicity scores (None where empty) of a pool
    table; a missing column or a score that is not a number is a one-line :class:`InputError`."""
    from affectlab.io.tables import open_table

    ids: list[str] = []
    texts: list[str] = []
    scores: list[float | None] = []
    with open_table(path) as table:
        for name in (text_col, id_col, toxicity_col):
            if name is not None and name not in table.columns:
                raise InputError(f"{path.name} has no column {name!r} (columns: {', '.join(table.columns)})")
        for number, (row, problem) in enumerate(table.rows, 1):
            if problem:
                raise InputError(f"{path.name} row {number}: {problem} (a text with the delimiter must be quoted)")
            texts.append("" if row.get(text_col) is None else str(row[text_col]))
            ids.append(str(row.get(id_col)) if id_col else str(number))
            scores.append(_score(row.get(toxicity_col), number, path) if toxicity_col else None)
    if not texts:
        raise InputError(f"{path.name} has no rows")
    return ids, texts, scores


def _score(cell: object, number: int, path: Path) -> float | None:
    if cell is None or str(cell).strip() == "":
        return None
    try:
        return float(str(cell))
    except ValueError:
        raise InputError(f"{path.name} row {number}: toxicity {cell!r} is not a number") from None


def read_word_list(path: Path) -> list[str]:
    """The words of a word list, one a line (blank lines and lines starting with # left out)."""
    from affectlab.io.tables import read_text

    lines = [line.strip() for line in read_text(path).splitlines()]
    return [line for line in lines if line and not line.startswith("#")]
