"""Scoring many texts on one machine or a Ray cluster (``affectlab score``; extra ``scale``: Ray)."""
