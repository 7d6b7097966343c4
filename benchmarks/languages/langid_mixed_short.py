"""Mixed languages in a short text (issue 52, item 4): a text up to ``WHOLE_UP_TO`` characters is read whole and
identified whole, so eight sentences in en, uk, es, de, fi, fr and ja (260 characters) came out ``pcm`` with no note,
while the same sentences past 1,000 characters were named "languages: en 18 %, uk 18 %, ...".

Two rules, each sentence of a short text identified apart and only its sentences of at least ``chars`` characters
counted (shorter ones are too short to tell): the long texts' (mixed where two or more languages each hold at least
``share`` of their characters) and the one shipped (:func:`affectlab.detectors.documents.short_text_shares`: three or
more such languages; ``share`` is ``LANGUAGE_MIN_SHARE``). Two kinds of text, from the 28 languages' SemEval-2025
track A texts of one split:

* one language: every text of the split with two or more sentences (a rule that calls these mixed is wrong);
* mixed: 2-7 texts' first sentences (each 12-200 characters) from as many different languages, joined with spaces,
  up to ``WHOLE_UP_TO`` characters (a rule should call these mixed).

    python benchmarks/languages/langid_mixed_short.py --data-dir ../shared/data --split dev    # choose chars and share
    python benchmarks/languages/langid_mixed_short.py --data-dir ../shared/data --split test   # report the choice

Writes ``benchmarks/results/langid_mixed_short_{split}.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from pathlib import Path
from unittest.mock import patch

from affectlab.datasets.semeval2025 import LANGS, read_split
from affectlab.detectors import documents
from affectlab.detectors.documents import WHOLE_UP_TO, Span, language_shares, sentence_spans
from affectlab.langid import detect_language

CHARS = (0, 15, 25, 40)
SHARES = (0.05, 0.1, 0.15, 0.2, 0.3)
MIXED_TEXTS = 600
OUT = Path(__file__).parents[1] / "results"


def sentences(text: str, lang: str) -> list[tuple[str, int]]:
    """Each sentence of ``text`` (split by ``lang``'s rules) with the language it is identified as and its length."""
    return [(detect_language(text[s.start : s.end]), s.end - s.start) for s in sentence_spans(text, lang)]


def is_mixed(parts: list[tuple[str, int]], chars: int, share: float) -> bool:
    """The long texts' rule on a short text's sentences: two or more languages with at least ``share`` of the
    characters of the sentences of at least ``chars`` characters (``und`` never counts)."""
    counted = [(lang, n) for lang, n in parts if n >= chars and lang != "und"]
    shares = language_shares([lang for lang, _ in counted], [Span(0, n) for _, n in counted])
    return sum(value >= share for value in shares.values()) > 1


def shipped_rule(parts: list[tuple[str, int]], chars: int) -> bool:
    """:func:`affectlab.detectors.documents.short_text_shares` with sentences of at least ``chars`` counted."""
    with patch.object(documents, "SHORT_SENTENCE_CHARS", chars):
        spans = [Span(0, n) for _, n in parts]
        return documents.short_text_shares([lang for lang, _ in parts], spans) is not None


def texts_of(split: str, data_dir: str) -> dict[str, list[str]]:
    return {tag: [row["text"] for row in read_split(code, split, data_dir)] for code, tag in LANGS.items()}


def mixed_texts(by_lang: dict[str, list[str]], rng: random.Random) -> list[tuple[str, list[str]]]:
    """Texts of 2-7 first sentences of texts of as many languages, with the languages they hold."""
    firsts = {}
    for tag, texts in by_lang.items():
        found = []
        for text in texts:
            spans = sentence_spans(text, tag)
            if spans and 12 <= spans[0].end - spans[0].start <= 200:
                found.append(text[spans[0].start : spans[0].end])
        firsts[tag] = found
    tags = [tag for tag, found in firsts.items() if found]
    made = []
    while len(made) < MIXED_TEXTS:
        chosen = rng.sample(tags, rng.randint(2, 7))
        text = " ".join(rng.choice(firsts[tag]) for tag in chosen)
        if len(text) <= WHOLE_UP_TO:
            made.append((text, chosen))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--split", choices=["dev", "test"], default="dev")
    parser.add_argument("--seed", type=int, default=52)
    args = parser.parse_args()
    started = time.time()
    by_lang = texts_of(args.split, args.data_dir)
    single = {tag: [(sentences(text, tag), detect_language(text)) for text in texts if len(text) <= WHOLE_UP_TO]
              for tag, texts in by_lang.items()}  # fmt: skip
    single = {tag: [(parts, whole) for parts, whole in found if len(parts) > 1] for tag, found in single.items()}
    made = mixed_texts(by_lang, random.Random(args.seed))
    mixed = [(sentences(text, tags[0]), tags, detect_language(text)) for text, tags in made]
    n_single = sum(len(found) for found in single.values())
    grid = []
    for chars in CHARS:
        for share in (*SHARES, None):

            def rule(parts: list[tuple[str, int]], whole: str, chars: int = chars, share: float | None = share) -> bool:
                return shipped_rule(parts, chars) if share is None else is_mixed(parts, chars, share)

            rates = {tag: sum(rule(p, w) for p, w in found) / max(len(found), 1) for tag, found in single.items()}
            worst = max(rates, key=lambda tag: rates[tag])
            wrong = sum(rule(p, w) for found in single.values() for p, w in found) / n_single
            found_mixed = sum(rule(parts, whole) for parts, _, whole in mixed) / len(mixed)
            by_count = {n: [rule(p, w) for p, tags, w in mixed if len(tags) == n] for n in range(2, 8)}
            grid.append({"rule": "shipped" if share is None else "long texts'", "chars": chars, "share": share,
                         "one_language_called_mixed": round(wrong, 4), "worst_language": worst,
                         "worst_rate": round(rates[worst], 4), "mixed_called_mixed": round(found_mixed, 4),
                         "mixed_called_mixed_by_languages": {n: round(sum(v) / max(len(v), 1), 3)
                                                             for n, v in by_count.items()}})  # fmt: skip
    whole_in = sum(whole in tags for _, tags, whole in mixed) / len(mixed)
    result = {"split": args.split, "one_language_texts": sum(len(v) for v in single.values()),
              "per_language": {tag: len(found) for tag, found in single.items()}, "mixed_texts": len(mixed),
              "whole_text_tag_is_one_of_its_languages": whole_in, "grid": grid,
              "machine": platform.platform(), "seconds": round(time.time() - started, 1),
              "command": "python benchmarks/languages/langid_mixed_short.py --data-dir DIR "
                         f"--split {args.split}"}  # fmt: skip
    OUT.mkdir(exist_ok=True)
    (OUT / f"langid_mixed_short_{args.split}.json").write_text(json.dumps(result, indent=1) + "\n")
    for row in grid:
        print(f"{row['rule']:<12} chars {row['chars']:>3} share {row['share'] or 0.05:.2f}: one language called mixed "
              f"{row['one_language_called_mixed']:.3f} (worst {row['worst_language']} {row['worst_rate']:.3f}), "
              f"mixed found {row['mixed_called_mixed']:.3f} "
              f"(by languages {row['mixed_called_mixed_by_languages']})")  # fmt: skip


if __name__ == "__main__":
    main()
