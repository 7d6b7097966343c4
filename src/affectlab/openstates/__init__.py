"""MASIVE end to end (Deas et al. 2024): open-ended affective states in English and Spanish, from collecting and
masking posts (:mod:`.collect`) through predictors (:mod:`.predictors`) to their metrics and evaluation."""
