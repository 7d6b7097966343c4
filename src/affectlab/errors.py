"""Exception classes. The CLI turns every :class:`AffectlabError` into one line on stderr and exit code 2."""

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


class TextTypeError(AffectlabError, TypeError):
    """Texts given to the Python API as something other than a ``str`` or an iterable of ``str``."""


class ModelFileError(AffectlabError):
    """A saved model that is missing, foreign, tampered with or from an incompatible version."""
