"""How long library work reports its progress without printing: a :data:`Progress` callback that takes one line
of text per stage (the command line shows it in a spinner or a log line), and :func:`quiet`, the default that
reports nothing, so that the library stays silent unless its caller asks."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str], None]
"""A callback receiving the text of the stage that starts (``"fitting dawid-skene on 4,000 items"``)."""


def quiet(_stage: str) -> None:
    """The default progress callback: report nothing."""
