"""Property-based fuzzing of every CLI path that reads a user's file (strategies and properties: fuzz_support.py).

Each reader gets a few dozen generated files per run, derandomized so that CI is repeatable; the long run with
thousands of examples per reader is ``benchmarks/robustness/fuzz_readers.py``. The property, for every reader: exit 0
with one output row per input row, or exit 2 with one ``error:`` line, never a traceback, and no output that looks
complete.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings

from fuzz_support import READERS

EXAMPLES = {"annotate": 60, "eval-userfile": 50, "ua-eval-file": 60}  # others: DEFAULT_EXAMPLES
DEFAULT_EXAMPLES = 40
FUZZ = settings(
    deadline=None,
    database=None,  # no .hypothesis folder in the working tree
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(READERS))
def test_reader_gives_rows_or_one_error_line(name: str) -> None:
    reader = READERS[name]

    @settings(FUZZ, max_examples=EXAMPLES.get(name, DEFAULT_EXAMPLES))
    @given(case=reader.cases())
    def property_holds(case: object) -> None:
        note(repr(case))
        with tempfile.TemporaryDirectory() as workdir:
            reader.check(case, Path(workdir))

    property_holds()
