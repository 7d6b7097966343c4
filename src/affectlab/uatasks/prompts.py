"""Multiple-choice prompts for the Eval-UA-tion tasks, worded as the authors' lm-evaluation-harness tasks.

Section 4.1 of Eval-UA-tion 1.0 (Hamotskyi et al. 2024): every task is posed as multiple-choice prompting, in
Ukrainian, 3-shot; UA-CBT enumerates its options as ``A: cat; B: dog``, UP-Titles in parentheses (the authors'
``up/utils.py`` numbers them ``0) title`` one per line, and the answer is that number), LMentry-static-UA (LMES)
gives no enumeration and expects the word or letter itself, or ``так``/``ні`` for CATS-BIN; newlines in stories
and articles become spaces. The wording below is copied verbatim from the authors' files in ``pchr8/eval-UA-tion``
(commit b9d5ee1f): ``code/lmeval_tasks/tasks/lmes/*.yaml`` (``doc_to_text``), ``.../ua_cbt/utils.py`` and
``.../up/utils.py``.

A prompt with shots is put together exactly as lm-evaluation-harness does it: each shot is its question, a space
and its answer, shots and the question are separated by a blank line.

:func:`one_line` and :func:`render_question` use nothing but the constants of this module, because
:mod:`affectlab.uatasks.lmeval_export` copies their source into the exported ``utils.py``: one piece of code writes
the prompt here and in the harness.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from affectlab.errors import InputError
from affectlab.uatasks.instances import TASKS, MCInstance

LMES_TEMPLATE = "Питання: {question}\nВідповідь:"
"""``doc_to_text`` of every LMES task (``lmes/low.yaml``, ``wis.yaml``, ``wlc.yaml``, ``wordalpha.yaml``,
``cat_odd.yaml``, ``cat_binary.yaml``)."""

UA_CBT_TEMPLATE = "{story}\nПИТАННЯ: Яке слово має бути замість ______? {options}\nВІДПОВІДЬ:"
"""``doc_to_text`` of ``ua_cbt/utils.py``: story (context, a space, the challenge segment), then the options."""

UP_TITLES_TEMPLATE = (
    "{text}\nПИТАННЯ: Який з наведених заголовків найбільше підходить для цієї статті?\n{options}\nВІДПОВІДЬ:"
)
"""``doc_to_text_unmasked`` of ``up/utils.py`` (used by both the masked and the unmasked UP task)."""

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""UA-CBT option labels (``ua_cbt/utils.py``, ``ALPHABET``)."""

TARGET_DELIMITER = " "
"""Between a question and its answer (lm-evaluation-harness ``target_delimiter``); the scored continuation of a
log-likelihood is this plus the target, e.g. ``" A"``."""

FEWSHOT_DELIMITER = "\n\n"
"""Between shots, and between the last shot and the question (lm-evaluation-harness ``fewshot_delimiter``)."""

YES_NO = {"так": "так", "yes": "так", "true": "так", "ні": "ні", "no": "ні", "false": "ні"}
"""CATS-BIN options as a loader may spell them, and the answer the authors expect (``lmes/utils.py``,
``parse_binary``: ``"так" if correctAnswer else "ні"``)."""


def one_line(text: str) -> str:
    """``text`` with every line break replaced by a space (section 4.1: "all newlines ... were replaced by
    spaces"; a Windows ``\\r\\n`` counts as one break)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", " ")


def render_question(family: str, question: str, context: str, options: Sequence[str]) -> str:
    """The prompt for one question without shots, for a task ``family`` (``lmes``, ``ua-cbt``, ``up-titles``).

    UA-CBT: ``{context} {question}`` on one line, then ``A: x; B: y; ...``. UP-Titles: the article on one line,
    then ``0) title`` per line. LMES: the question alone (its options are part of its wording).
    """
    if family == "ua-cbt":
        story = " ".join(part for part in (context, question) if part)  # the authors always had a context
        enumerated = "; ".join(f"{LETTERS[i]}: {one_line(option)}" for i, option in enumerate(options))
        return UA_CBT_TEMPLATE.format(story=one_line(story), options=enumerated)
    if family == "up-titles":
        # titles stay one per line, so a line break inside one would break the enumeration
        enumerated = "\n".join(f"{i}) {one_line(option)}" for i, option in enumerate(options))
        return UP_TITLES_TEMPLATE.format(text=one_line(question), options=enumerated)
    if family == "lmes":
        return LMES_TEMPLATE.format(question=one_line(question))
    raise ValueError(f"no prompt for task family {family!r}")


def task_family(instance: MCInstance) -> str:
    """The registered family of ``instance.task`` (``lmes``, ``ua-cbt`` or ``up-titles``)."""
    return TASKS.get(instance.task).family


def question_prompt(instance: MCInstance) -> str:
    """The prompt for ``instance`` alone (lm-evaluation-harness ``doc_to_text``)."""
    return render_question(task_family(instance), instance.question, instance.context, instance.options)


def answer_targets(instance: MCInstance) -> list[str]:
    """What a model must produce for each option, in option order (section 4.1).

    UA-CBT: ``A``, ``B``, ...; UP-Titles: ``0``, ``1``, ... (the numbers of ``up/utils.py``); CATS-BIN: ``так`` or
    ``ні``; the other LMES tasks: the option itself (a letter or a word).
    """
    family = task_family(instance)
    if family == "ua-cbt":
        if len(instance.options) > len(LETTERS):
            raise InputError(f"{instance.task} instance {instance.id or '?'}: more options than letters")
        return list(LETTERS[: len(instance.options)])
    if family == "up-titles":
        return [str(i) for i in range(len(instance.options))]
    if instance.task == "lmes-cats-bin":
        return [_yes_no(option, instance) for option in instance.options]
    return list(instance.options)


def _yes_no(option: str, instance: MCInstance) -> str:
    try:
        return YES_NO[option.strip().lower()]
    except KeyError:
        raise InputError(
            f"{instance.task} instance {instance.id or '?'}: option {option!r} is not a yes/no answer "
            f"(expected one of {', '.join(YES_NO)})"
        ) from None


def format_prompt(instance: MCInstance, shots: Sequence[MCInstance] = ()) -> str:
    """The full prompt: each shot with its right answer, then ``instance`` waiting for its answer.

    Shots are joined as lm-evaluation-harness joins them (question, a space, answer; a blank line between).
    """
    family = task_family(instance)
    parts = []
    for shot in shots:
        if task_family(shot) != family:
            raise InputError(f"a {shot.task} shot cannot precede a {instance.task} question")
        parts.append(question_prompt(shot) + TARGET_DELIMITER + answer_targets(shot)[shot.answer])
    parts.append(question_prompt(instance))
    return FEWSHOT_DELIMITER.join(parts)


def sample_shots(instance: MCInstance, pool: Sequence[MCInstance], k: int = 3, seed: int = 0) -> list[MCInstance]:
    """``k`` shots for ``instance`` drawn from ``pool`` (the few-shot split), never ``instance`` itself.

    The draw depends only on ``seed`` and the instance (its task, id and question), not on the order in which
    instances are evaluated, so a run limited to the first n instances gives them the same prompts.
    """
    candidates = [shot for shot in pool if shot != instance]
    if k > len(candidates):
        raise InputError(
            f"{instance.task}: {k} shots were asked for but the few-shot pool has only {len(candidates)} "
            "other instances"
        )
    # a str seed is hashed with SHA-512 by random.Random, so the draw is the same in every process
    rng = random.Random(f"{seed}\x1f{instance.task}\x1f{instance.id}\x1f{instance.question}")
    return rng.sample(candidates, k)
