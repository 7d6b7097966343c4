"""Text is shown as typed (issue 41, part 3): what a user wrote (a text, a masked text, a file name, a label) reaches
the terminal exactly as written, in a pipe and in a terminal, and is never read as Rich markup; ``explain`` of the
wrong type is one clear error."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

import affectlab
from affectlab.cli import detect_cmd
from affectlab.cli.output import print_error, styled
from affectlab.errors import AffectlabError, ArgumentTypeError
from fuzz_support import Outcome, check_exit, invoke

MARKUP_LIKE = ("[", "]", "[/]", "[/r/funny]", "[deleted]", "[1]", "[bold red]", "[link=https://example.com]",
               "[/link]", "[@click]", "[#ff0000]", ":smile:", "\\", "\\[", "\\\\", "[b]\\")  # fmt: skip
WORDS = ("lol", "I", "love", "you", "so", "happy", "angry", "today", ".", " ", " ")
MARKUP_TEXTS = (
    st.lists(st.sampled_from(MARKUP_LIKE + WORDS), min_size=1, max_size=10)
    .map(lambda parts: "".join(parts).strip())
    .filter(lambda text: 0 < len(text) <= 120)  # detect's first line cuts a longer text to 117 characters + "..."
)
ANSI_STYLE = re.compile(r"\x1b\[[0-9;]*m")
HYPERLINK = "\x1b]8;"  # how a terminal is told that what follows is a link
SENTENCE_LINE = re.compile(r" {4} *\d+ ")


@contextmanager
def terminal() -> Iterator[Console]:
    """``detect``'s output drawn as in a colour terminal, 200 columns wide."""
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=200)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(detect_cmd, "stdout", console)
        yield console


def visible(console: Console) -> list[str]:
    """The lines a reader of the terminal sees: no colour codes, and no link hidden in them."""
    drawn = console.file.getvalue()  # type: ignore[attr-defined]
    assert HYPERLINK not in drawn
    return ANSI_STYLE.sub("", drawn).splitlines()


def shown_as_typed(outcome: Outcome, text: str) -> list[str]:
    """Exit 0, no traceback, and the text's own line first, as typed; the output's lines."""
    check_exit(outcome)
    assert outcome.code == 0, outcome.err
    lines = outcome.out.splitlines()
    assert lines[0] == text
    return lines


def check_terminal_lines(lines: list[str], text: str) -> None:
    """The text's line, each label's tinted copy of it and each sentence of its arc, all as typed."""
    assert lines[0] == text
    why = [line for line in lines if line.startswith("  why ")]
    assert why and all(line.split(": ", 1)[1] == text for line in why)
    sentences = [line for line in lines[lines.index("  sentences:") + 1 :] if SENTENCE_LINE.match(line)]
    assert sentences
    for line in sentences:  # each ends with its sentence, text[start:end], after its start, labels and bar
        start = int(line.split()[0])
        assert any(line.endswith(" " + text[start:end]) for end in range(start + 1, len(text) + 1)), line


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=MARKUP_TEXTS, piped_with=st.sampled_from([(), ("--explain",), ("--sentences",)]))
def test_markup_like_text_is_shown_as_typed_in_a_pipe_and_in_a_terminal(text: str, piped_with: tuple[str, ...]) -> None:
    piped = shown_as_typed(invoke(["detect", *piped_with, text]), text)
    if piped_with == ("--explain",):
        assert any(line.startswith("  why ") for line in piped)
    with terminal() as console:
        check_exit(invoke(["detect", "--sentences", "--explain", text]))
    check_terminal_lines(visible(console), text)


LONGER_THAN_A_PIPE = "[[[[link=https://example.com][link=https://example.com][link=https://example.com]"
"""82 characters without a space, which a pipe's 80 columns once folded (found by the test above in CI)."""


@pytest.mark.parametrize(
    "text", ["[/r/funny] lol", "I [love] you", "[link=https://example.com]x[/link]", LONGER_THAN_A_PIPE]
)
def test_the_texts_of_the_issue_are_shown_as_typed(text: str) -> None:
    shown_as_typed(invoke(["detect", text]), text)
    with terminal() as console:
        check_exit(invoke(["detect", "--sentences", "--explain", text]))
    check_terminal_lines(visible(console), text)


def test_a_masked_text_with_brackets_is_shown_as_typed_by_open() -> None:
    text = "[deleted] I feel <extra_id_0> about [this] \\"
    shown_as_typed(invoke(["detect", "--open", "--lang", "en", text]), text)
    with terminal() as console:
        check_exit(invoke(["detect", "--open", "--lang", "en", text]))
    assert visible(console)[0] == text


@pytest.mark.parametrize("name", ["[x].csv", "[bold]a[/].csv", "[link=https://example.com]x[/link].csv"])
def test_an_error_line_quotes_a_bracketed_file_name_as_typed(tmp_path, name: str) -> None:
    outcome = invoke(["detect", "--input", tmp_path / name, "--output", tmp_path / "out.csv"])
    check_exit(outcome)
    assert outcome.code == 2 and f"'{tmp_path / name}' does not exist" in outcome.err, outcome.err


def test_an_error_line_quotes_a_bracketed_label_as_typed() -> None:
    outcome = invoke(["detect", "--explain-label", "[joy]", "I am happy"])
    check_exit(outcome)
    assert outcome.code == 2 and "cannot explain '[joy]'" in outcome.err, outcome.err


@pytest.mark.parametrize("message", ["no file '[x]\\'", "b\\[1] and [/] and [link=https://x]y[/link]", "end\\\\"])
def test_print_error_shows_the_message_as_typed(capsys, message: str) -> None:
    print_error(message)
    assert capsys.readouterr().err == f"error: {message}\n"


@pytest.mark.parametrize("value", ["a\\", "a\\\\\\", "\\[1]", "[/]", "[bold]x", "{}", ":smile:"])
def test_a_styled_value_keeps_every_character_and_the_style_of_its_place(value: str) -> None:
    line = styled("[bold]{}[/] and [dim]{!r}[/] {:>4}", value, value, 7)
    assert line.plain == f"{value} and {value!r}    7"
    assert [(span.start, span.end, span.style) for span in line.spans] == [
        (0, len(value), "bold"),
        (len(value) + 5, len(value) + 5 + len(repr(value)), "dim"),
    ]


def test_explain_of_the_wrong_type_is_one_clear_error() -> None:
    with pytest.raises(
        ArgumentTypeError, match=r"^explain must be True, False or a list of label names \(str\), not int$"
    ) as raised:
        affectlab.detect("I am happy", explain=5)  # type: ignore[arg-type]
    assert isinstance(raised.value, AffectlabError) and isinstance(raised.value, TypeError)
    with pytest.raises(ArgumentTypeError, match="not a list holding int"):
        affectlab.detect("I am happy", explain=["joy", 5])  # type: ignore[list-item]
