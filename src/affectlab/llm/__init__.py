"""Generative language models: OpenAI-compatible and local backends with a reply cache, the prompt templates for
emotion classification, and reading labels out of free-text answers."""
