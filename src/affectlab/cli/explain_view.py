"""How ``detect --explain`` shows why each label was given: in a terminal, the text with each word tinted by its
weight for the label (green: the word supports it, red: it speaks against it; stronger for a larger weight); in
plain output (a pipe or a file), the words that weigh most for and against each label, with their weights."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from affectlab.detectors.explain import SpanWeight

TINTED_UP_TO = 600
"""A text up to this many characters is shown whole, tinted; a longer one by its top words."""
TOP_WORDS = 5
"""Words shown for and against a label in plain output (and for a text too long to tint)."""
SHOWN_FROM = 0.005
"""A word whose weight rounds to 0.00 is not listed."""
_SUPPORT = ("on #1d4d1d", "on #2a7a2a", "bold on #3aa83a")
_AGAINST = ("on #4d1d1d", "on #7a2a2a", "bold on #a83a3a")


def print_explanation(console: Console, text: str, explanation: dict[str, list[SpanWeight]]) -> None:
    """Each explained label's words, tinted in a terminal that shows colour, else as a plain list."""
    tinted = console.is_terminal and not console.no_color and len(text) <= TINTED_UP_TO
    for label, spans in explanation.items():
        if tinted:
            line = Text(f"  why {label}: ", style="bold")
            line.append_text(tinted_text(text, spans))
            console.print(line, soft_wrap=True)
        else:
            console.print(f"  why {label}: {top_words(spans)}", highlight=False, markup=False, soft_wrap=True)


def tinted_text(text: str, spans: list[SpanWeight]) -> Text:
    """``text`` with each word's background tinted by its weight relative to the largest weight of the label."""
    out = Text(text)
    largest = max((abs(span.weight) for span in spans), default=0.0)
    if largest <= 0:
        return out
    for span in spans:
        share = abs(span.weight) / largest
        if share < 0.1:
            continue
        level = 0 if share < 0.35 else 1 if share < 0.7 else 2
        out.stylize((_SUPPORT if span.weight > 0 else _AGAINST)[level], span.start, span.end)
    return out


def top_words(spans: list[SpanWeight], k: int = TOP_WORDS) -> str:
    """``word +0.19, word +0.03 | against: word -0.03``: the ``k`` words that weigh most for and against (at least
    :data:`SHOWN_FROM` either way)."""
    support = sorted((s for s in spans if s.weight >= SHOWN_FROM), key=lambda s: -s.weight)[:k]
    against = sorted((s for s in spans if s.weight <= -SHOWN_FROM), key=lambda s: s.weight)[:k]
    shown = ", ".join(f"{s.text} {s.weight:+.2f}" for s in support) or "(no word supports it)"
    if against:
        shown += " | against: " + ", ".join(f"{s.text} {s.weight:+.2f}" for s in against)
    return shown
