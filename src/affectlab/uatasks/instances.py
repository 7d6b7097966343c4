"""The one shape of an Eval-UA-tion task instance, and the registry of task names.

Every Eval-UA-tion task (Hamotskyi et al. 2024) is multiple choice (section 4.1): UA-CBT picks the word for a gap
out of 6, UP-Titles the title of an article out of 10, and the LMentry-static-UA (LMES) tasks a letter, a word or
yes/no. Loaders, generators, baselines, prompts and the lm-evaluation-harness export all speak
:class:`MCInstance`; nothing downstream knows a file format.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from affectlab.errors import InputError
from affectlab.registry import Registry

GAP = "______"
"""The gap marker in a UA-CBT question (the published instances use six underscores)."""


@dataclass(frozen=True)
class MCInstance:
    """One multiple-choice question.

    ``question`` is what is asked (for UA-CBT: the challenge segment with :data:`GAP` in it; for UP-Titles: the
    article text). ``context`` is text that comes before it (the UA-CBT story context; empty elsewhere).
    ``options`` are the answer choices, distinct and non-empty, and ``answer`` is the index of the right one.
    ``template_id`` names the template the question came from (LMES uuid or ``template_n``), ``few_shot`` marks
    instances from the few-shot split, and ``metadata`` keeps everything else the source gives (the robustness
    variant, word frequencies, distractor provenance, ...).
    """

    task: str
    question: str
    options: tuple[str, ...]
    answer: int
    id: str = ""
    context: str = ""
    template_id: str | None = None
    few_shot: bool = False
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_options(self.options, where=f"{self.task} instance {self.id or '?'}")
        if not 0 <= self.answer < len(self.options):
            raise InputError(
                f"{self.task} instance {self.id or '?'}: answer index {self.answer} is outside its "
                f"{len(self.options)} options"
            )

    @property
    def answer_text(self) -> str:
        """The right option."""
        return self.options[self.answer]


def check_options(options: Sequence[str], where: str) -> None:
    """Raise :class:`InputError` if ``options`` has fewer than 2 entries, an empty one, or duplicates."""
    if len(options) < 2:
        raise InputError(f"{where}: a multiple-choice question needs at least 2 options, got {len(options)}")
    if any(not str(option).strip() for option in options):
        raise InputError(f"{where}: an option is empty")
    seen: set[str] = set()
    for option in options:
        if option in seen:
            raise InputError(f"{where}: option {option!r} appears twice")
        seen.add(option)


@dataclass(frozen=True)
class TaskInfo:
    """A registered Eval-UA-tion task: what it is and what the paper reports for it (Table 1)."""

    name: str
    family: str  # "lmes", "ua-cbt" or "up-titles"
    description: str
    hub_id: str
    human_baseline: float | None  # Table 1, bl_human, as a fraction; None where the paper gives none
    random_baseline_paper: float  # Table 1, bl_random, as a fraction (computed by the authors on the full data)


TASKS: Registry[TaskInfo] = Registry("Eval-UA-tion task")

for _info in (
    TaskInfo("lmes-low", "lmes", "LOW: the n-th letter of a word", "shamotskyi/lmes_LOW", 0.9700, 0.0943),
    TaskInfo("lmes-wis", "lmes", "WIS: the n-th word of a sentence", "shamotskyi/lmes_WIS", 0.9400, 0.0469),
    TaskInfo(
        "lmes-wordlength", "lmes", "which of two words is longer/shorter", "shamotskyi/lmes_wordlength", 0.9400, 0.5000
    ),
    TaskInfo(
        "lmes-wordalpha",
        "lmes",
        "which of two words comes first/last alphabetically",
        "shamotskyi/lmes_wordalpha",
        0.9184,
        0.5000,
    ),
    TaskInfo(
        "lmes-cats-bin",
        "lmes",
        "CATS-BIN: do all words belong to a category (yes/no)",
        "shamotskyi/lmes_catsbin",
        0.9697,
        0.5000,
    ),
    TaskInfo(
        "lmes-cats-mc", "lmes", "CATS-MC: which word is the odd one out", "shamotskyi/lmes_catsmc", 0.9800, 0.2000
    ),
    TaskInfo(
        "ua-cbt", "ua-cbt", "UA-CBT: the word for a gap in a story, out of 6", "shamotskyi/ua_cbt", 0.9394, 0.1667
    ),
    TaskInfo(
        "up-titles",
        "up-titles",
        "UP-Titles: the title of an article, out of 10 similar ones",
        "anilev6/up_titles_unmasked",
        0.8788,
        0.1000,
    ),
    TaskInfo(
        "up-titles-masked",
        "up-titles",
        "UP-Titles with every integer replaced by X",
        "shamotskyi/up_titles_masked",
        0.8367,
        0.1000,
    ),
):
    TASKS.add(_info.name, _info)
