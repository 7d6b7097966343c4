"""affectlab: emotion and affect analysis of text in English, Ukrainian and Spanish."""

from __future__ import annotations

__version__ = "0.1.0"
