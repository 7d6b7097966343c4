"""Export Eval-UA-tion tasks as lm-evaluation-harness tasks: one YAML per task, local JSONL data, one utils.py.

Section 4.1 of Eval-UA-tion 1.0 ran every task in lm-evaluation-harness, 3-shot, with Ukrainian prompts. The
export writes our prompts (:mod:`affectlab.uatasks.prompts`) as ``multiple_choice`` tasks scored by ``acc``, so
``lm_eval --include_path DIR --tasks affectlab_ua_cbt`` asks a model the same questions that
:func:`affectlab.uatasks.multiple_choice.evaluate_mc` with :class:`~affectlab.uatasks.lm_scoring.HFCausalScorer`
asks. Layout::

    DIR/utils.py                      doc_to_text / doc_to_choice / doc_to_target (no affectlab import)
    DIR/affectlab_<task>.yaml         one task each
    DIR/data/<task>/<split>.jsonl     the instances, one JSON document per line

The YAML keys are fields of lm-evaluation-harness's ``TaskConfig`` (``lm_eval/config/task.py``); the data files
are named by absolute path because the harness hands ``dataset_kwargs`` to ``datasets.load_dataset``, which reads
relative paths from the current directory, not the YAML's.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from affectlab.errors import InputError
from affectlab.io.outputs import check_output_dir
from affectlab.uatasks import prompts
from affectlab.uatasks.instances import TASKS, MCInstance

FEWSHOT_SPLIT = "fewshot"
"""The split name of the few-shot instances (as on the authors' Hub datasets)."""

NUM_FEWSHOT = 3

_PORTABLE_CONSTANTS = ("LMES_TEMPLATE", "UA_CBT_TEMPLATE", "UP_TITLES_TEMPLATE", "LETTERS")
_PORTABLE_FUNCTIONS = (prompts.one_line, prompts.render_question)

_DOC_FUNCTIONS = '''

def doc_to_text(doc):
    """The question of one exported document, without shots (affectlab's format_prompt)."""
    return render_question(doc["family"], doc["question"], doc["context"], doc["options"])


def doc_to_choice(doc):
    """What the model must produce for each option (affectlab's answer_targets)."""
    return doc["choices"]


def doc_to_target(doc):
    """The index of the right option."""
    return doc["answer"]
'''


class FunctionRef(str):
    """A YAML value written as lm-evaluation-harness's ``!function module.name`` tag."""


def lm_eval_task_name(task: str) -> str:
    """The harness task name of an affectlab task, e.g. ``ua-cbt`` -> ``affectlab_ua_cbt``."""
    return "affectlab_" + task.replace("-", "_")


def export_lm_eval(
    directory: str | Path, instances_by_task: Mapping[str, Mapping[str, Sequence[MCInstance]]]
) -> list[Path]:
    """Write each task of ``instances_by_task`` (task -> split -> instances) as an lm-evaluation-harness task
    into ``directory`` and return the paths written (utils.py first).

    The few-shot split is the one named :data:`FEWSHOT_SPLIT`; the test split is ``test`` or the one other split.
    A task without a few-shot split draws its shots from the test split, which the harness does leaving the
    current document out.
    """
    root = check_output_dir(directory)
    root.mkdir(parents=True, exist_ok=True)
    utils = root / "utils.py"
    utils.write_text(utils_source(), encoding="utf-8")
    written = [utils]
    for task, splits in instances_by_task.items():
        written.extend(_export_task(root, task, splits))
    return written


def _export_task(root: Path, task: str, splits: Mapping[str, Sequence[MCInstance]]) -> list[Path]:
    family = TASKS.get(task).family
    test_split = _test_split(task, splits)
    data_files = {}
    for split, instances in splits.items():
        path = root / "data" / task / f"{split}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = (json.dumps(_document(i, task, family), ensure_ascii=False) + "\n" for i in instances)
        path.write_text("".join(lines), encoding="utf-8")
        data_files[split] = path
    fewshot_split = FEWSHOT_SPLIT if splits.get(FEWSHOT_SPLIT) else test_split
    config = task_config(
        task, {split: str(path.resolve()) for split, path in data_files.items()}, test_split, fewshot_split
    )
    yaml_path = root / f"{lm_eval_task_name(task)}.yaml"
    yaml_path.write_text(to_yaml(config), encoding="utf-8")
    return [yaml_path, *data_files.values()]


def _test_split(task: str, splits: Mapping[str, Sequence[MCInstance]]) -> str:
    if "test" in splits:
        return "test"
    others = [split for split in splits if split != FEWSHOT_SPLIT]
    if len(others) != 1:
        raise InputError(f"{task}: cannot tell the test split among {', '.join(splits) or 'no splits'}; name it 'test'")
    return others[0]


def _document(instance: MCInstance, task: str, family: str) -> dict[str, Any]:
    if instance.task != task:
        raise InputError(f"a {instance.task} instance is among the {task} instances")
    return {
        "id": instance.id,
        "task": task,
        "family": family,
        "context": instance.context,
        "question": instance.question,
        "options": list(instance.options),
        "choices": prompts.answer_targets(instance),
        "answer": instance.answer,
    }


def task_config(task: str, data_files: Mapping[str, str], test_split: str, fewshot_split: str) -> dict[str, Any]:
    """The lm-evaluation-harness ``TaskConfig`` fields of one exported task."""
    info = TASKS.get(task)
    return {
        "task": lm_eval_task_name(task),
        "tag": ["affectlab_eval_ua_tion"],
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": dict(data_files)},
        "test_split": test_split,
        "fewshot_split": fewshot_split,
        "output_type": "multiple_choice",
        "doc_to_text": FunctionRef("utils.doc_to_text"),
        "doc_to_choice": FunctionRef("utils.doc_to_choice"),
        "doc_to_target": FunctionRef("utils.doc_to_target"),
        "target_delimiter": prompts.TARGET_DELIMITER,
        "fewshot_delimiter": prompts.FEWSHOT_DELIMITER,
        "num_fewshot": NUM_FEWSHOT,
        "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
        "metadata": {"version": 1.0, "description": info.description, "source": info.hub_id},
    }


def utils_source() -> str:
    """The exported ``utils.py``: the prompt constants and functions of :mod:`affectlab.uatasks.prompts`, copied
    by source so the harness formats exactly as affectlab does, plus the three ``doc_to_*`` functions."""
    header = (
        '"""Prompts of the Eval-UA-tion tasks exported by affectlab (Hamotskyi et al. 2024, section 4.1).\n\n'
        "Generated from affectlab.uatasks.prompts; edit that module and export again rather than this file.\n"
        '"""\n\nfrom __future__ import annotations\n\n'
    )
    constants = "".join(f"{name} = {getattr(prompts, name)!r}\n" for name in _PORTABLE_CONSTANTS)
    functions = "".join("\n\n" + inspect.getsource(function) for function in _PORTABLE_FUNCTIONS)
    return header + constants + functions + _DOC_FUNCTIONS


def to_yaml(value: Any, indent: int = 0) -> str:
    """``value`` (dicts, lists, strings, numbers, booleans, :class:`FunctionRef`) as block YAML; strings and
    keys that are not plain names are written as JSON strings, which YAML reads as double-quoted scalars."""
    pad = " " * indent
    lines = []
    for key, item in value.items() if isinstance(value, Mapping) else ((None, item) for item in value):
        lead = f"{pad}{_key(key)}:" if key is not None else f"{pad}-"
        if key is None and isinstance(item, Mapping):  # "- metric: acc" with the rest aligned under it
            lines.append(f"{lead} {to_yaml(item, indent + 2)[indent + 2 :]}")
        elif isinstance(item, Mapping | list):
            lines.append(lead + "\n" + to_yaml(item, indent + 2))
        else:
            lines.append(f"{lead} {_scalar(item)}\n")
    return "".join(lines)


def _key(key: Any) -> str:
    return key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", str(key)) else json.dumps(str(key), ensure_ascii=False)


def _scalar(value: Any) -> str:
    if isinstance(value, FunctionRef):
        return f"!function {value}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)
