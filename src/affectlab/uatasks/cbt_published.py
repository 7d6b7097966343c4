"""The published UA-CBT instances and the most-frequent baseline (Eval-UA-tion 1.0, sections 3.1 and 3.1.7).

The authors' JSON Lines artifacts are read as :class:`~affectlab.uatasks.instances.MCInstance`;
:func:`most_frequent_baseline` answers any UA-CBT instance, published or generated, by lemma counts.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from affectlab.errors import InputError
from affectlab.uatasks.cbt_story import KINDS, TASK, VERB
from affectlab.uatasks.instances import MCInstance
from affectlab.uatasks.ukr_morphology import UKRAINIAN_WORD, parse_word


def load_cbt_artifact(path: str | Path, few_shot: bool = True) -> list[MCInstance]:
    """The authors' published UA-CBT instances (JSONL: ``context``, ``question``, ``options``, ``answer`` as text,
    ``taskType``, ``storyId``, ``md_*``). ``stories_train.jsonl`` comes from the few-shot story, hence the default."""
    instances = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        row = json.loads(line)
        options = tuple(row["options"])
        if row["answer"] not in options:
            raise InputError(f"{path}, line {number + 1}: answer {row['answer']!r} is not among the options")
        metadata = {"task_type": row["taskType"], "story_id": str(row["storyId"])}
        metadata |= {key: value for key, value in row.items() if key.startswith("md_")}
        instances.append(
            MCInstance(
                task=TASK,
                id=f"{row['storyId']}-{row.get('md_global_number', number)}",
                context=row["context"],
                question=row["question"],
                options=options,
                answer=options.index(row["answer"]),
                few_shot=few_shot,
                metadata=metadata,
            )
        )
    return instances


def _option_lemmas(option: str, kind: str | None) -> set[str]:
    pos = {VERB: ("VERB",)}.get(kind or "", ("NOUN",)) if kind in KINDS else ("NOUN", "VERB")
    lemmas = {p.normal_form for p in parse_word(option) if p.tag.POS in pos}
    return lemmas or {p.normal_form for p in parse_word(option)}


def most_frequent_baseline(instance: MCInstance) -> int:
    """The option whose lemma is mentioned most often in the context and question (3.1.7: 57 % on UA-CBT).

    A word counts for every lemma pymorphy3 allows it (no disambiguation needed); ties go to the first option.
    """
    counts: Counter[str] = Counter()
    for word in UKRAINIAN_WORD.findall(f"{instance.context} {instance.question}"):
        counts.update({p.normal_form for p in parse_word(word)})
    kind = instance.metadata.get("task_type")
    scores = [max((counts[lemma] for lemma in _option_lemmas(o, kind)), default=0) for o in instance.options]
    return scores.index(max(scores))
