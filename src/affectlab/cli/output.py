"""Rendering shared by the commands: errors, JSON, progress, Rich tables of scores, and the guard that turns a
failure to write the output into an exit code (see :func:`affectlab.cli.main`)."""

from __future__ import annotations

import errno
import io
import json
import math
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from string import Formatter
from typing import TYPE_CHECKING, Any, TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Span, Text

from affectlab.errors import AffectlabError

if TYPE_CHECKING:
    from affectlab.detectors.base import Detector


class OutputWriteError(AffectlabError):
    """The command's output cannot be written: stdout refused it (a full disk, an I/O error, a descriptor not open
    for writing). Exit code 2, the documented code closest to it (the
    output's destination, like an input, is the user's to fix)."""


class ReaderGone(Exception):
    """The reader of the command's output went away (``affectlab ... | head``): exit code 141, quietly. Not a
    :class:`BrokenPipeError`, which Rich catches itself (in every console, Typer's help included) to exit with 1."""


class _Console(Console):
    """Rich's console, except that its stream's reader going away (stderr's: stdout's is a :class:`ReaderGone`
    that Rich does not catch) ends the command with code 141 rather than Rich's own exit with code 1."""

    def on_broken_pipe(self) -> None:
        raise ReaderGone


stdout = _Console()
stderr = _Console(stderr=True)

_PLACE = "\ue000"  # a private-use character: holds each value's place while the template's markup is read


def styled(template: str, *values: object, style: str = "") -> Text:
    """A line of the tool's own words in Rich markup (``template``: its colours and bold) with each ``{}`` field
    (``{:,}``, ``{:<24}``, ``{!r}`` too) filled by one of ``values`` shown exactly as typed, in the style of its place;
    ``style`` is the whole line's (``"table.title"`` for a table's title, which Rich styles only when it is a str).

    Everything a user wrote (a text, a file name, a label, an option's value) reaches the terminal through here, or
    as a :class:`~rich.text.Text` of its own: a value is never read as markup, so ``[/r/funny]``, ``[link=...]`` or
    ``I [love] you`` stay text. :func:`rich.markup.escape` is not enough: with it ``\\[1]`` loses its backslash and a
    trailing backslash escapes the tag after it."""
    parsed = list(Formatter().parse(template))
    fields = [(spec or "", conversion) for _, field, spec, conversion in parsed if field is not None]
    if any(field for _, field, _, _ in parsed) or len(fields) != len(values):  # a bug in the caller
        raise ValueError(f"{template!r} needs {len(fields)} values in order ({{}} fields), got {len(values)}")
    shown = [format(Formatter().convert_field(value, conversion) if conversion else value, spec)
             for value, (spec, conversion) in zip(values, fields, strict=True)]  # fmt: skip
    marked = Text.from_markup("".join(literal + ("" if field is None else _PLACE) for literal, field, _, _ in parsed))
    places = [offset for offset, char in enumerate(marked.plain) if char == _PLACE]

    def moved(offset: int) -> int:  # where a template offset lands once each place holds its value
        return offset + sum(len(text) - 1 for place, text in zip(places, shown, strict=True) if place < offset)

    first, *rest = marked.plain.split(_PLACE)
    plain = first + "".join(text + after for text, after in zip(shown, rest, strict=True))
    return Text(plain, style, spans=[Span(moved(span.start), moved(span.end), span.style) for span in marked.spans])


class GuardedStdout:
    """``sys.stdout`` while a command runs, so that every way of printing (Rich, ``typer.echo``, ``print``,
    :func:`print_json`) fails the same way: the reader going away is a :class:`ReaderGone` (exit 141), any other
    failure to write (ENOSPC, EIO, EBADF, ...) an :class:`OutputWriteError` (exit 2); an OSError from elsewhere (a
    file the command reads or writes) is not mistaken for one."""

    def __init__(self, stream: TextIO | None) -> None:
        self._stream = stream  # None when the process started with stdout closed (``affectlab ... >&-``)
        self.failed = False

    def write(self, text: str) -> int:
        try:
            if self._stream is None:
                raise OSError(errno.EBADF, os.strerror(errno.EBADF))
            if isinstance(getattr(self._stream, "buffer", None), io.RawIOBase):
                return self._write_whole(self._stream, text)
            return self._stream.write(text)
        except OSError as exc:
            raise self._failure(exc) from None

    @staticmethod
    def _write_whole(stream: TextIO, text: str) -> int:
        """Write ``text`` to a stream over an unbuffered file (``python -u``, ``PYTHONUNBUFFERED``), whose text layer
        takes a short write (a pipe whose reader left part way) as done and drops the rest without a word: the rest
        is written until it is all there or the write fails (the reader gone: ``BrokenPipeError``)."""
        stream.flush()
        data = memoryview(text.encode(stream.encoding, stream.errors or "strict"))
        while data:
            written = stream.buffer.write(data)
            data = data[written or 0 :]
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._stream is None:  # nothing was buffered: every write failed
            return
        try:
            self._stream.flush()
        except OSError as exc:
            raise self._failure(exc) from None

    def discard(self) -> None:
        """Point the process's stdout at the null device, so that the interpreter's last flush of what is still
        buffered does not fail again ("Exception ignored ... BrokenPipeError") after the command's one line; a
        test's captured stdout, and an fd 1 that was closed (and may since be a file the command opened), are left
        alone."""
        process_stdout = sys.__stdout__  # None when fd 1 was closed at start
        if process_stdout is None or self._stream is not process_stdout:
            return
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, process_stdout.fileno())
        os.close(devnull)

    def __getattr__(self, name: str) -> Any:  # isatty, encoding, fileno, buffer, ...: the stream's own
        return getattr(self._stream, name)

    def _failure(self, exc: OSError) -> Exception:
        self.failed = True
        if isinstance(exc, BrokenPipeError):
            return ReaderGone()
        return OutputWriteError(f"cannot write the output: {exc.strerror or exc}")


@contextmanager
def guarded_stdout() -> Iterator[None]:
    """Run a command with ``sys.stdout`` guarded (:class:`GuardedStdout`) and flushed when it ends, however it ends
    (``typer.Exit`` included), so that a failure to write what was buffered is the command's failure rather than
    the interpreter's at exit. The null device takes what is left only once the command has failed to write:
    before, a failed write may be one a library tried and let pass (click's ``write("")`` probe of a stream)."""
    original = sys.stdout
    guard = GuardedStdout(original)
    sys.stdout = guard  # type: ignore[assignment]  # a TextIO in all but name: it delegates to the stream
    try:
        try:
            yield
        finally:
            guard.flush()
    except (ReaderGone, OutputWriteError):
        if guard.failed:
            guard.discard()
        raise
    finally:
        sys.stdout = original


# Line breaks and other control characters a message may quote from a user's file (a column name with a newline),
# and lone surrogates, which a strict UTF-8 stream cannot encode: shown escaped, so an error stays one printable line.
_UNPRINTABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_LONGEST_ERROR = 1000  # characters; a message quoting a 200,000-character cell keeps its start and its end


def print_error(message: str, prefix: str = "error") -> None:
    """One line on stderr: ``error: <message>`` (or another ``prefix``), any line break or control character in it
    escaped, and the middle of a very long one left out."""
    message = _UNPRINTABLE.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), message)
    if len(message) > _LONGEST_ERROR:
        left_out = len(message) - 800
        message = f"{message[:600]} ... ({left_out:,} characters left out) ... {message[-200:]}"
    stderr.print(styled("[bold red]{}:[/] {}", prefix, message), soft_wrap=True)


def print_left_out(detector: Detector) -> None:
    """A note on stderr for each optional member a model runs without (e.g. an encoder that needs torch)."""
    print_notes(list(detector.capabilities.left_out))


def print_notes(notes: list[str]) -> None:
    """One ``note:`` line on stderr per note."""
    for note in notes:
        stderr.print(styled("[yellow]note:[/] {}", note), soft_wrap=True)


def print_json(data: Any) -> None:
    """Machine output on stdout, one JSON document. A NaN or infinite number (an undefined metric: Pearson's r of
    constant predictions, an interval on an empty split) is written as ``null``: Python would write a bare ``NaN``,
    which JSON readers refuse."""
    sys.stdout.write(json.dumps(_finite(data), ensure_ascii=False, indent=2, allow_nan=False) + "\n")


def _finite(data: Any) -> Any:
    """``data`` with every NaN or infinite float replaced by None."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {key: _finite(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [_finite(value) for value in data]
    return data


@contextmanager
def stage_progress(enabled: bool = True) -> Iterator[Any]:
    """A spinner with elapsed time on stderr; yields a callback that sets the current stage's text."""
    if not enabled or not stderr.is_terminal:
        yield lambda stage: None
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}", markup=False),
        TimeElapsedColumn(),
        console=stderr,
        transient=True,
    ) as progress:
        task = progress.add_task("starting", total=None)
        yield lambda stage: progress.update(task, description=stage)


PLAIN_PROGRESS_SECONDS = 10.0
"""How often a long step reports its progress where stderr is not a terminal (a log file, a pipe, a CI job), where
Rich draws no bar: a run of many minutes then still shows that it is alive, and one under this shows nothing."""


class PlainProgress:
    """Progress as a plain line on stderr, at most every :data:`PLAIN_PROGRESS_SECONDS` (and, if asked, at the end):
    ``ranking label words: 2,560/5,427 texts (47%) in 1:36, about 1:47 left``."""

    def __init__(self, description: str) -> None:
        self.description = description
        self.started = self.last = time.monotonic()

    def report(self, done: str, fraction: float, final: bool = False) -> None:
        """``done`` says how much is done ("2,560/5,427 texts"), ``fraction`` how much of the whole that is."""
        now = time.monotonic()
        if now - self.last < PLAIN_PROGRESS_SECONDS and not final:
            return
        self.last, elapsed = now, now - self.started
        left = f", about {_minutes(elapsed / fraction * (1 - fraction))} left" if 0 < fraction < 1 else ""
        stderr.print(f"{self.description}: {done} ({fraction:.0%}) in {_minutes(elapsed)}{left}",
                     highlight=False, markup=False, soft_wrap=True)  # fmt: skip


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


@contextmanager
def file_progress(enabled: bool = True) -> Iterator[Any]:
    """A progress bar with rows done and ETA on stderr; yields a callback taking the scorer's progress report. Where
    stderr is not a terminal: a :class:`PlainProgress` line every :data:`PLAIN_PROGRESS_SECONDS`."""
    if not enabled:
        yield None
        return
    if not stderr.is_terminal:
        plain = PlainProgress("scoring")
        yield lambda report: plain.report(f"{report.rows_done:,} rows", report.fraction)
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = (
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=stderr, transient=True) as progress:
        task = progress.add_task("scoring", total=1.0)

        def update(report: Any) -> None:
            progress.update(task, completed=report.fraction, description=f"{report.rows_done} rows")

        yield update


@contextmanager
def count_progress(description: str, enabled: bool = True, unit: str = "texts") -> Iterator[Any]:
    """A progress bar with items done and ETA on stderr; yields a callback ``(done, total)`` (None when off). Where
    stderr is not a terminal: a :class:`PlainProgress` line every :data:`PLAIN_PROGRESS_SECONDS` and at the end
    (``2,560/5,427 texts``: ``unit`` names what is counted)."""
    if not enabled:
        yield None
        return
    if not stderr.is_terminal:
        plain = PlainProgress(description)
        yield lambda done, total: plain.report(f"{done:,}/{total:,} {unit}", done / total if total else 1.0,
                                               final=done >= total)  # fmt: skip
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn())  # fmt: skip
    with Progress(*columns, console=stderr, transient=True) as progress:
        task = progress.add_task(description, total=None)
        yield lambda done, total: progress.update(task, completed=done, total=total)


def print_scores(record: dict[str, Any]) -> None:
    """The scores of EmoBench-UA Table 1 (per-label F1, macro precision/recall/F1), one row per label so that
    28 GoEmotions labels fit a terminal too, then the primary metric with its 95 % bootstrap interval."""
    metrics = record["metrics"]
    title = styled("{} on {} ({}, n={})", record["model"], Path(record["dataset"]).name, record["split"], record["n"],
                   style="table.title")  # fmt: skip
    table = Table(title=title)
    for header in ("label", "precision", "recall", "F1", "support"):
        table.add_column(header, justify="left" if header == "label" else "right", no_wrap=True)
    for label, scores in metrics["per_label"].items():
        table.add_row(Text(label), *(f"{scores[k]:.2f}" for k in ("precision", "recall", "f1")), str(scores["support"]))
    table.add_section()
    macro = (metrics["macro_precision"], metrics["macro_recall"], metrics["macro_f1"])
    table.add_row("macro avg", *(f"{v:.2f}" for v in macro), str(record["n"]), style="bold")
    stdout.print(table)
    primary = metrics["primary"]
    low, high = primary["ci95"]
    stdout.print(
        f"{primary['name']} = {primary['value']:.4f} (95% CI {low:.4f}-{high:.4f}); {record['seconds']:.1f} s",
        highlight=False,
        soft_wrap=True,
    )
