"""Counterfactual training rows (issue 52), built by rule from a dataset's own train rows and the first-person
clauses of :data:`PHRASES_DIR` (one JSON file per language: clauses that state each emotion, clauses that deny it,
and the patterns that join a denial to an affirmation):

* **denied** rows: a train text with a clause denying an emotion its labels say is absent, before or after it
  ("I'm not angry at all. <text>"); the targets are the text's own, the denied emotion known absent. A denial adds
  no emotion to a text, so thousands of such rows teach that a denied emotion word is not the emotion;
* **contrast** rows: "not A but B" ("I'm not sad, I'm furious."): B known present, A absent, ``none`` absent, the
  other emotions unknown (NaN).

Where a dataset's labels have no ``none`` (SemEval-2025 Spanish), ``none`` is left unknown in its denied rows: the
source never said a text was without emotion. The clauses were written for each language on its own (not translated),
apart from the behavioural suite's templates (:mod:`affectlab.checklist`), so that the suite's test templates measure
whether what is learnt carries to patterns never seen. No library writes such pairs, hence the rules here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from affectlab.labels import EKMAN
from affectlab.loaded_once import loaded_once

PHRASES_DIR = Path(__file__).with_name("counterfactual_data")
"""The clauses of each language, ``<tag>.json`` (en, uk, es, de, ru, pt, ar, hi, zh, am, af)."""
SENTENCE_END = {"zh": "。", "hi": "।", "am": "።"}
"""A language's full stop where it is not ".": a denial before a text ends with it."""
_LANGUAGE_OF = {"arq": "ar", "ary": "ar"}
"""Row language tags whose clauses are another tag's (Algerian and Moroccan Arabic read the Arabic clauses)."""
_FIRST_LETTER = re.compile(r"^([^\w]*)(\w)")
_CLAUSE_BREAK = re.compile(r"([.!?]\s+[^\w]*)(\w)")


@dataclass(frozen=True)
class Phrases:
    """A language's first-person clauses: per emotion, those that state it and those that deny it; and the
    patterns (with ``{deny}`` and ``{affirm}``) of "not A but B"."""

    lang: str
    affirm: dict[str, tuple[str, ...]]
    deny: dict[str, tuple[str, ...]]
    but: tuple[str, ...]


def phrase_language(lang: str) -> str:
    """The tag of the clauses a row of language ``lang`` (a BCP 47 tag such as ``pt-BR`` or ``arq``) reads."""
    base = lang.split("-")[0].lower()
    return _LANGUAGE_OF.get(base, base)


def phrases(lang: str) -> Phrases | None:
    """The clauses of the language of ``lang``; None where none were written."""
    return _phrases_of(phrase_language(lang))


@loaded_once
def _phrases_of(tag: str) -> Phrases | None:
    path = PHRASES_DIR / f"{tag}.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return Phrases(
        data["lang"],
        {e: tuple(data["affirm"][e]) for e in EKMAN.emotion_labels},
        {e: tuple(data["deny"][e]) for e in EKMAN.emotion_labels},
        tuple(data["but"]),
    )


def sentence_case(text: str) -> str:
    """``text`` with its first letter and the first letter after each sentence end in upper case."""
    text = _FIRST_LETTER.sub(lambda m: m.group(1) + m.group(2).upper(), text, count=1)
    return _CLAUSE_BREAK.sub(lambda m: m.group(1) + m.group(2).upper(), text)


def _denial(clauses: Phrases, emotion: str, rng: np.random.Generator) -> str:
    end = SENTENCE_END.get(clauses.lang, ".")
    return sentence_case(str(rng.choice(clauses.deny[emotion])) + end)


def denied_rows(
    texts: list[str], targets: np.ndarray, langs: list[str], seed: int, none_known: bool = True
) -> tuple[list[str], np.ndarray, list[str]]:
    """Each text of a language with clauses, joined to the denial of one emotion its ``targets`` (``ekman``, NaN
    where unannotated) say is absent, before or after it at random; the rows' targets are the text's with that
    emotion 0 (``none`` NaN unless ``none_known``). Texts with no absent emotion, or in a language without clauses,
    give no row."""
    rng = np.random.default_rng(seed)
    none = EKMAN.labels.index(EKMAN.none_label)
    out_texts, out_targets, out_langs = [], [], []
    for text, target, lang in zip(texts, targets, langs, strict=True):
        clauses = phrases(lang)
        absent = [e for e in EKMAN.emotion_labels if target[EKMAN.labels.index(e)] == 0]
        if clauses is None or not absent:
            continue
        emotion = str(rng.choice(absent))
        denial = _denial(clauses, emotion, rng)
        out_texts.append(f"{denial} {text}" if rng.random() < 0.5 else f"{_ended(text, clauses.lang)} {denial}")
        row = target.copy()
        if not none_known:
            row[none] = np.nan
        out_targets.append(row)
        out_langs.append(lang)
    return out_texts, _stacked(out_targets), out_langs


def _ended(text: str, lang: str) -> str:
    """``text`` ending in a sentence end (the language's full stop added where it ends in a letter or digit)."""
    text = text.rstrip()
    return text + SENTENCE_END.get(lang, ".") if text and text[-1].isalnum() else text


def contrast_rows(langs: list[str], seed: int) -> tuple[list[str], np.ndarray, list[str]]:
    """One "not A but B" row per entry of ``langs`` that has clauses: a denial of A and an affirmation of B (two
    different emotions drawn at random) joined by one of the language's patterns; B 1, A 0, ``none`` 0, the rest
    NaN."""
    rng = np.random.default_rng(seed)
    out_texts, out_targets, out_langs = [], [], []
    for lang in langs:
        clauses = phrases(lang)
        if clauses is None:
            continue
        denied, stated = (str(e) for e in rng.choice(EKMAN.emotion_labels, 2, replace=False))
        pattern = str(rng.choice(clauses.but))
        text = pattern.format(deny=rng.choice(clauses.deny[denied]), affirm=rng.choice(clauses.affirm[stated]))
        row = np.full(len(EKMAN), np.nan, dtype=np.float32)
        row[EKMAN.labels.index(denied)], row[EKMAN.labels.index(stated)] = 0.0, 1.0
        row[EKMAN.labels.index(EKMAN.none_label)] = 0.0
        out_texts.append(sentence_case(text))
        out_targets.append(row)
        out_langs.append(lang)
    return out_texts, _stacked(out_targets), out_langs


def _stacked(rows: list[np.ndarray]) -> np.ndarray:
    return np.vstack(rows).astype(np.float32) if rows else np.zeros((0, len(EKMAN)), dtype=np.float32)
