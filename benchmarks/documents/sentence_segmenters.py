"""Which sentence segmenter reads the 28 languages' texts best (issue 32): sentencex (Wikimedia, ~250 languages by
fallback chains) against pysbd (22 languages; English rules for the rest), on the SemEval-2025 track A dev texts.

Each language's dev texts are joined in pairs (``first + " " + second``) as a document would join them. A
segmenter should split at every join where the first text ends a sentence (it ends in sentence-final punctuation:
``. ! ? … 。 ！ ？ ። ፧ ؟ ।``), and keep each text's own characters in order: **join recall** is the share of those
joins at which a sentence ends; **lossless** whether the pieces, joined, give the text back (else offsets must be
searched for); **pieces per text** how finely a single dev text is cut (tweets do hold several sentences, so this
is not an error rate, only a check that neither cuts words apart); speed in texts/s over all of it.

    python benchmarks/documents/sentence_segmenters.py --data-dir ../shared/data

Writes ``benchmarks/results/sentence_segmenters.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable
from pathlib import Path

from affectlab.datasets import resolve_dataset
from affectlab.datasets.semeval2025 import LANGS

FINAL = tuple(".!?…。！？።፧؟।")
PYSBD_LANGUAGES = {"en", "hi", "mr", "zh", "es", "am", "ar", "hy", "bg", "ur", "ru", "pl", "fa", "nl", "da", "fr",
                   "my", "el", "it", "ja", "de", "kk", "sk"}  # fmt: skip


def sentencex_pieces(lang: str) -> Callable[[str], list[str]]:
    import sentencex

    code = lang.split("-")[0]
    return lambda text: list(sentencex.segment(code, text))


def pysbd_pieces(lang: str) -> Callable[[str], list[str]]:
    import pysbd

    code = lang.split("-")[0]
    segmenter = pysbd.Segmenter(language=code if code in PYSBD_LANGUAGES else "en", clean=False)
    return lambda text: list(segmenter.segment(text))


def boundaries(pieces: list[str], text: str) -> set[int]:
    """Character offsets where a piece ends, found in order in ``text`` (whitespace between pieces skipped)."""
    ends, position = set(), 0
    for piece in pieces:
        found = text.find(piece.strip(), position)
        if found < 0:
            continue
        position = found + len(piece.strip())
        ends.add(position)
    return ends


def measure_language(segment: Callable[[str], list[str]], texts: list[str]) -> dict:
    joins = hits = lossless = pieces = 0
    start = time.perf_counter()
    for first, second in zip(texts[::2], texts[1::2], strict=False):
        document = first.rstrip() + " " + second.strip()
        parts = segment(document)
        lossless += "".join(parts) == document
        if first.rstrip().endswith(FINAL):
            joins += 1
            hits += len(first.rstrip()) in boundaries(parts, document)
    for text in texts:
        pieces += len([p for p in segment(text) if p.strip()])
    seconds = time.perf_counter() - start
    n_documents = len(texts) // 2
    return {"joins": joins, "join_recall": hits / joins if joins else None, "lossless": lossless / max(n_documents, 1),
            "pieces_per_text": pieces / len(texts), "texts_per_s": (len(texts) + n_documents) / seconds}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir")
    args = parser.parse_args()
    record: dict = {"date": time.strftime("%Y-%m-%d"), "machine": platform.machine(), "languages": {}}
    for code, lang in LANGS.items():
        _, data = resolve_dataset(f"semeval2025-{code}", args.data_dir)
        texts = [str(text) for text in data["dev"]["text"]]
        record["languages"][lang] = {
            name: measure_language(factory(lang), texts)
            for name, factory in (("sentencex", sentencex_pieces), ("pysbd", pysbd_pieces))
        }
        row = record["languages"][lang]
        print(lang, {name: round(r["join_recall"] or 0, 3) for name, r in row.items()}, flush=True)
    for name in ("sentencex", "pysbd"):
        rows = [r[name] for r in record["languages"].values() if r[name]["join_recall"] is not None]
        record[name] = {
            "mean_join_recall": sum(r["join_recall"] for r in rows) / len(rows),
            "min_join_recall": min(r["join_recall"] for r in rows),
            "mean_lossless": sum(r["lossless"] for r in rows) / len(rows),
            "mean_texts_per_s": sum(r["texts_per_s"] for r in rows) / len(rows),
        }
        print(name, record[name])
    out = Path(__file__).parents[1] / "results" / "sentence_segmenters.json"
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
