"""Exception classes. The CLI turns every :class:`AffectlabError` into one line on stderr and exit code 2, and
an :class:`Interrupted` run (Ctrl-C) into one line saying what was kept, and exit code 130."""

from __future__ import annotations


class AffectlabError(Exception):
    """Base class for errors caused by the user's input, data or environment (not by a bug)."""


class UnknownNameError(AffectlabError, KeyError):
    """A dataset, model, label space or label name that is not registered."""

    def __str__(self) -> str:  # KeyError would wrap the message in quotes
        return str(self.args[0]) if self.args else ""


class DataNotFoundError(AffectlabError, FileNotFoundError):
    """A data file that is neither in the local data directory nor reachable online."""


class InputError(AffectlabError, ValueError):
    """Input that cannot be used as given: a missing column, an empty text, a bad encoding, a bad option."""


class ArgumentTypeError(AffectlabError, TypeError):
    """An argument of the Python API of the wrong type (``top_k="3"``, ``context="one turn"``)."""


class TextTypeError(ArgumentTypeError):
    """Texts given to the Python API as something other than a ``str`` or an iterable of ``str``."""


class ModelFileError(AffectlabError):
    """A saved model that is missing, foreign, tampered with or from an incompatible version."""


class OutputError(InputError):
    """An output location that cannot be used: a folder that is not writable, a file where a folder is needed (or
    the reverse), an existing output that is not this run's, or an output another run is writing."""


class Interrupted(Exception):
    """A run stopped by the user (Ctrl-C) part way; the message says what was kept and how to resume."""
