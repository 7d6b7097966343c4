"""The training data of the shipped default, assembled from the emotion datasets: which datasets train which of
the encoder's heads (:data:`SOURCES`), their rows and target matrices per head (NaN where a dataset does not
annotate a label; track B intensities joined to track A by text), and the joined train and dev splits a head's
members are trained and tuned on (:func:`joined_data`)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from affectlab.build.augment import edited_texts, negated_sentence, negation_targets
from affectlab.build.counterfactual import contrast_rows, denied_rows
from affectlab.datasets import DatasetSpec, resolve_dataset, semeval2025
from affectlab.detectors.default import HeadRecipe
from affectlab.errors import InputError
from affectlab.labels import EKMAN, INTENSITY_SCALE, TAXONOMY_RECORDS, UNANNOTATED, LabelSpace
from affectlab.languages import FIRST_CODES
from affectlab.loaded_once import loaded_once


@loaded_once
def _dataset(name: str, data_dir: str | os.PathLike[str] | None) -> tuple[DatasetSpec, Any]:
    """A dataset read once per build process: a build reads each source's splits several times (its train, its
    dev, its labels' mapping, each head), and reading them again was most of a small build's time (datasets'
    Arrow encoding of every row)."""
    return resolve_dataset(name, data_dir)


@dataclass(frozen=True)
class SourceRecipe:
    """A dataset, the heads its rows train, how many of its rows an epoch draws (None: all), how many of its dev
    rows score each epoch (None: all), and the SemEval-2025 language whose track B intensities train the
    ``intensity`` head on its rows (None: no intensities). ``only_label`` keeps only the train rows whose ``ekman``
    target has that label (a second draw of a dataset's rare label, under its own ``name``, with no dev rows);
    ``derive`` turns the train rows into rows of :mod:`affectlab.build.augment` (``"edited"`` or ``"negated"``,
    under its own ``name``, with no dev rows)."""

    dataset: str
    tasks: tuple[str, ...]
    per_epoch: int | None = None
    dev_rows: int | None = None
    intensity: str | None = None
    only_label: str | None = None
    name: str = ""
    derive: str | None = None

    @property
    def key(self) -> str:
        """The source's name in training (its dataset's, unless it has its own)."""
        return self.name or self.dataset


BRIGHTER_PER_EPOCH = 600
"""Rows an epoch draws from each SemEval-2025 language beyond the first three (1,000-3,700 training rows each): with
28 languages, all of every language each epoch would not fit a 2-core CPU."""
_FIRST_LANGUAGES = FIRST_CODES
WHOLE_EACH_EPOCH = ("afr", "arq", "ron", "sun", "swe", "tat")
"""The SemEval-2025 languages with fewer than 1,300 training rows (901-1,241), drawn whole each epoch rather than
sampled (issue 52's third candidate: Afrikaans' dev set fell 0.04-0.05 under both continued epochs that sampled 600
of its 1,222 rows beside thousands of denials in other languages)."""


def _brighter_source(lang: str) -> SourceRecipe:
    dataset = "emobench-ua" if lang == "ukr" else f"semeval2025-{lang}"
    sampled = {"eng": 1500, "esp": 1500, "rus": 1000}.get(lang, BRIGHTER_PER_EPOCH)
    per_epoch = None if lang == "ukr" or lang in WHOLE_EACH_EPOCH else sampled
    has_train_intensities = "train" in semeval2025.INTENSITY_SPLITS.get(lang, ())
    return SourceRecipe(dataset, ("ekman",), per_epoch, intensity=lang if has_train_intensities else None)


SOURCES = (
    *(_brighter_source(lang) for lang in (*_FIRST_LANGUAGES, *sorted(set(semeval2025.LANGS) - set(_FIRST_LANGUAGES)))),
    SourceRecipe("goemotions", ("goemotions", "ekman"), per_epoch=8000, dev_rows=2000),
    SourceRecipe("emocontext", ("emocontext",), per_epoch=4000, dev_rows=1500),
)
"""All 28 track A languages (Ukrainian as EmoBench-UA, scored by its paper's 7-label metric), GoEmotions and
EmoContext. An epoch is about 32,000 rows."""
ENGLISH_DISGUST = SourceRecipe("goemotions", ("ekman",), only_label="disgust", name="goemotions-disgust")
"""Every GoEmotions training comment with disgust (793 of 43,410), drawn whole each epoch beside the 8,000-comment
sample: English disgust in fine-tuning comes only from GoEmotions (SemEval-2025 English has no disgust column), where
a sample of 8,000 holds about 150 of them (issue 32)."""
EDITED_PER_EPOCH = 150
"""Edited rows an epoch draws from each SemEval-2025 language (and 10 times that from GoEmotions): about 5,700, one
in seven of an epoch's rows."""
NEGATED_DATASETS = (
    "semeval2025-eng", "goemotions", "semeval2025-esp", "emobench-ua", "semeval2025-rus", "semeval2025-deu",
    "semeval2025-ptbr", "semeval2025-ptmz",
)  # fmt: skip
"""The datasets whose first-person statements of an emotion are denied (:data:`affectlab.build.augment.NEGATION_RULES`
has rules for their languages): every negated row is drawn each epoch, once as it is and once edited."""


def _edited(dataset: str, tasks: tuple[str, ...], per_epoch: int) -> SourceRecipe:
    return SourceRecipe(dataset, tasks, per_epoch, derive="edited", name=f"{dataset}-edited")


ROBUSTNESS = (
    *(_edited(s.dataset, ("ekman",), EDITED_PER_EPOCH) for s in SOURCES if s.dataset.startswith(("semeval", "emob"))),
    _edited("goemotions", ("goemotions", "ekman"), 10 * EDITED_PER_EPOCH),
    *(
        SourceRecipe(d, ("ekman",), derive=derive, name=f"{d}-{derive}")
        for d in NEGATED_DATASETS
        for derive in ("negated", "negated-edited")
    ),
)
"""Issue 41: the rows that teach answers that hold: meaning-keeping edits of every language's texts under their own
labels, and denials of stated emotions with only the denied emotion known (:mod:`affectlab.build.augment`)."""
COUNTERFACTUAL_DATASETS = (
    "semeval2025-eng", "goemotions", "semeval2025-esp", "emobench-ua", "semeval2025-rus", "semeval2025-deu",
    "semeval2025-ptbr", "semeval2025-ptmz", "semeval2025-arq", "semeval2025-ary", "semeval2025-hin",
    "semeval2025-chn", "semeval2025-amh", "semeval2025-afr",
)  # fmt: skip
"""The datasets of the languages with counterfactual clauses (:mod:`affectlab.build.counterfactual`)."""
DENIED_PER_EPOCH = 250
"""Denied rows an epoch draws from each of :data:`COUNTERFACTUAL_DATASETS` (twice that from GoEmotions)."""
CONTRAST_PER_EPOCH = 150
""""Not A but B" rows an epoch draws per dataset (English from SemEval-2025's rows only)."""
COUNTERFACTUAL = (
    *(
        SourceRecipe(d, ("ekman",), DENIED_PER_EPOCH * (2 if d == "goemotions" else 1), derive="denied",
                     name=f"{d}-denied")
        for d in COUNTERFACTUAL_DATASETS
    ),
    *(
        SourceRecipe(d, ("ekman",), CONTRAST_PER_EPOCH, derive="contrast", name=f"{d}-contrast")
        for d in COUNTERFACTUAL_DATASETS if d != "goemotions"
    ),
)  # fmt: skip
"""Issue 52: denials joined to train texts and "not A but B" rows, about 5,700 an epoch in 11 languages (the second
candidate's share: the first drew 8,600 in 10, and every ekman dev set of a language with clauses fell 0.001-0.011)."""
INTENSITY = "intensity"
"""The regression head of track B's 0-3 ratings (scaled to 0-1), one output per Ekman emotion."""
GOEMOTIONS_EKMAN = "goemotions-ekman"
"""GoEmotions rows train the ``ekman`` head through this mapped view of the same comments."""


def ekman_targets(labels: list[list[str]], space: LabelSpace) -> np.ndarray:
    """Float targets in the Ekman head's order: NaN for a label the dataset's ``space`` does not annotate, and
    ``none`` derived (true exactly when no emotion is) where the space has no none label."""
    encoded = space.encode(labels).astype(np.float32)
    out = np.full((len(labels), len(EKMAN)), np.nan, dtype=np.float32)
    for j, label in enumerate(EKMAN.labels):
        if label in space.labels:
            out[:, j] = encoded[:, space.labels.index(label)]
    if EKMAN.none_label not in space.labels:
        emotions = [j for j, label in enumerate(EKMAN.labels) if label != EKMAN.none_label]
        out[:, EKMAN.labels.index(EKMAN.none_label)] = (np.nansum(out[:, emotions], axis=1) == 0).astype(np.float32)
    return out


def intensity_targets(texts: list[str], ratings: dict[str, dict[str, int]]) -> np.ndarray:
    """The ``intensity`` head's targets of ``texts``: each Ekman emotion's rating / 3 from ``ratings`` (text ->
    emotion -> 0-3), NaN for a text without ratings and an emotion its language does not rate."""
    out = np.full((len(texts), len(EKMAN.emotion_labels)), np.nan, dtype=np.float32)
    for i, text in enumerate(texts):
        for j, emotion in enumerate(EKMAN.emotion_labels):
            if emotion in ratings.get(text, {}):
                out[i, j] = ratings[text][emotion] / INTENSITY_SCALE[1]
    return out


@dataclass
class SplitRows:
    """A source's rows of one split as training and scoring read them: texts, the joined earlier turns (None where
    no head reads them) and the target matrix per head."""

    texts: list[str]
    context: list[str] | None
    targets: dict[str, np.ndarray]
    langs: list[str]


def split_rows(recipe: SourceRecipe, name: str, split: Any, data_dir: str | os.PathLike[str] | None) -> SplitRows:
    """``split`` (called ``name``) of ``recipe``'s dataset with its targets; where the recipe has track B
    intensities, they are joined by text and the track B rows track A lacks are added (with ``ekman`` targets on
    train, where they teach, and none on dev, so the dev score stays track A's)."""
    rows = SplitRows(
        list(split["text"]), context_texts(split) if "emocontext" in recipe.tasks else None,
        task_targets(recipe, split, data_dir), list(split["lang"]),
    )  # fmt: skip
    if recipe.intensity is None:
        return rows
    ratings = semeval2025.intensities_by_text(recipe.intensity, name, data_dir)
    rows.targets[INTENSITY] = intensity_targets(rows.texts, ratings)
    known = set(rows.texts)
    extra = [text for text in ratings if text not in known]
    if not extra:
        return rows
    space = semeval2025.intensity_label_space(recipe.intensity)
    labels = [[e for e, v in ratings[text].items() if v > 0] or ["none"] for text in extra]
    extra_ekman = ekman_targets(labels, space) if name == "train" else np.full((len(extra), len(EKMAN)), np.nan)
    rows.targets["ekman"] = np.vstack([rows.targets["ekman"], extra_ekman.astype(np.float32)])
    rows.targets[INTENSITY] = np.vstack([rows.targets[INTENSITY], intensity_targets(extra, ratings)])
    rows.texts += extra
    rows.langs += [semeval2025.LANGS[recipe.intensity]] * len(extra)
    return rows


def task_targets(recipe: SourceRecipe, split: Any, data_dir: str | os.PathLike[str] | None) -> dict[str, np.ndarray]:
    """Per head, the float target matrix of a split's rows (NaN where not annotated)."""
    spec, _ = _dataset(recipe.dataset, data_dir)
    targets = {}
    for task in recipe.tasks:
        space = TAXONOMY_RECORDS.get(task).space
        if task == "ekman" and recipe.dataset == "goemotions":
            targets[task] = ekman_targets(_mapped_labels(split, data_dir), EKMAN)
        elif task == "ekman":
            targets[task] = ekman_targets(split["labels"], spec.label_space)
        else:
            targets[task] = space.encode(split["labels"]).astype(np.float32)
    return targets


def _mapped_labels(split: Any, data_dir: str | os.PathLike[str] | None) -> list[list[str]]:
    """The Ekman labels of GoEmotions rows, from the mapped view of the same comments (joined on ``id``)."""
    by_id = _ekman_labels_by_id(data_dir)
    try:
        return [by_id[row_id] for row_id in split.select_columns(["id"]).to_dict()["id"]]
    except KeyError as exc:
        raise InputError(f"GoEmotions comment {exc} has no row in {GOEMOTIONS_EKMAN}") from None


@loaded_once
def _ekman_labels_by_id(data_dir: str | os.PathLike[str] | None) -> dict[str, list[str]]:
    """GoEmotions-Ekman's labels by comment id, over all its splits, built once per build process. Whole columns
    are read with ``to_dict``: iterating a ``datasets`` column formats it row by row, five times slower, and a
    build joins these labels for several sources and both of their splits."""
    _, mapped = _dataset(GOEMOTIONS_EKMAN, data_dir)
    by_id: dict[str, list[str]] = {}
    for part in mapped.values():
        columns = part.select_columns(["id", "labels"]).to_dict()
        by_id.update(zip(columns["id"], columns["labels"], strict=True))
    return by_id


def context_texts(split: Any) -> list[str]:
    """The earlier turns of each row joined by spaces (as ``embedding-lr`` embeds them)."""
    return [" ".join(turns) for turns in split["context"]]


def _first(split: Any, n: int | None) -> Any:
    return split.select(range(min(n, len(split)))) if n is not None else split


def _first_rows(rows: SplitRows, n: int) -> SplitRows:
    return SplitRows(
        rows.texts[:n], rows.context[:n] if rows.context is not None else None,
        {task: target[:n] for task, target in rows.targets.items()}, rows.langs[:n],
    )  # fmt: skip


def _rows_with(rows: SplitRows, label: str) -> SplitRows:
    """The rows whose ``ekman`` target has ``label``."""
    keep = np.flatnonzero(rows.targets["ekman"][:, EKMAN.labels.index(label)] == 1)
    return SplitRows(
        [rows.texts[i] for i in keep], [rows.context[i] for i in keep] if rows.context is not None else None,
        {task: target[keep] for task, target in rows.targets.items()}, [rows.langs[i] for i in keep],
    )  # fmt: skip


def derived_rows(rows: SplitRows, derive: str, none_known: bool = True) -> SplitRows:
    """The :mod:`affectlab.build.augment` rows of ``rows``: ``"edited"``, each row edited under its targets;
    ``"negated"``, the denial of a first-person statement of an emotion in each row (rows without one left out),
    known only in that label; ``"negated-edited"``, those denials edited. And the :mod:`affectlab.build.counterfactual`
    rows: ``"denied"``, each row with a denial of an emotion it lacks (``none`` unknown unless ``none_known``);
    ``"contrast"``, one "not A but B" row per row, in its language."""
    if derive == "denied":
        texts, targets, langs = denied_rows(rows.texts, rows.targets["ekman"], rows.langs, len(rows.texts), none_known)
        return SplitRows(texts, None, {"ekman": targets}, langs)
    if derive == "contrast":
        texts, targets, langs = contrast_rows(rows.langs, len(rows.texts) + 1)
        return SplitRows(texts, None, {"ekman": targets}, langs)
    if derive == "edited":
        return SplitRows(edited_texts(rows.texts, seed=len(rows.texts)), rows.context, rows.targets, rows.langs)
    if derive == "negated-edited":
        return derived_rows(derived_rows(rows, "negated"), "edited")
    if derive != "negated":
        raise ValueError(f"unknown derived rows {derive!r}")
    texts, denied, langs = [], [], []
    for text, lang in zip(rows.texts, rows.langs, strict=True):
        found = negated_sentence(text, lang, set(EKMAN.emotion_labels))
        if found is not None:
            texts.append(found[0])
            denied.append(found[1])
            langs.append(lang)
    return SplitRows(texts, None, {"ekman": negation_targets(denied)}, langs)


def source_splits(
    source: SourceRecipe, data_dir: str | os.PathLike[str] | None, limit: int | None
) -> tuple[SplitRows, SplitRows]:
    """The train rows of ``source`` and the dev rows that score each epoch (``source.dev_rows`` of them), each cut to
    their first ``limit`` rows when given (tests)."""
    _, data = _dataset(source.dataset, data_dir)
    train = split_rows(source, "train", _first(data["train"], limit), data_dir)
    if source.only_label is not None:
        return _rows_with(train, source.only_label), _first_rows(train, 0)
    if source.derive is not None:
        spec, _ = _dataset(source.dataset, data_dir)
        none_known = EKMAN.none_label in spec.label_space.labels or source.dataset == "goemotions"
        return derived_rows(train, source.derive, none_known), _first_rows(train, 0)
    dev = split_rows(source, "dev", _first(data["dev"], limit if limit else source.dev_rows), data_dir)
    if limit is not None:  # the added track B rows too
        train, dev = _first_rows(train, limit), _first_rows(dev, limit)
    return train, dev


def unannotated_labels(dataset_space: LabelSpace, head_space: LabelSpace) -> list[str]:
    """The labels of ``head_space`` that a dataset annotated in ``dataset_space`` leaves unannotated (English disgust
    in SemEval-2025, Afrikaans surprise); a none label the dataset lacks is derived (no emotion), not unannotated."""
    return [
        label for label in head_space.labels if label not in dataset_space.labels and label != head_space.none_label
    ]


def joined_data(
    recipe: HeadRecipe, names: tuple[str, ...], data_dir: str | os.PathLike[str] | None
) -> tuple[DatasetSpec, Any]:
    """The train and dev splits of the datasets ``names`` joined in the recipe's label space, each row with the
    labels its dataset does not annotate in the column :data:`~affectlab.labels.UNANNOTATED` (issue 41:
    what a dataset leaves unannotated is not taught as absent, in the heads' members or their decisions)."""
    from datasets import DatasetDict, concatenate_datasets

    loaded = []
    for name in names:
        dataset_spec, data = _dataset(name, data_dir)
        missing = ",".join(unannotated_labels(dataset_spec.label_space, recipe.space))
        loaded.append({split: data[split].add_column(UNANNOTATED, [missing] * len(data[split]))
                       for split in ("train", "dev")})  # fmt: skip
    joined = DatasetDict({split: concatenate_datasets([data[split] for data in loaded]) for split in ("train", "dev")})
    spec = DatasetSpec(
        name=f"default-{recipe.name}",
        title=f"training data of the default {recipe.name} head",
        label_space=recipe.space,
        primary_metric=recipe.primary_metric,
        languages=(),
        splits=("train", "dev"),
        loader=lambda _dir: joined,
        source=" + ".join(names),
        license="",
        citation="",
    )
    return spec, joined
