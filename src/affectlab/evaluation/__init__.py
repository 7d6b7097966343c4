"""Emotion-detector runs: training (fit on train, decision tuned on dev), evaluation (dataset + detector ->
probabilities -> decision -> metrics -> run record), the results store, HTML reports, and the recipe that builds
the shipped default heads."""
