"""Open-set language identification (issue 32), before and after, side by side: the 28 SemEval-2025 track A sets'
identification (every text of the split) and the share of short sentences in languages outside the 28 that come
back with a tag outside them (``benchmarks/data/langid_outside_{dev,test}.tsv``: written for affectlab, about ten
everyday sentences per language; dev for tuning, test scored once for the report).

"Before" is :mod:`affectlab.langid` as of the git revision ``--before`` (read with ``git show``, run beside the
current one); "after" is the working tree's. Accuracy counts ``pt-MZ`` read as ``pt-BR`` and ``arq`` as ``ary`` (and
the reverse) as right in ``language_accuracy`` (the same language; the sibling's thresholds). Speed: texts/s over
every text, one at a time, after a warm-up pass (every model and dictionary loaded).

    python benchmarks/languages/langid_open_set.py --data-dir ../shared/data [--split test] [--before 3c4ba1a] \
        [--out FILE]

Writes ``benchmarks/results/langid_open_set_<split>.json`` (or ``--out``) and prints the tables.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import time
import types
from collections import Counter
from collections.abc import Callable
from functools import cache
from pathlib import Path

from affectlab.datasets.semeval2025 import LANGS, read_split
from affectlab.langid import SUPPORTED, detect_language

BENCHMARKS = Path(__file__).resolve().parents[1]
ROOT = BENCHMARKS.parent
SIBLINGS = {"pt-MZ": "pt-BR", "pt-BR": "pt-MZ", "arq": "ary", "ary": "arq"}
BEFORE = "3c4ba1a"
"""The last revision before issue 32's identifier."""


def identifier_at(revision: str) -> Callable[[str], str]:
    """``detect_language`` of :mod:`affectlab.langid` as of the git ``revision``."""
    return module_at(revision).detect_language


@cache
def module_at(revision: str) -> types.ModuleType:
    """:mod:`affectlab.langid` as of the git ``revision`` (its data files read from the working tree, which still
    holds them)."""
    source = subprocess.run(
        ["git", "show", f"{revision}:src/affectlab/langid.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    module = types.ModuleType(f"langid_{revision}")
    module.__file__ = str(ROOT / "src" / "affectlab" / "langid.py")
    sys.modules[module.__name__] = module  # dataclasses look their module up there
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def outside_sentences(name: str) -> list[tuple[str, str]]:
    """The (language, text) rows of ``benchmarks/data/langid_outside_<name>.tsv``."""
    with (BENCHMARKS / "data" / f"langid_outside_{name}.tsv").open(encoding="utf-8", newline="") as handle:
        return [(row["lang"], row["text"]) for row in csv.DictReader(handle, delimiter="\t")]


def measure_28(identify: Callable[[str], str], texts: dict[str, list[str]]) -> dict:
    """Per-language accuracy on the 28 sets, the three commonest wrong answers, and texts/s."""
    for sample in texts.values():
        for text in sample:
            identify(text)
    started, exact, language, wrong = time.perf_counter(), {}, {}, {}
    for code, sample in texts.items():
        tag, got = LANGS[code], [identify(text) for text in sample]
        exact[code] = round(sum(g == tag for g in got) / len(got), 3)
        language[code] = round(sum(g in (tag, SIBLINGS.get(tag)) for g in got) / len(got), 3)
        wrong[code] = dict(Counter(g for g in got if g not in (tag, SIBLINGS.get(tag))).most_common(3))
    seconds = time.perf_counter() - started
    return {
        "texts_per_second": round(sum(map(len, texts.values())) / seconds, 1),
        "mean_accuracy_28": round(sum(exact.values()) / len(exact), 3),
        "mean_language_accuracy_28": round(sum(language.values()) / len(language), 3),
        "accuracy": exact,
        "language_accuracy": language,
        "most_common_wrong_answers": wrong,
    }


def measure_outside(identify: Callable[[str], str], rows: list[tuple[str, str]]) -> dict:
    """Per language: the share given a tag outside the 28 (``unsupported``) and the share given its own tag."""
    by_lang: dict[str, list[str]] = {}
    for lang, text in rows:
        by_lang.setdefault(lang, []).append(identify(text))
    unsupported = {lang: round(sum(g not in SUPPORTED for g in got) / len(got), 3) for lang, got in by_lang.items()}
    return {
        "n": len(rows),
        "languages": len(by_lang),
        "unsupported": round(sum(identify(text) not in SUPPORTED for _, text in rows) / len(rows), 3),
        "own_tag": round(sum(identify(text) == lang for lang, text in rows) / len(rows), 3),
        "unsupported_by_language": unsupported,
        "claimed": [[lang, identify(text), text] for lang, text in rows if identify(text) in SUPPORTED],
    }


def print_tables(result: dict) -> None:
    """The side-by-side Markdown tables of the result."""
    before, after = result["before"], result["after"]
    print(f"| language | before | after |  (track A {result['split']}, language accuracy)\n|---|---:|---:|")
    for code in LANGS:
        print(f"| {code} | {before['28']['language_accuracy'][code]} | {after['28']['language_accuracy'][code]} |")
    print(f"| **mean** | {before['28']['mean_language_accuracy_28']} | {after['28']['mean_language_accuracy_28']} |")
    print(f"| texts/s | {before['28']['texts_per_second']} | {after['28']['texts_per_second']} |\n")
    for name in ("dev", "test"):
        b, a = before[f"outside_{name}"], after[f"outside_{name}"]
        print(f"outside {name} ({a['n']} sentences, {a['languages']} languages): unsupported {b['unsupported']} -> "
              f"{a['unsupported']}, own tag {b['own_tag']} -> {a['own_tag']}")  # fmt: skip
    print("| language | before | after |  (outside test, share unsupported)\n|---|---:|---:|")
    for lang, share in after["outside_test"]["unsupported_by_language"].items():
        print(f"| {lang} | {before['outside_test']['unsupported_by_language'][lang]} | {share} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--split", default="test", choices=("train", "dev", "test"))
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    texts = {code: [row["text"] for row in read_split(code, args.split, args.data_dir)] for code in LANGS}
    outside = {name: outside_sentences(name) for name in ("dev", "test")}
    result: dict = {"date": time.strftime("%Y-%m-%d"), "split": args.split, "before_revision": args.before}
    for label, identify in (("before", identifier_at(args.before)), ("after", detect_language)):
        result[label] = {"28": measure_28(identify, texts)}
        result[label] |= {f"outside_{name}": measure_outside(identify, rows) for name, rows in outside.items()}
    out = args.out or BENCHMARKS / "results" / f"langid_open_set_{args.split}.json"
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print_tables(result)


if __name__ == "__main__":
    main()
