"""UP-Titles generation (Eval-UA-tion, section 3.3.1): match an article to its title out of 10 similar titles.

For each article, the options are its own title and the titles of the 9 articles most similar to it, where
similarity is the cosine over binary tag vectors (same tags: 1, no tag in common: 0). The masked version replaces
every digit with ``X`` in the text and the titles, so that a number shared by an article and its title gives
nothing away ("... XXX civilians killed ...").

Differences from the authors' builder (``pchr8/eval-UA-tion``, ``code/UP-Titles/up_dataset``), each deliberate:
all tags are kept (the builder kept the 530 most frequent); the article's own title is always an option (the
builder could drop it when more than 10 articles tied at similarity 1); ties are broken by a seeded order and the
options shuffled by a seeded generator (the builder shuffled through ``set()``, which is not reproducible); a
neighbour whose (masked) title repeats one already chosen is passed over for the next one, so every instance has
10 distinct options (the builder's ``set()`` silently left fewer).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.metrics.pairwise import cosine_similarity
from sklearn.preprocessing import MultiLabelBinarizer

from affectlab.errors import InputError
from affectlab.uatasks.instances import MCInstance

NUM_OPTIONS = 10
"""Options per instance: the true title and 9 similar ones (section 3.3.1)."""

ARTICLE_COLUMNS = ("title", "text", "tags")

# ASCII digits only, as in the published masked columns: str.isdigit/\d would also mask e.g. superscripts.
_DIGIT = re.compile(r"[0-9]")

# Rows of the similarity matrix computed at once: 256 x 35,000 articles is ~70 MB of float64, where the full
# square matrix (what crashed the authors' builder past ~40k articles) would be ~10 GB.
_CHUNK = 256


def mask_numbers(text: str) -> str:
    """Replace every digit with ``X`` (section 3.3.1): "2026 року" -> "XXXX року", "3 загиблих" -> "X загиблих".

    Each digit becomes one X, as in the published ``masked_text`` / ``masked_title`` columns, so a masked number
    still shows how many digits it had.
    """
    return _DIGIT.sub("X", text)


def parse_tags(tags: str | Sequence[str]) -> list[str]:
    """An article's tags as a list: a comma-separated string (the UP crawl's ``tags`` column) or a list; lower-cased,
    stripped, empty ones dropped."""
    items = tags.split(",") if isinstance(tags, str) else list(tags)
    return [str(tag).strip().lower() for tag in items if str(tag).strip()]


def tag_vectors(tags: Sequence[str | Sequence[str]]) -> sparse.csr_matrix:
    """Binary tag vectors, one row per article (section 3.3.1), as a sparse matrix."""
    binarizer = MultiLabelBinarizer(sparse_output=True)
    return sparse.csr_matrix(binarizer.fit_transform([parse_tags(t) for t in tags]))


def rank_similar(vectors: sparse.csr_matrix, rows: Sequence[int], seed: int = 0) -> list[np.ndarray]:
    """For each article in ``rows``, every other article ordered from most to least similar by cosine over tag
    vectors; articles with equal similarity come in one fixed order drawn from ``seed``."""
    tie_order = np.random.default_rng(seed).permutation(vectors.shape[0])
    ranked = []
    for start in range(0, len(rows), _CHUNK):
        chunk = list(rows[start : start + _CHUNK])
        similarities = cosine_similarity(vectors[chunk], vectors)
        for row, sims in zip(chunk, similarities, strict=True):
            order = np.lexsort((tie_order, -sims))  # last key is primary: highest similarity first
            ranked.append(order[order != row])
    return ranked


def generate_up_titles(
    articles: pd.DataFrame, n: int | None = None, masked: bool = False, seed: int = 0
) -> list[MCInstance]:
    """UP-Titles instances (section 3.3.1) for the first ``n`` articles of ``articles`` (all when None).

    ``articles`` has columns ``title``, ``text`` and ``tags`` (comma-separated or a list); the 9 distractor titles
    come from the whole table. ``masked=True`` applies :func:`mask_numbers` to text and titles and names the task
    ``up-titles-masked``. The same table and seed give the same instances.
    """
    titles, texts = _checked_articles(articles, masked)
    count = len(titles) if n is None else n
    if not 0 < count <= len(titles):
        raise InputError(f"n must be between 1 and the {len(titles)} articles, got {n}")
    rng = np.random.default_rng(seed)
    ranked = rank_similar(tag_vectors(list(articles["tags"])), range(count), seed=seed)
    task = "up-titles-masked" if masked else "up-titles"
    return [_instance(task, row, order, titles, texts, rng, articles.index[row]) for row, order in enumerate(ranked)]


def _checked_articles(articles: pd.DataFrame, masked: bool) -> tuple[list[str], list[str]]:
    """Titles and texts (masked if asked), after checking the table has the columns and enough articles."""
    missing = [c for c in ARTICLE_COLUMNS if c not in articles.columns]
    if missing:
        raise InputError(
            f"the article table lacks column(s) {', '.join(missing)} (it has: {', '.join(map(str, articles.columns))})"
        )
    if len(articles) < NUM_OPTIONS:
        raise InputError(f"UP-Titles needs at least {NUM_OPTIONS} articles to draw options from, got {len(articles)}")
    if articles[list(ARTICLE_COLUMNS)].isna().any().any():
        raise InputError("the article table has an empty title, text or tags cell")
    transform = mask_numbers if masked else str
    return [transform(str(t)) for t in articles["title"]], [transform(str(t)) for t in articles["text"]]


def _instance(
    task: str, row: int, ranked: np.ndarray, titles: list[str], texts: list[str], rng: np.random.Generator, key: object
) -> MCInstance:
    """One instance: the article's title plus the titles of the most similar articles, shuffled."""
    neighbours = _distinct_neighbours(row, ranked, titles)
    options = [titles[row]] + [titles[i] for i in neighbours]
    order = rng.permutation(NUM_OPTIONS)
    return MCInstance(
        task=task,
        question=texts[row],
        options=tuple(options[i] for i in order),
        answer=int(np.flatnonzero(order == 0)[0]),
        id=str(key),
        metadata={"similar_rows": [int(i) for i in neighbours]},
    )


def _distinct_neighbours(row: int, ranked: np.ndarray, titles: list[str]) -> list[int]:
    """The 9 most similar articles whose titles differ from the article's and from each other (a repeated title
    would make two options identical, which a multiple-choice question cannot have)."""
    seen = {titles[row]}
    chosen: list[int] = []
    for other in ranked:
        if titles[other] not in seen:
            seen.add(titles[other])
            chosen.append(int(other))
            if len(chosen) == NUM_OPTIONS - 1:
                return chosen
    raise InputError(
        f"article {row} ({titles[row][:60]!r}): the table has only {len(chosen)} other distinct titles, "
        f"{NUM_OPTIONS - 1} are needed; remove duplicate titles or add articles"
    )
