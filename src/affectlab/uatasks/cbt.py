"""UA-CBT generation: cloze questions on frequent lemmas of a story (Hamotskyi et al. 2024, Eval-UA-tion 1.0, 3.1).

In the challenge segment of a story (:mod:`affectlab.uatasks.cbt_story`) a word becomes a gap when its lemma was
seen often enough before it (3.1.3, "Gaps"): named entities and verbs at least twice, common nouns at least four
times. The five distractors are the story's most frequent lemmas of the same kind, inflected to the gap's case and
number (and gender), with the gap's capitalisation; when the story has too few, the story's most frequent entity of
another gender and then an external word list fill in (3.1.3, "Distractors").

The published instances and the most-frequent baseline are in :mod:`affectlab.uatasks.cbt_published`;
``load_cbt_artifact`` and ``most_frequent_baseline`` are re-exported here.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from affectlab.errors import InputError
from affectlab.extras import require
from affectlab.io.tables import read_records
from affectlab.uatasks.cbt_published import load_cbt_artifact, most_frequent_baseline
from affectlab.uatasks.cbt_story import (
    COMMON_NOUN,
    KINDS,
    NAMED_ENTITY,
    QUESTION_SHARE,
    TASK,
    VERB,
    AnalysedStory,
    StoryToken,
    analyse_story,
)
from affectlab.uatasks.instances import GAP, MCInstance
from affectlab.uatasks.ukr_morphology import agrees_with_gap, inflect_lemma, match_case, required_features

__all__ = [
    "MAX_STORY_DISTRACTORS",
    "MIN_MENTIONS",
    "N_OPTIONS",
    "SOURCE_ANSWER",
    "SOURCE_ANY_GENDER",
    "SOURCE_EXTERNAL",
    "SOURCE_STORY",
    "CBTReport",
    "generate_cbt",
    "generate_cbt_report",
    "load_cbt_artifact",
    "load_external_words",
    "most_frequent_baseline",
    "read_stories",
]

logger = logging.getLogger(__name__)

MIN_MENTIONS = {NAMED_ENTITY: 2, COMMON_NOUN: 4, VERB: 2}  # 3.1.3, counted before the gap
N_OPTIONS = 6  # 3.1.2
MAX_STORY_DISTRACTORS = 5  # 3.1.3: "three to five distractors come from the story itself"

SOURCE_ANSWER, SOURCE_STORY = "answer", "story"
SOURCE_ANY_GENDER, SOURCE_EXTERNAL = "most_frequent_any_gender", "external"


def _gap_candidates(story: AnalysedStory) -> list[tuple[StoryToken, int]]:
    """Challenge-segment tokens whose lemma was mentioned often enough *before* them (3.1.3, "Gaps"), with that
    count. The occurrence being masked is not counted, as in the authors' generator."""
    seen: Counter[tuple[str, str]] = Counter()
    candidates = []
    for token in story.tokens:
        if token.kind is None:
            continue
        key = (token.kind, token.lemma)
        if token.sentence >= story.n_context and seen[key] >= MIN_MENTIONS[token.kind]:
            candidates.append((token, seen[key]))
        seen[key] += 1
    return candidates


@dataclass
class _Options:
    """The options of one gap as they are collected, with where each came from."""

    gap: StoryToken
    features: dict[str, str]
    words: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    lemmas: list[str] = field(default_factory=list)

    def add(self, lemma: str, source: str, features: Mapping[str, str], proper: bool = False) -> bool:
        """Inflect ``lemma`` and add it unless it cannot be inflected, duplicates an option or fails the check."""
        if lemma in self.lemmas or len(self.words) >= N_OPTIONS:
            return False
        kind = self.gap.kind
        form = inflect_lemma(lemma, "VERB" if kind == VERB else "NOUN", features, proper, kind == NAMED_ENTITY)
        if form is None:
            return False
        word = match_case(form, self.gap.text)
        if word.lower() in {w.lower() for w in self.words} or not agrees_with_gap(word, features, lemma):
            return False
        self.words.append(word)
        self.sources.append(source)
        self.lemmas.append(lemma)
        return True


def _collect_options(
    story: AnalysedStory, gap: StoryToken, rng: random.Random, external: Mapping[str, Sequence[str]]
) -> _Options:
    """The answer; up to five story lemmas of the same kind (and gender), most frequent first; if that is not
    enough, the most frequent unused lemma of the kind whatever its gender; then external words drawn with ``rng``
    (3.1.3). A lemma that has no form with the gap's grammemes is passed over."""
    options = _Options(gap, required_features(gap.parse.tag))
    options.words, options.sources, options.lemmas = [gap.text], [SOURCE_ANSWER], [gap.lemma]
    ranked = story.ranked_lemmas(gap.kind or "")
    for lemma in ranked:
        if options.sources.count(SOURCE_STORY) >= MAX_STORY_DISTRACTORS:
            break
        options.add(lemma, SOURCE_STORY, options.features, lemma in story.proper)
    if len(options.words) < N_OPTIONS and "gender" in options.features and gap.kind != VERB:
        any_gender = {k: v for k, v in options.features.items() if k != "gender"}
        for lemma in ranked:
            if options.add(lemma, SOURCE_ANY_GENDER, any_gender, lemma in story.proper):
                break
    pool = sorted(set(external.get(gap.kind or "", ())))
    rng.shuffle(pool)
    for lemma in pool:
        if len(options.words) >= N_OPTIONS:
            break
        options.add(lemma, SOURCE_EXTERNAL, options.features)
    return options


@dataclass
class CBTReport:
    """What :func:`generate_cbt_report` made of one story: the instances, how many gaps qualified, and why the
    others were skipped."""

    story_id: str
    instances: list[MCInstance]
    n_candidates: int
    skipped: list[str]


def _instance(
    story: AnalysedStory, story_id: str, gap: StoryToken, mentions: int, options: _Options, seed: int, few_shot: bool
) -> MCInstance:
    """One UA-CBT question: the options shuffled by a generator seeded from ``seed``, the story and the gap."""
    order = list(range(len(options.words)))
    random.Random(f"{seed}:{story_id}:{gap.start}:order").shuffle(order)
    c_start, c_end = story.sentences[0][0], story.sentences[story.n_context - 1][1]
    q_start, q_end = story.sentences[story.n_context][0], story.sentences[-1][1]
    text = story.text
    metadata = {
        "task_type": gap.kind,
        "story_id": story_id,
        "gap_word": gap.text,
        "gap_lemma": gap.lemma,
        "gap_lemma_mentions_before": mentions,
        "gap_features": dict(options.features),
        "gap_offset_in_question": gap.start - q_start,
        "option_sources": [options.sources[i] for i in order],
        "option_lemmas": [options.lemmas[i] for i in order],
        "num_sentences": len(story.sentences),
        "num_context_sents": story.n_context,
        "num_question_sents": len(story.sentences) - story.n_context,
        "question_sents_share": QUESTION_SHARE,
        "seed": seed,
    }
    return MCInstance(
        task=TASK,
        id=f"{story_id}-{gap.start}",
        context=text[c_start:c_end],
        question=text[q_start : gap.start] + GAP + text[gap.end : q_end],
        options=tuple(options.words[i] for i in order),
        answer=order.index(0),
        few_shot=few_shot,
        metadata=metadata,
    )


def generate_cbt_report(
    story: str,
    story_id: str,
    seed: int = 0,
    max_per_story: int | None = None,
    external_words: Mapping[str, Sequence[str]] | str | Path | None = None,
    few_shot: bool = False,
) -> CBTReport:
    """UA-CBT instances from one story (Eval-UA-tion 1.0, 3.1), with the gaps that were skipped and why.

    Every qualifying gap (3.1.3) becomes one question, unless ``max_per_story`` caps them: then a sample drawn
    with ``seed`` is kept, in story order. The same story, seed and word list always give the same instances.
    Raises :class:`InputError` for a story too short for any gap.
    """
    if not story or not story.strip():
        raise InputError(f"story {story_id!r} is empty")
    external = external_words if isinstance(external_words, Mapping) else load_external_words(external_words)
    try:
        analysed = analyse_story(story)
    except InputError as error:
        raise InputError(f"story {story_id!r} is too short for UA-CBT: {error}") from None
    candidates = _gap_candidates(analysed)
    if not candidates:
        n_question = len(analysed.sentences) - analysed.n_context
        raise InputError(
            f"story {story_id!r} is too short for any UA-CBT gap: no word in its {n_question}-sentence challenge "
            f"segment repeats a lemma seen before it (entities and verbs 2 times, common nouns 4)"
        )
    order = list(candidates)
    if max_per_story is not None:
        random.Random(f"{seed}:{story_id}:gaps").shuffle(order)
    instances: list[MCInstance] = []
    skipped: list[str] = []
    for gap, mentions in order:
        if max_per_story is not None and len(instances) >= max_per_story:
            break
        options = _collect_options(analysed, gap, random.Random(f"{seed}:{story_id}:{gap.start}"), external)
        if len(options.words) < N_OPTIONS:
            skipped.append(f"{gap.text!r} at {gap.start}: only {len(options.words)} of {N_OPTIONS} options")
            logger.info("UA-CBT story %s: skipped gap %s", story_id, skipped[-1])
            continue
        instances.append(_instance(analysed, story_id, gap, mentions, options, seed, few_shot))
    instances.sort(key=lambda instance: instance.metadata["gap_offset_in_question"])
    return CBTReport(story_id, instances, len(candidates), skipped)


def generate_cbt(
    story: str,
    story_id: str,
    seed: int = 0,
    max_per_story: int | None = None,
    external_words: Mapping[str, Sequence[str]] | str | Path | None = None,
    few_shot: bool = False,
) -> list[MCInstance]:
    """UA-CBT instances from one story (Eval-UA-tion 1.0, 3.1); see :func:`generate_cbt_report`."""
    return generate_cbt_report(story, story_id, seed, max_per_story, external_words, few_shot).instances


def load_external_words(path: str | Path | None = None) -> dict[str, tuple[str, ...]]:
    """The external distractor list (3.1.3): a YAML mapping of gap kind to lemmas, or to gender -> lemmas.

    Without ``path``, the list shipped with affectlab (``uatasks/resources/cbt_external_words.yaml``).
    """
    yaml = require("yaml", "ua", "UA-CBT word lists")
    if path is None:
        raw = resources.files("affectlab.uatasks").joinpath("resources/cbt_external_words.yaml").read_text("utf-8")
    else:
        try:
            raw = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise InputError(f"cannot read the UA-CBT word list {path}: {error.strerror}") from None
    data = yaml.safe_load(raw) or {}
    unknown = sorted(set(data) - set(KINDS)) if isinstance(data, dict) else ["(not a mapping)"]
    if unknown:
        raise InputError(f"UA-CBT word list {path or 'default'}: unknown keys {unknown}; expected {list(KINDS)}")
    return {kind: tuple(_flatten(words)) for kind, words in data.items()}


def _flatten(words: Any) -> Iterable[str]:
    if isinstance(words, dict):
        for group in words.values():
            yield from _flatten(group)
    else:
        yield from (str(word) for word in words or ())


def read_stories(path: str | Path) -> list[tuple[str, str]]:
    """``(story_id, text)`` pairs from a CSV with a ``fixed_story`` column (ids from ``id``, else the row number),
    as the authors' ``few_shot_split.csv``, or from a folder of ``.txt`` files (ids from the file names)."""
    path = Path(path)
    if path.is_dir():
        return [(file.stem, file.read_text(encoding="utf-8")) for file in sorted(path.glob("*.txt"))]
    if not path.exists():
        raise InputError(f"no such story file or folder: {path}")
    rows = read_records(path, (".csv",))
    if rows and "fixed_story" not in rows[0]:
        raise InputError(f"{path}: no 'fixed_story' column (columns: {', '.join(rows[0])})")
    return [(row.get("id") or str(i), row["fixed_story"]) for i, row in enumerate(rows) if row["fixed_story"].strip()]
