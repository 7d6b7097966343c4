"""Whole documents (issue 32): documents made from SemEval-2025 track A texts, read whole (one vector, as before
issue 32: the encoder reads the first 2,000 characters) against sentence by sentence with the document rule of
:mod:`affectlab.detectors.documents`.

A document is 32-86 emotion-free texts of one language with one or two texts that carry emotions placed anywhere
among them, joined with spaces; its gold labels are those texts' labels (the issue's construction). Languages with
neutral texts: en (fillers from GoEmotions-Ekman's neutral comments of the same split, as SemEval eng has few), uk,
de, ru, pt-BR, zh, am, sv. "early": the first emotional text starts within the first 2,000 characters.

    python benchmarks/documents/documents.py tune --data-dir ../shared/data   # dev documents: the rule and WHOLE_UP_TO
    python benchmarks/documents/documents.py test --data-dir ../shared/data   # test documents, scored once at the end

``tune`` also sweeps document length (1-21 texts, one emotional) to find where one vector stops reading well.
Writes ``benchmarks/results/documents_{tune,test}.json``. Macro-F1 over each language's emotion columns (track A's
score), averaged over the languages.
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import random
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from affectlab.datasets import resolve_dataset
from affectlab.detectors.batch import prepare_batch
from affectlab.detectors.documents import WHOLE_UP_TO, document_labels, document_row, sentence_spans
from affectlab.detectors.resolve import resolve_detector
from affectlab.langid import detect_language
from affectlab.metrics.scores import macro_f1_emotions

LANGUAGES = {"eng": "en", "ukr": "uk", "deu": "de", "rus": "ru", "ptbr": "pt-BR", "chn": "zh", "amh": "am",
             "swe": "sv"}  # fmt: skip
PER_LANGUAGE = 30
EARLY = 2000
MARGINS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
SWEEP = (0, 1, 2, 3, 5, 8, 12, 20)


@dataclass
class Document:
    lang: str
    text: str
    gold: list[str]
    first_emotion_at: int


def pools(code: str, split: str, data_dir: str | None) -> tuple[list[str], list[tuple[str, list[str]]], tuple]:
    """The neutral texts and the (text, labels) with emotions of one language's split, and its label space."""
    spec, data = resolve_dataset(f"semeval2025-{code}", data_dir)
    rows = data[split]
    emotional = [(t, [x for x in ls if x != "none"]) for t, ls in zip(rows["text"], rows["labels"], strict=True)]
    neutral = [t for t, ls in emotional if not ls]
    if code == "eng":
        _, goemotions = resolve_dataset("goemotions-ekman", data_dir)
        g = goemotions["dev" if split == "dev" else "test"]
        neutral = [t for t, ls in zip(g["text"], g["labels"], strict=True) if ls == ["none"]][:1000]
    return neutral, [(t, ls) for t, ls in emotional if ls], spec.label_space


def make_document(lang: str, neutral: list[str], emotional: list, n_fill: int, n_emotional: int, rng) -> Document:
    parts = [rng.choice(neutral).strip() for _ in range(n_fill)]
    chosen = rng.sample(emotional, n_emotional)
    slots = sorted(rng.randint(0, len(parts)) for _ in chosen)
    gold: set[str] = set()
    for offset, (slot, (text, labels)) in enumerate(zip(slots, chosen, strict=True)):
        parts.insert(slot + offset, text.strip())
        gold |= set(labels)
    first = min(slot + offset for offset, slot in enumerate(slots))
    text = " ".join(parts)
    return Document(lang, text, sorted(gold), len(" ".join(parts[:first])))


def build(split: str, data_dir: str | None, seed: int, sweep: bool) -> tuple[list[Document], dict]:
    rng, documents, spaces = random.Random(seed), [], {}
    for code, lang in LANGUAGES.items():
        neutral, emotional, space = pools(code, split, data_dir)
        spaces[lang] = space
        if sweep:
            documents += [make_document(lang, neutral, emotional, n, 1, rng) for n in SWEEP for _ in range(12)]
        else:
            documents += [make_document(lang, neutral, emotional, rng.randint(32, 86), rng.choice((1, 2)), rng)
                          for _ in range(PER_LANGUAGE)]  # fmt: skip
    return documents, spaces


def unit_scores(detector, texts: list[str]) -> np.ndarray:
    """Decision scores of ``texts`` each read whole (the encoder reads the first 2,000 characters)."""
    unique = list(dict.fromkeys(texts))
    scores = detector.score(prepare_batch(detector, unique), False).scores
    index = {text: i for i, text in enumerate(unique)}
    return scores[[index[t] for t in texts]]


def sentence_readings(detector, documents: list[Document]) -> list[np.ndarray]:
    """Each document's sentences' decision scores ``(n_sentences, n_labels)``."""
    spans = [sentence_spans(d.text, detect_language(d.text[:1000])) for d in documents]
    pieces = [d.text[s.start : s.end] for d, doc_spans in zip(documents, spans, strict=True) for s in doc_spans]
    scores, rows, start = unit_scores(detector, pieces), [], 0
    for doc_spans in spans:
        rows.append(scores[start : start + len(doc_spans)])
        start += len(doc_spans)
    return rows


def f1_by_language(documents, predicted: np.ndarray, spaces, detector, keep=None) -> dict[str, float]:
    labels = list(detector.label_space.labels)
    out = {}
    for lang, space in spaces.items():
        rows = [i for i, d in enumerate(documents) if d.lang == lang and (keep is None or keep(d))]
        if not rows:
            continue
        columns = [labels.index(label) for label in space.labels]
        gold = space.encode([documents[i].gold or ["none"] for i in rows]) if space.none_label else \
            space.encode([documents[i].gold for i in rows])  # fmt: skip
        out[lang] = macro_f1_emotions(gold, predicted[rows][:, columns], space)
    return out


def readings(detector, documents, margins) -> dict[str, np.ndarray]:
    """0/1 labels of each document by every reading: whole, and the sentence rule at each margin."""
    space = detector.label_space
    none_column = space.labels.index(space.none_label)
    whole_scores = unit_scores(detector, [d.text for d in documents])
    whole = np.stack([document_labels(row, none_column) for row in whole_scores])
    sentences = sentence_readings(detector, documents)
    out = {"whole": whole}
    for margin in margins:
        out[f"sentences margin {margin}"] = np.stack(
            [document_labels(document_row(rows, none_column, margin), none_column) for rows in sentences]
        )
    if len(margins) > 1:  # tuning: two other shapes of rule beside the fixed margin
        out |= other_rules(sentences, none_column)
    return out


def other_rules(sentences: list[np.ndarray], none_column: int) -> dict[str, np.ndarray]:
    """A margin growing with the log of the number of sentences (a longer document has more chances of one
    sentence crossing a threshold), and a blend of the highest and the second-highest sentence score."""
    out = {}
    for c in (0.01, 0.02, 0.05):
        out[f"sentences margin {c} x log(n)"] = np.stack(
            [document_labels(document_row(r, none_column, c * np.log(len(r))), none_column) for r in sentences]
        )
    for w in (0.8, 0.9):
        rows = []
        for r in sentences:
            ordered = np.sort(r, axis=0)
            row = w * ordered[-1] + (1 - w) * ordered[-2 if len(r) > 1 else -1]
            row[none_column] = r[:, none_column].min()
            rows.append(document_labels(row, none_column))
        out[f"sentences blend {w} top, {1 - w:.1f} second"] = np.stack(rows)
    return out


def summarise(documents, spaces, detector, predicted: dict[str, np.ndarray], subsets: dict) -> dict:
    table = {}
    for name, keep in subsets.items():
        table[name] = {}
        for reading, labels in predicted.items():
            per_language = f1_by_language(documents, labels, spaces, detector, keep)
            table[name][reading] = {"mean": float(np.mean(list(per_language.values()))), "per_language": per_language}
    return table


def run(mode: str, data_dir: str | None) -> dict:
    detector = resolve_detector("default", "ekman")
    split = "dev" if mode == "tune" else "test"
    documents, spaces = build(split, data_dir, seed=32, sweep=False)
    started = time.perf_counter()
    margins = MARGINS if mode == "tune" else (None,)
    predicted = readings(detector, documents, MARGINS if mode == "tune" else (_shipped_margin(),))
    subsets = {
        "all": None,
        "early": lambda d: d.first_emotion_at < EARLY,
        "late": lambda d: d.first_emotion_at >= EARLY,
    }
    record = {"mode": mode, "split": split, "date": time.strftime("%Y-%m-%d"), "machine": platform.machine(),
              "documents": len(documents), "mean_chars": float(np.mean([len(d.text) for d in documents])),
              "whole_up_to": WHOLE_UP_TO, "table": summarise(documents, spaces, detector, predicted, subsets),
              "seconds": time.perf_counter() - started}  # fmt: skip
    del margins
    if mode == "tune":
        record["length_sweep"] = length_sweep(detector, data_dir)
        record["long_single_texts"] = long_single_texts(detector, data_dir)
    return record


LONG_TEXT_LANGUAGES = ("deu", "swe", "ptbr", "orm", "tat", "som", "kin", "eng")


def long_single_texts(detector, data_dir: str | None) -> dict:
    """The other side of :data:`~affectlab.detectors.documents.WHOLE_UP_TO`: the dev texts of the languages with long
    ones, each a single annotated text (emotional throughout, unlike a document), read whole against sentence by
    sentence: micro-F1 over their labels, by length."""
    space = detector.label_space
    none_column = space.labels.index(space.none_label)
    rows = []
    for code in LONG_TEXT_LANGUAGES:
        spec, data = resolve_dataset(f"semeval2025-{code}", data_dir)
        columns = [list(space.labels).index(label) for label in spec.label_space.labels]
        for text, labels in zip(data["dev"]["text"], data["dev"]["labels"], strict=True):
            if len(text) > 300:
                gold = spec.label_space.encode([labels])[0]
                rows.append((len(text), columns, gold, text))
    whole = unit_scores(detector, [text for *_, text in rows])
    split = sentence_readings(detector, [Document("", text, [], 0) for *_, text in rows])
    out = {}
    for low in (300, 500, 750, 1000):
        keep = [i for i, row in enumerate(rows) if row[0] > low]
        counts = {"whole": np.zeros(3), "sentences": np.zeros(3)}
        for i in keep:
            _, columns, gold, _ = rows[i]
            for name, row in (("whole", whole[i]), ("sentences", document_row(split[i], none_column))):
                predicted = document_labels(row, none_column)[columns]
                counts[name] += [(predicted & gold).sum(), (predicted & ~gold.astype(bool)).sum(),
                                 (~predicted.astype(bool) & gold.astype(bool)).sum()]  # fmt: skip
        out[f"over {low}"] = {"n": len(keep)} | {
            name: float(2 * c[0] / max(2 * c[0] + c[1] + c[2], 1)) for name, c in counts.items()
        }
    return out


def _shipped_margin() -> float:
    from affectlab.detectors.documents import DOCUMENT_MARGIN

    return DOCUMENT_MARGIN


def length_sweep(detector, data_dir: str | None) -> dict:
    """Whole against sentence by sentence (shipped margin), by document length in characters."""
    documents, spaces = build("dev", data_dir, seed=33, sweep=True)
    predicted = readings(detector, documents, (_shipped_margin(),))
    bounds = (0, 150, 300, 500, 750, 1000, 1500, 2000, 3000, 10**9)
    out = {}
    for low, high in itertools.pairwise(bounds):

        def keep(d, low=low, high=high):
            return low <= len(d.text) < high

        if not any(keep(d) for d in documents):
            continue
        n = sum(keep(d) for d in documents)
        out[f"{low}-{high}"] = {"n": n} | {
            reading: float(np.mean(list(f1_by_language(documents, labels, spaces, detector, keep).values())))
            for reading, labels in predicted.items()
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("tune", "test"))
    parser.add_argument("--data-dir")
    args = parser.parse_args()
    record = run(args.mode, args.data_dir)
    out = Path(__file__).parents[1] / "results" / f"documents_{args.mode}.json"
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    for subset, readings_ in record["table"].items():
        print(subset, {name: round(r["mean"], 3) for name, r in readings_.items()})
    for bucket, row in {**record.get("length_sweep", {}), **record.get("long_single_texts", {})}.items():
        print(bucket, {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()})


if __name__ == "__main__":
    main()
