"""Training and evaluation runs: dataset + detector -> probabilities -> decision -> metrics -> run record."""
