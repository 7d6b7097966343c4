"""The factory of the shipped default (``affectlab build-default``): assemble the training sources
(:mod:`~affectlab.build.sources`), fine-tune the shared encoder (:mod:`~affectlab.build.encoder`, scored on dev by
:mod:`~affectlab.build.dev_scores`) and export it (:mod:`~affectlab.build.export`), build and score the heads
(:mod:`~affectlab.build.heads`, with the optional English member of :mod:`~affectlab.build.english`), and the job
that runs it all (:mod:`~affectlab.build.jobs`). Nothing at inference imports this package."""
