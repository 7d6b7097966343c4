"""LMentry-static-UA (LMES) generators: the six tasks drawn from word lists, categories, sentences and templates.

Eval-UA-tion 1.0 (Hamotskyi et al. 2024), section 3.2. Every input (a word, a sentence, a pair of words, a list of
words from a category) is asked about through every template of its task, and the comparison tasks also with the
two words swapped: these are the paper's robustness variants (section 3.2.3). Everything comes out as
:class:`~affectlab.uatasks.instances.MCInstance` (section 4.1: every task is multiple choice).

The resources are read by :mod:`affectlab.uatasks.lmes_resources`, single instances built by
:mod:`affectlab.uatasks.lmes_instances`, and the published artifacts read and rebuilt by
:mod:`affectlab.uatasks.lmes_published`; ``lmes_dir``, ``load_lmes_artifact`` and ``regenerate_published`` are
re-exported here. No sentences are shipped: WIS takes them as a parameter (the paper used UP-Titles and spaCy's
example sentences, section 3.2.4).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from affectlab.errors import InputError
from affectlab.uatasks.instances import MCInstance
from affectlab.uatasks.lmes_instances import (
    cats_instance,
    compare_instance,
    low_instance,
    needles,
    sentence_words,
    wis_instance,
)
from affectlab.uatasks.lmes_published import load_lmes_artifact, regenerate_published
from affectlab.uatasks.lmes_resources import LMESResources, check_lmes_task, lmes_dir, load_resources

__all__ = [
    "GENERATORS",
    "generate_cats_bin",
    "generate_cats_mc",
    "generate_lmes",
    "generate_low",
    "generate_wis",
    "generate_wordalpha",
    "generate_wordlength",
    "lmes_dir",
    "load_lmes_artifact",
    "regenerate_published",
]


def generate_low(resources_dir: str | Path, *, n: int = 100, seed: int = 0, few_shot: bool = False) -> list[MCInstance]:
    """``n`` LOW instances: shuffled words, each asked at positions 1, 5, 9, ... and "last" through every template.

    Words with an apostrophe or a hyphen are left out, as the paper does "to ensure clarity if counting letters
    is needed" (section 3.2.4; a few are still in the shipped lists).
    """
    resources = load_resources(resources_dir, few_shot)
    words = [word for word in resources.words if word.isalpha()]
    random.Random(seed).shuffle(words)
    stream = (
        low_instance(word, needle, template, resources.words[word], few_shot)
        for word in words
        for needle in needles(len(word))
        for template in resources.templates["lmes-low"]
    )
    return _take(stream, "lmes-low", n, seed, few_shot)


def generate_wis(
    resources_dir: str | Path, sentences: Sequence[str], *, n: int = 100, seed: int = 0, few_shot: bool = False
) -> list[MCInstance]:
    """``n`` WIS instances from ``sentences`` (shuffled), each asked at words 1, 5, 9, ... and "last".

    The resources ship no sentences; the paper used UP-Titles articles and spaCy's example sentences for the main
    split and lines of a poem for the few-shot one (section 3.2.4).
    """
    resources = load_resources(resources_dir, few_shot)
    shuffled = [sentence.strip() for sentence in sentences]
    if not shuffled or any(not sentence_words(sentence) for sentence in shuffled):
        raise InputError("WIS needs a list of sentences, each with at least one word")
    random.Random(seed).shuffle(shuffled)
    stream = (
        wis_instance(sentence, needle, template, few_shot)
        for sentence in shuffled
        for needle in needles(len(sentence_words(sentence)))
        for template in resources.templates["lmes-wis"]
    )
    return _take(stream, "lmes-wis", n, seed, few_shot)


def generate_wordlength(
    resources_dir: str | Path, *, n: int = 100, seed: int = 0, few_shot: bool = False
) -> list[MCInstance]:
    """``n`` WordLength instances: random word pairs of different length, asked through the longer (``more``) and
    shorter (``less``) templates, each in both word orders (section 3.2.3)."""
    return _generate_compare("lmes-wordlength", resources_dir, n, seed, few_shot)


def generate_wordalpha(
    resources_dir: str | Path, *, n: int = 100, seed: int = 0, few_shot: bool = False
) -> list[MCInstance]:
    """``n`` WordAlpha instances: random word pairs, asked which comes first (``less``) or last (``more``) in the
    Ukrainian alphabet, each in both word orders (section 3.2.3)."""
    return _generate_compare("lmes-wordalpha", resources_dir, n, seed, few_shot)


def _generate_compare(task: str, resources_dir: str | Path, n: int, seed: int, few_shot: bool) -> list[MCInstance]:
    resources = load_resources(resources_dir, few_shot)
    rng = random.Random(seed)
    return _take(_compare_stream(task, resources, rng), task, n, seed, few_shot)


def _compare_stream(task: str, resources: LMESResources, rng: random.Random) -> Iterator[MCInstance | None]:
    """Instances for fresh random ordered pairs; a pair that ties (same length) yields nothing."""
    words = list(resources.words)
    if len(words) < 2:
        raise InputError(f"{task} needs at least two words, the word list has {len(words)}")
    seen: set[tuple[str, str]] = set()
    for _ in range(len(words) ** 2):  # bounded: more draws than there are pairs
        first, second = rng.sample(words, 2)
        if (first, second) in seen:
            continue
        seen.add((first, second))
        for kind in ("less", "more"):
            for template in (t for t in resources.templates[task] if t.kind == kind):
                for reversed_ in (False, True):
                    yield compare_instance(
                        task, (first, second), template, reversed_, resources.words, resources.few_shot
                    )


def generate_cats_bin(
    resources_dir: str | Path, *, n: int = 100, seed: int = 0, few_shot: bool = False, n_words: int = 5
) -> list[MCInstance]:
    """``n`` CATS-BIN instances: ``n_words`` words of one category (yes) and the same list with its last word
    replaced by a word of another category (no), through every template: half the answers are "так"."""
    resources = load_resources(resources_dir, few_shot)
    rng = random.Random(seed)

    def stream() -> Iterator[MCInstance]:
        for main, chosen, odd in _category_draws(resources.categories, rng, n_words):
            for template in resources.templates["lmes-cats-bin"]:
                for words in (chosen, [*chosen[:-1], odd]):
                    yield cats_instance("lmes-cats-bin", words, main, template, resources.categories, few_shot)

    return _take(stream(), "lmes-cats-bin", n, seed, few_shot)


def generate_cats_mc(
    resources_dir: str | Path,
    *,
    n: int = 100,
    seed: int = 0,
    few_shot: bool = False,
    n_words: int = 5,
    odd_position: str = "last",
) -> list[MCInstance]:
    """``n`` CATS-MC instances: ``n_words - 1`` distinct words of one category and one word of another, through
    every template; the odd word is the answer.

    ``odd_position="last"`` puts it last, as every published instance does (``label`` 4); ``"random"`` places it
    anywhere, which keeps a model from learning the position from few-shot examples.
    """
    if odd_position not in ("last", "random"):
        raise InputError(f"odd_position must be 'last' or 'random', got {odd_position!r}")
    resources = load_resources(resources_dir, few_shot)
    rng = random.Random(seed)

    def stream() -> Iterator[MCInstance]:
        for main, chosen, odd in _category_draws(resources.categories, rng, n_words - 1):
            position = len(chosen) if odd_position == "last" else rng.randrange(len(chosen) + 1)
            words = [*chosen[:position], odd, *chosen[position:]]
            for template in resources.templates["lmes-cats-mc"]:
                yield cats_instance("lmes-cats-mc", words, main, template, resources.categories, few_shot)

    return _take(stream(), "lmes-cats-mc", n, seed, few_shot)


def _category_draws(
    categories: Mapping[str, Sequence[str]], rng: random.Random, k: int
) -> Iterator[tuple[str, list[str], str]]:
    """Endless draws of (category, ``k`` distinct words of it, one word of another category that is not in it).

    The authors drew the CATS-MC words with replacement, so half the published lists repeat a word; we draw
    without replacement so the options stay distinct.
    """
    pairs = [
        (main, other)
        for main in categories
        for other in categories
        if other != main and len(categories[main]) >= k and set(categories[other]) - set(categories[main])
    ]
    if not pairs:
        raise InputError(f"CATS tasks need a category of at least {k} words and another with words not in it")
    while True:
        main, other = rng.choice(pairs)
        strangers = [word for word in categories[other] if word not in categories[main]]
        yield main, rng.sample(list(categories[main]), k), rng.choice(strangers)


def _take(stream: Iterator[MCInstance | None], task: str, n: int, seed: int, few_shot: bool) -> list[MCInstance]:
    """The first ``n`` instances of ``stream`` (skipping ``None``; fewer if the inputs run out, e.g. few WIS
    sentences), with ids ``<task>[-fewshot]-<seed>-<i>``."""
    if n < 1:
        raise InputError(f"n must be at least 1, got {n}")
    prefix = f"{task}{'-fewshot' if few_shot else ''}-{seed}"
    taken: list[MCInstance] = []
    for instance in stream:
        if instance is not None:
            taken.append(replace(instance, id=f"{prefix}-{len(taken)}"))
            if len(taken) == n:
                break
    return taken


GENERATORS: dict[str, Callable[..., list[MCInstance]]] = {
    "lmes-low": generate_low,
    "lmes-wordlength": generate_wordlength,
    "lmes-wordalpha": generate_wordalpha,
    "lmes-cats-bin": generate_cats_bin,
    "lmes-cats-mc": generate_cats_mc,
}


def generate_lmes(
    task: str,
    resources_dir: str | Path,
    *,
    n: int = 100,
    seed: int = 0,
    few_shot: bool = False,
    sentences: Sequence[str] | None = None,
) -> list[MCInstance]:
    """Up to ``n`` instances of any of the six LMES tasks by name (``lmes-low`` ... ``lmes-cats-mc``), the same for
    the same ``seed``; WIS needs ``sentences``."""
    check_lmes_task(task)
    if task == "lmes-wis":
        if sentences is None:
            raise InputError("lmes-wis needs sentences: none are shipped with the LMES resources")
        return generate_wis(resources_dir, sentences, n=n, seed=seed, few_shot=few_shot)
    return GENERATORS[task](resources_dir, n=n, seed=seed, few_shot=few_shot)
