"""Every batch scoring run: ``detect --input`` and ``score`` (local engine or Ray Data), through one BatchScorer's read,
score, write and resume, with one set of output columns (extra ``scale``: Ray)."""
