"""LMentry-static-UA (LMES) published artifacts: loading them, and rebuilding each with our builders.

Eval-UA-tion 1.0 (Hamotskyi et al. 2024), section 3.2. The authors' ``artifacts/*.json`` are read as
:class:`~affectlab.uatasks.instances.MCInstance` with the options our generators give, and
:func:`regenerate_published` counts how many of them our code builds again with the same question and answer.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from affectlab.errors import DataNotFoundError, InputError
from affectlab.uatasks.instances import MCInstance
from affectlab.uatasks.lmes_instances import (
    COMPARE_TASKS,
    YES_NO,
    cats_instance,
    compare_instance,
    low_instance,
    sentence_words,
    wis_instance,
)
from affectlab.uatasks.lmes_resources import TASK_FILES, LMESResources, check_lmes_task, lmes_dir, load_resources

_QUOTED = re.compile(r'"(.*)"', re.DOTALL)


def load_lmes_artifact(path: str | Path, task: str, few_shot: bool = False) -> list[MCInstance]:
    """The instances of a published ``artifacts/*.json`` file as :class:`MCInstance`, with the options our
    generators give (LOW: the word's distinct letters, WIS: the sentence's distinct words, ...), so published and
    generated instances compare like for like. The asked word or sentence is added to ``metadata``."""
    check_lmes_task(task)
    path = Path(path)
    try:
        records = json.loads(path.read_text(encoding="utf-8"))["instances"]
    except FileNotFoundError:
        raise DataNotFoundError(f"no LMES artifact at {path}") from None
    except (json.JSONDecodeError, KeyError, TypeError):
        raise InputError(f"{path}: not an LMES artifact (needs an 'instances' list)") from None
    return [_published_instance(task, record, few_shot, where=f"{path.name} #{i}") for i, record in enumerate(records)]


def _published_instance(task: str, record: Mapping[str, Any], few_shot: bool, where: str) -> MCInstance:
    meta = dict(record.get("additionalMetadata") or {})
    question, answer = str(record["question"]), record["correctAnswer"]
    options = _published_options(task, question, meta, where)
    if task == "lmes-cats-bin":
        answer = YES_NO[0] if answer in (True, YES_NO[0]) else YES_NO[1]
    if answer not in options:
        raise InputError(f"{where}: answer {answer!r} is not among its options {list(options)}")
    return MCInstance(
        task,
        question,
        options,
        options.index(answer),
        id=str(record.get("taskInstanceUuid", "")),
        template_id=record.get("templateUuid"),
        few_shot=few_shot,
        metadata=meta,
    )


def _published_options(task: str, question: str, meta: dict[str, Any], where: str) -> tuple[str, ...]:
    """Options of a published instance; for LOW/WIS the quoted word or sentence is also put into ``meta``."""
    if task in ("lmes-low", "lmes-wis"):
        quoted = _QUOTED.search(question)
        if quoted is None:
            raise InputError(f"{where}: no quoted word or sentence in {question!r}")
        haystack = quoted.group(1)
        meta["word" if task == "lmes-low" else "sentence"] = haystack
        return tuple(dict.fromkeys(haystack if task == "lmes-low" else sentence_words(haystack)))
    if task in COMPARE_TASKS:
        return (str(meta["option_0"]), str(meta["option_1"]))
    if task == "lmes-cats-mc":
        return tuple(dict.fromkeys(str(word) for word in meta["all_options"]))
    return YES_NO


def regenerate_instance(published: MCInstance, resources: LMESResources) -> MCInstance | None:
    """Build ``published`` again with our code from its own inputs: template number, word/sentence/words,
    needle, category and reversed flag. ``None`` where our generator would make no such instance."""
    meta = published.metadata
    task = published.task
    matching = [t for t in resources.templates[task] if t.template_n == meta.get("template_n")]
    if not matching:
        raise InputError(f"{task} has no template number {meta.get('template_n')!r}")
    template = matching[0]
    if task == "lmes-low":
        return low_instance(meta["word"], int(meta["needle"]), template, few_shot=resources.few_shot)
    if task == "lmes-wis":
        return wis_instance(meta["sentence"], int(meta["needle"]), template, few_shot=resources.few_shot)
    if task in COMPARE_TASKS:
        shown = (str(meta["option_0"]), str(meta["option_1"]))
        pair = shown[::-1] if meta.get("reversed") else shown
        return compare_instance(task, pair, template, bool(meta.get("reversed")), resources.words, resources.few_shot)
    words, category = meta["all_options"], meta["cat_name_main"]
    return cats_instance(task, words, category, template, resources.categories, resources.few_shot)


def regenerate_published(
    resources_dir: str | Path, artifacts_dir: str | Path, few_shot: bool = True, max_examples: int = 5
) -> dict[str, dict[str, Any]]:
    """Per task: how many published instances our code rebuilds with the same question and the same answer.

    The authors' random draws cannot be replayed, so each published instance is rebuilt from its own inputs
    (:func:`regenerate_instance`) and compared. The shipped artifacts were generated from the few-shot word lists
    and categories (every word in them is in ``*_fewshot``), hence ``few_shot=True``. Returns ``{task: {n,
    identical, share, mismatch_kinds, same_template_id, examples}}``.
    """
    resources = load_resources(resources_dir, few_shot)
    artifacts = lmes_dir(artifacts_dir, "artifacts")
    report: dict[str, dict[str, Any]] = {}
    for task, stem in TASK_FILES.items():
        published = load_lmes_artifact(artifacts / f"{stem}.json", task, few_shot)
        kinds: Counter[str] = Counter()
        examples: list[dict[str, Any]] = []
        same_template = 0
        for instance in published:
            kind, ours = _compare_with_ours(instance, resources)
            same_template += ours is not None and ours.template_id == instance.template_id
            if kind:
                kinds[kind] += 1
                if len(examples) < max_examples:
                    examples.append(_example(kind, instance, ours))
        identical = len(published) - sum(kinds.values())
        report[task] = {
            "n": len(published),
            "identical": identical,
            "share": identical / len(published) if published else 0.0,
            "mismatch_kinds": dict(kinds),
            "same_template_id": same_template,
            "examples": examples,
        }
    return report


def _compare_with_ours(published: MCInstance, resources: LMESResources) -> tuple[str | None, MCInstance | None]:
    """(mismatch kind or ``None``, our instance): what differs between a published instance and ours."""
    try:
        ours = regenerate_instance(published, resources)
    except InputError as error:
        return f"not rebuilt: {error}", None
    if ours is None:
        return "not generated by our templates", None
    differs = [
        part
        for part, same in (
            ("question", ours.question == published.question),
            ("answer", ours.answer_text == published.answer_text),
        )
        if not same
    ]
    return (" and ".join(differs) + " differ" if differs else None), ours


def _example(kind: str, published: MCInstance, ours: MCInstance | None) -> dict[str, Any]:
    return {
        "kind": kind,
        "id": published.id,
        "published_question": published.question,
        "published_answer": published.answer_text,
        "our_question": ours.question if ours else None,
        "our_answer": ours.answer_text if ours else None,
    }
