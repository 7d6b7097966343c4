"""``affectlab datasets list`` in an 80-column terminal: compact (issue 30: it was 215 lines), every name whole."""

import pytest
from rich.console import Console

from affectlab.datasets import DATASETS
from fuzz_support import check_exit, invoke


def listed(monkeypatch: pytest.MonkeyPatch, width: int) -> str:
    monkeypatch.setattr("affectlab.cli.datasets_cmd.stdout", Console(width=width))
    outcome = invoke(["datasets", "list"])
    check_exit(outcome)
    return outcome.out


def test_at_80_columns_the_list_is_short_and_names_every_dataset_whole(monkeypatch):
    out = listed(monkeypatch, 80)
    words = set(out.split())
    assert len(out.splitlines()) < 45 and max(map(len, out.splitlines())) <= 80
    assert [name for name, _ in DATASETS.items() if name not in words] == []
    assert "SemEval-2025 Task 11 track A, 28 languages: ekman (7), macro_f1_emotions" in out
    assert "semeval2025-esp ekman-no-none (6)" in out  # a member with other labels says so


def test_a_wide_terminal_gets_one_row_per_dataset_with_languages_and_titles(monkeypatch):
    out = listed(monkeypatch, 200)
    assert len([line for line in out.splitlines() if line.startswith("│ ")]) == len(list(DATASETS.items()))
    assert "SemEval-2025 Task 11 track A, Brazilian Portuguese" in out and "pt-BR" in out
