"""Eval-UA-tion (Hamotskyi et al. 2024): Ukrainian language-model benchmark tasks as multiple-choice instances.

Loaders for the published artifacts, generators (LMentry-static-UA, UA-CBT, UP-Titles), multiple-choice scoring
of language models (section 4.1: prompts, log-likelihood of a local model, or answers from an OpenAI-compatible
endpoint), non-LLM baselines and an lm-evaluation-harness export. Generators need the ``ua`` extra (pymorphy3
with the Ukrainian dictionary, ukr-numbers, num2words).
"""
