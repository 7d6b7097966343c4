"""Scores of emotion detectors, each saying how it averages: classification metrics, the shared decision step
(thresholds, arg-max, prior shift) and bootstrap confidence intervals."""
