"""The language identifier affectlab uses (:mod:`affectlab.langid`: rules where they are sure, CLD3 for the rest)
measured per language on the 28 SemEval-2025 track A test sets (issue 23), beside the rules it replaced (English,
Ukrainian and Spanish only, the identifier of affectlab before issue 23, kept here to compare; its English/Spanish
rule is read from git revision ``BEFORE`` of ``benchmarks/languages/langid_open_set.py``, which also compares issue 32's
open-set identifier with the one before it).

Accuracy: the share of a language's texts given its tag (``pt-MZ`` texts read as ``pt-BR``, and ``arq`` ones as
``ary``, count as right in the ``language`` column: the same language, the sibling's thresholds). Speed: texts/s
over all sampled texts, one at a time, after a warm-up pass over them (simplemma loads a language's dictionary
when first asked, 0.1-1 s each).

    python benchmarks/languages/langid_default.py --data-dir ../shared/data [--per-language 300] [--split test]

Writes ``benchmarks/results/langid_default.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from affectlab.datasets import resolve_dataset
from affectlab.datasets.semeval2025 import LANGS
from affectlab.langid import detect_language

sys.path.insert(0, str(Path(__file__).parent))
from langid_open_set import BEFORE, module_at

SIBLINGS = {"pt-MZ": "pt-BR", "arq": "ary"}


def rules_before(text: str) -> str:
    """affectlab's identifier before issue 23 (Cyrillic: uk; else English or Spanish), for comparison."""
    cyrillic = len(re.findall(r"[\u0400-\u04FF]", text))
    latin = len(re.findall(r"[A-Za-zÀ-ÿ]", text))
    if cyrillic and cyrillic >= latin:
        return "uk"
    return module_at(BEFORE)._latin_language(text, "en", 0.0) if latin else "en"


def measure(identify, texts: dict[str, list[str]]) -> dict:
    for sample in texts.values():  # warm-up: every dictionary and model loaded, as in a long-running process
        for text in sample:
            identify(text)
    started, exact, language, answers = time.perf_counter(), {}, {}, {}
    for lang, sample in texts.items():
        tag = LANGS[lang]
        got = [identify(text) for text in sample]
        exact[lang] = round(sum(g == tag for g in got) / len(got), 3)
        language[lang] = round(sum(g == tag or g == SIBLINGS.get(tag) for g in got) / len(got), 3)
        wrong = [g for g in got if g != tag]
        answers[lang] = {g: wrong.count(g) for g in sorted(set(wrong), key=wrong.count, reverse=True)[:3]}
    seconds = time.perf_counter() - started
    n = sum(len(sample) for sample in texts.values())
    return {
        "texts_per_second": round(n / seconds, 1),
        "mean_accuracy_28": round(sum(exact.values()) / len(exact), 3),
        "mean_language_accuracy_28": round(sum(language.values()) / len(language), 3),
        "accuracy": exact,
        "language_accuracy": language,
        "most_common_wrong_answers": answers,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--per-language", type=int, default=300)
    parser.add_argument("--split", default="test")
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "langid_default.json"))
    args = parser.parse_args()
    texts = {}
    for lang in LANGS:
        rows = resolve_dataset(f"semeval2025-{lang}", args.data_dir)[1][args.split]
        texts[lang] = list(rows.select(range(min(args.per_language, len(rows))))["text"])
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "split": args.split,
        "per_language": args.per_language,
        "identifiers": {"affectlab (rules + CLD3)": measure(detect_language, texts),
                        "rules before issue 23 (en/uk/es)": measure(rules_before, texts)},
    }  # fmt: skip
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    for name, scores in result["identifiers"].items():
        print(name, scores["mean_accuracy_28"], scores["mean_language_accuracy_28"], scores["texts_per_second"])
        print("  ", {k: v for k, v in scores["accuracy"].items()})


if __name__ == "__main__":
    main()
