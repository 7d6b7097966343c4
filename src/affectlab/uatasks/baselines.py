"""Non-LLM baselines of the Eval-UA-tion tasks: random (Table 1), most-frequent (UA-CBT, section 3.1.7) and
number overlap (UP-Titles, the clue section 3.3.1 masks away), beside the paper's human baselines."""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from affectlab.datasets.sources import resolve_data_dir
from affectlab.errors import DataNotFoundError, InputError
from affectlab.uatasks.instances import TASKS, MCInstance
from affectlab.uatasks.loaders import load_task, local_split

_NUMBER = re.compile(r"[0-9]+")


def random_baseline(instances: Sequence[MCInstance]) -> float:
    """Table 1's bl_random: the mean over instances of 1/M_i, M_i the number of answer options of instance i.

    LMES LOW and WIS are open questions that the paper scores "as if they were a multiple-choice question"
    (footnote 33) over all letters of the word / all words of the sentence: M_i is the word's length in letters
    (stress marks not counted) for LOW and the metadata ``len_haystack`` for WIS (where absent: the options).
    The artifacts' LOW metadata ``len`` is the length of ``word_raw`` with its stress mark; Table 1's 9.43% sits
    closer to 1/``len`` than to 1/letters, so the paper probably counted the mark. CATS-MC counts the words
    the question lists (metadata ``all_options``), repeats included.
    """
    _require(instances)
    return sum(1 / option_count(instance) for instance in instances) / len(instances)


def option_count(instance: MCInstance) -> int:
    """M_i of Table 1's formula for one instance (see :func:`random_baseline`)."""
    if instance.task == "lmes-low":
        return len(_letters(_low_word(instance)))
    if instance.task == "lmes-wis" and "len_haystack" in instance.metadata:
        return int(instance.metadata["len_haystack"])
    if instance.task == "lmes-cats-mc" and instance.metadata.get("all_options"):
        # The question lists its words (all_options); in half of the published sample a category word appears
        # two or three times, which the options hold once. A guess among the listed words still finds the odd
        # one (listed once) 1 time in len(all_options).
        return len(instance.metadata["all_options"])
    return len(instance.options)


def _low_word(instance: MCInstance) -> str:
    for key in ("word", "word_raw"):
        if instance.metadata.get(key):
            return str(instance.metadata[key])
    raise InputError(f"LOW instance {instance.id or '?'} has no word in its metadata (word or word_raw)")


def _letters(word: str) -> str:
    """The word without combining marks (the stress accents of ``word_raw``)."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def most_frequent_baseline(instances: Sequence[MCInstance]) -> float:
    """UA-CBT's most-frequent baseline (section 3.1.7: 57% in the paper): the accuracy of always choosing the option
    whose lemma is the most frequent in the story, as :func:`affectlab.uatasks.cbt_published.most_frequent_baseline`
    picks it."""
    from affectlab.uatasks import cbt_published  # imported here: it brings the morphology stack of the ua extra

    _require(instances)
    choose = cbt_published.most_frequent_baseline
    return sum(choose(instance) == instance.answer for instance in instances) / len(instances)


def numbers_in(text: str) -> set[str]:
    """The numbers (runs of ASCII digits) written in ``text``."""
    return set(_NUMBER.findall(text))


def number_overlap_choice(instance: MCInstance, rng: random.Random) -> int:
    """The option sharing the most numbers with the question (the article); ties drawn with ``rng``."""
    in_text = numbers_in(instance.question)
    shared = [len(numbers_in(option) & in_text) for option in instance.options]
    best = max(shared)
    return rng.choice([i for i, count in enumerate(shared) if count == best])


def number_overlap_baseline(instances: Sequence[MCInstance], seed: int = 0) -> float:
    """UP-Titles' number-overlap baseline: the accuracy of choosing the title that shares the most numbers with the
    article text (the shortcut section 3.3.1 describes: an article mentioning 232 and a title with 232).

    Ties, including "no title shares a number", are broken at random with ``seed``. On the masked data there are
    no digits left, every option ties at 0 and the baseline degenerates to a random guess (~1/10); it does not
    use the number of X's, which masking keeps ("XXXX" for a year).
    """
    _require(instances)
    rng = random.Random(seed)
    return sum(number_overlap_choice(instance, rng) == instance.answer for instance in instances) / len(instances)


def baselines_for(name: str, instances: Sequence[MCInstance]) -> dict[str, Any]:
    """The baselines of task ``name`` on ``instances``: ``random`` (Table 1's formula), ``n``, ``human`` (Table 1's
    bl_human, None where none), ``most_frequent`` (ua-cbt only) and ``number_overlap`` (up-titles tasks only)."""
    info = TASKS.get(name)
    result: dict[str, Any] = {"random": random_baseline(instances), "n": len(instances), "human": info.human_baseline}
    if info.family == "ua-cbt":
        result["most_frequent"] = most_frequent_baseline(instances)
    if info.family == "up-titles":
        result["number_overlap"] = number_overlap_baseline(instances)
    return result


def all_baselines(data_dir: str | Path | None) -> dict[str, dict[str, Any]]:
    """:func:`baselines_for` of every task in :data:`TASKS`, with the ``split`` it was computed on: locally each
    task's one published split, on the Hub ``test``. A task whose data cannot be loaded gets ``{"skipped": why}``."""
    local = resolve_data_dir(data_dir) is not None
    results: dict[str, dict[str, Any]] = {}
    for name in TASKS:
        split = local_split(name) if local else "test"
        try:
            instances = load_task(name, data_dir, split=split)
        except DataNotFoundError as exc:
            results[name] = {"skipped": str(exc)}
            continue
        results[name] = {"split": split, **baselines_for(name, instances)}
    return results


def _require(instances: Sequence[MCInstance]) -> None:
    if not instances:
        raise InputError("a baseline needs at least one instance")
