"""Collecting affective states by bootstrapping (MASIVE section 3.1): seeds and templates, the adjective check,
masking, and the train/test records."""
