"""Reading and writing files safely: atomic writes, JSON Lines, and resumable batch files of texts to score."""
