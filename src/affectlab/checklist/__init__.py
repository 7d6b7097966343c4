"""The behavioural suite (``affectlab checklist``): CheckList-style templates and sentences in ten languages,
split by template into dev and test, run on any ``ekman`` detector."""

from affectlab.checklist.jobs import CapabilityResult, ChecklistReport, run_checklist
from affectlab.checklist.suite import CAPABILITIES, EDITS, Case, suite_languages, written_cases

__all__ = [
    "CAPABILITIES", "EDITS", "CapabilityResult", "Case", "ChecklistReport", "run_checklist", "suite_languages",
    "written_cases",
]  # fmt: skip
