"""Choosing the texts to annotate from a pool (EmoBench-UA section 3.2), behind ``affectlab annotate select``.

The stages, each counted in the manifest (what it kept and what it dropped):

1. **length**: between the protocol's ``min_words`` and ``max_words`` words (whitespace-separated);
2. **duplicates**: the same text once links, @mentions, case and spacing are set aside; the first is kept;
3. **near duplicates**: word 3-shingles of that spelling with a Jaccard similarity of at least
   :data:`NEAR_DUPLICATE` to a kept text, found with MinHash LSH (datasketch: an exact comparison of every pair
   grows with the square of the pool);
4. **language**: the project's language identifier (:func:`affectlab.langid.detect_language`) finds one of the
   protocol's ``languages`` (every text passes for ``any``); after the duplicates, so each text is read once;
5. **toxicity**: no toxicity model ships with affectlab, so this stage drops what the user gives: texts holding a
   word of a word list, and texts whose score column is above a limit (EmoBench-UA used a Ukrainian toxicity
   classifier, whose scores can be that column);
6. **emotional pre-selection**: the project's default detector (28 languages; EmoBench-UA translated to English
   and used an English classifier) reads every text; ``size`` texts are drawn with ``seed``, ``neutral_share`` of
   them among texts it reads as no emotion, the rest spread evenly over the emotions it reads first (a text counts
   for its highest-scoring emotion; an emotion with too few texts leaves its share to the others).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from affectlab.errors import InputError

NEAR_DUPLICATE = 0.8
"""Jaccard similarity of word 3-shingles above which two texts are near duplicates."""
MINHASH_PERMUTATIONS = 128
SHINGLE = 3
_LINK = re.compile(r"https?://\S+|www\.\S+")
_MENTION = re.compile(r"@\w+")
_NOT_WORD = re.compile(r"[^\w]+")
NONE = "none"


@dataclass(frozen=True)
class SelectionSettings:
    """What :func:`select_texts` keeps: word bounds, languages (empty: any), toxic words, the highest toxicity
    score, how many texts to draw, the share of texts read as no emotion, and the seed."""

    min_words: int = 1
    max_words: int | None = None
    languages: tuple[str, ...] = ()
    toxic_words: frozenset[str] = frozenset()
    max_toxicity: float | None = None
    size: int = 1000
    neutral_share: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.size < 1:
            raise InputError(f"the number of texts to select must be at least 1, not {self.size}")
        if self.max_words is not None and self.max_words < self.min_words:
            raise InputError(f"max_words {self.max_words} is below min_words {self.min_words}")
        if not 0.0 <= self.neutral_share < 1.0:
            raise InputError(f"neutral_share must be in [0, 1), not {self.neutral_share}")


@dataclass
class Selection:
    """The chosen rows (indices into the pool, in drawing order) with each one's language and first emotion, and
    the count of every stage: ``{"stage", "kept", "dropped"}``."""

    rows: list[int] = field(default_factory=list)
    languages: dict[int, str] = field(default_factory=dict)
    emotions: dict[int, str] = field(default_factory=dict)
    stages: list[dict[str, Any]] = field(default_factory=list)

    def count(self, stage: str, kept: Sequence[int], before: int) -> list[int]:
        """Record a stage that kept ``kept`` of ``before`` rows; returns ``kept``."""
        self.stages.append({"stage": stage, "kept": len(kept), "dropped": before - len(kept)})
        return list(kept)


def normalised(text: str) -> str:
    """The spelling duplicates are compared in: no links or @mentions, case-folded, words joined by one space."""
    return " ".join(_NOT_WORD.sub(" ", _MENTION.sub(" ", _LINK.sub(" ", text))).casefold().split())


EmotionReader = Callable[[list[str]], list[str]]
"""Reads texts, giving each its first emotion or :data:`NONE`: the default detector's highest-scoring Ekman
emotion (:func:`affectlab.detectors.first_emotions.first_emotions`; passed in, since this package sits below the
detectors)."""


def select_texts(
    texts: Sequence[str],
    settings: SelectionSettings,
    read_emotions: EmotionReader,
    toxicity: Sequence[float | None] | None = None,
    progress: Callable[[str], None] = lambda message: None,
) -> Selection:
    """Run the stages of the module docstring over ``texts`` (``toxicity``: one score per text, or None), the
    emotions read by ``read_emotions``."""
    selection = Selection()
    rows = selection.count("read", range(len(texts)), len(texts))
    progress("length")
    rows = selection.count("length", [i for i in rows if _length_ok(texts[i], settings)], len(rows))
    progress("duplicates")
    rows = _without_duplicates(texts, rows, selection)
    progress("near duplicates")
    rows = selection.count("near duplicates", _without_near_duplicates(texts, rows), len(rows))
    progress("language")
    rows = _by_language(texts, rows, settings, selection)
    progress("toxicity")
    rows = selection.count("toxicity", _not_toxic(texts, rows, settings, toxicity), len(rows))
    progress(f"reading the emotions of {len(rows):,} texts")
    selection.emotions = dict(zip(rows, read_emotions([texts[i] for i in rows]) if rows else [], strict=True))
    selection.rows = selection.count("emotional pre-selection", _drawn(rows, selection.emotions, settings), len(rows))
    return selection


def _length_ok(text: str, settings: SelectionSettings) -> bool:
    n = len(text.split())
    return n >= settings.min_words and (settings.max_words is None or n <= settings.max_words)


def _by_language(texts: Sequence[str], rows: list[int], settings: SelectionSettings, selection: Selection) -> list[int]:
    """The rows identified as one of the protocol's languages (a tag read as the identifier's: ``pt`` is
    ``pt-BR``); none of them, from a pool that has texts, is a one-line error naming what was found instead."""
    from affectlab.langid import detect_language_batch, normalise

    selection.languages = dict(zip(rows, detect_language_batch([texts[i] for i in rows]), strict=True))
    wanted = {normalise(lang) for lang in settings.languages}
    kept = [i for i in rows if not wanted or selection.languages[i] in wanted]
    if rows and not kept:
        found = Counter(selection.languages.values()).most_common(3)
        raise InputError(
            f"no text of the pool was identified as {', '.join(settings.languages)} (the protocol's languages); "
            f"found: {', '.join(f'{lang} {count}' for lang, count in found)}"
        )
    return selection.count("language", kept, len(rows))


def _without_duplicates(texts: Sequence[str], rows: list[int], selection: Selection) -> list[int]:
    seen: set[str] = set()
    kept = []
    for i in rows:
        key = normalised(texts[i])
        if key not in seen:
            seen.add(key)
            kept.append(i)
    return selection.count("duplicates", kept, len(rows))


def _without_near_duplicates(texts: Sequence[str], rows: list[int]) -> list[int]:
    """Rows kept in order, each dropped when MinHash LSH finds a kept text at least :data:`NEAR_DUPLICATE`
    similar (a text shorter than a shingle is its own shingle)."""
    from datasketch import MinHash, MinHashLSH

    index = MinHashLSH(threshold=NEAR_DUPLICATE, num_perm=MINHASH_PERMUTATIONS)
    kept = []
    for i in rows:
        words = normalised(texts[i]).split()
        shingles = {" ".join(words[k : k + SHINGLE]) for k in range(max(len(words) - SHINGLE + 1, 1))}
        signature = MinHash(num_perm=MINHASH_PERMUTATIONS, seed=1)
        signature.update_batch([s.encode("utf-8") for s in shingles])
        if not index.query(signature):
            index.insert(str(i), signature)
            kept.append(i)
    return kept


def _not_toxic(
    texts: Sequence[str], rows: list[int], settings: SelectionSettings, toxicity: Sequence[float | None] | None
) -> list[int]:
    words = {word.casefold() for word in settings.toxic_words}
    kept = []
    for i in rows:
        if words and words & set(normalised(texts[i]).split()):
            continue
        score = toxicity[i] if toxicity is not None else None
        if settings.max_toxicity is not None and score is not None and score > settings.max_toxicity:
            continue
        kept.append(i)
    return kept


def _drawn(rows: list[int], emotions: dict[int, str], settings: SelectionSettings) -> list[int]:
    """``size`` rows (or all, when fewer): ``neutral_share`` of them read as no emotion, the rest round-robin over
    the emotions in a fixed order, each emotion's rows shuffled with ``seed``; texts read as no emotion fill what
    the emotions cannot."""
    rng = random.Random(settings.seed)
    pools: dict[str, list[int]] = {}
    for i in rows:
        pools.setdefault(emotions[i], []).append(i)
    for pool in pools.values():
        rng.shuffle(pool)
    neutral = pools.pop(NONE, [])
    size = min(settings.size, len(rows))
    quota = min(round(size * settings.neutral_share), len(neutral))
    taken = neutral[:quota]
    while len(taken) < size and any(pools.values()):
        for emotion in sorted(pools):
            if pools[emotion] and len(taken) < size:
                taken.append(pools[emotion].pop())
    return taken + neutral[quota : quota + size - len(taken)]
