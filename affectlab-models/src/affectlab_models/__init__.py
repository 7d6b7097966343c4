"""The trained models affectlab ships, as data files: ``default_heads/`` (the default detector's heads),
``e5_affect/`` (its fine-tuned int8 encoder), ``open_states/`` (the open-state predictor) and ``langid/`` (the
language identifier's n-grams), listed with their sizes and SHA-256 in ``manifest.json``, which affectlab checks
when it loads them (``affectlab.model_package``). No code: affectlab finds this folder by importing the package."""
