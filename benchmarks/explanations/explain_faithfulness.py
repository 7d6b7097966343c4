"""How faithful ``affectlab.detect(..., explain=True)`` is (issue 33): ERASER's comprehensiveness and sufficiency
(DeYoung et al., 2020) of the top-k words against k random words of the same text, on held-out test texts.

For each language, texts of the SemEval-2025 track A test split (Ukrainian: EmoBench-UA's) are drawn (seeded) and
scored with their language given; a text counts where an emotion is given, and its top label is the given emotion
with the highest score. With that label's decision score s(.) (0.5 = its threshold):

* comprehensiveness(k) = s(text) - s(text without its k highest-weighted words): higher is more faithful;
* sufficiency(k) = s(text) - s(only its k highest-weighted words, in order, joined by spaces): lower is better;
* each beside the same with k random words of the text (the mean of ``DRAWS`` draws), k = 1, 3, 5, over the texts
  with more than k words;
* win rate(k): the share of texts where removing the top k lowers the score more than removing k random words
  (their mean over the draws) does: the acceptance line is >= 85 % at k = 3.

Every variant is scored through ``affectlab.detect`` in batches, as a user's texts are.

    python benchmarks/explanations/explain_faithfulness.py --data-dir ../shared/data [--n 200]

Writes ``benchmarks/results/explain_faithfulness.json`` and prints the tables.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from pathlib import Path

import affectlab
from affectlab.datasets import resolve_dataset
from affectlab.detectors.explain import without, word_spans

LANGUAGES = {"eng": "en", "ukr": "uk", "esp": "es", "deu": "de", "rus": "ru", "chn": "zh", "hin": "hi"}
KS = (1, 3, 5)
DRAWS = 5
OUT = Path(__file__).parents[1] / "results" / "explain_faithfulness.json"


def test_texts(code: str, data_dir: str, n: int, seed: int = 0) -> list[str]:
    """``n`` test texts of the language (seeded), with at least two words."""
    name = "emobench-ua" if code == "ukr" else f"semeval2025-{code}"
    texts = [t for t in resolve_dataset(name, data_dir)[1]["test"]["text"] if len(word_spans(t)) >= 2]
    random.Random(seed).shuffle(texts)
    return texts[:n]


def removed(text: str, spans: list) -> str:
    """``text`` without ``spans``, each removed as the explainer removes one word (last first, so that the offsets
    of the others hold)."""
    for span in sorted(spans, key=lambda s: -s.start):
        text = without(text, span)
    return text.strip() or " "


def kept(text: str, spans: list) -> str:
    """Only ``spans`` of ``text``, in order, joined by spaces."""
    return " ".join(text[s.start : s.end] for s in sorted(spans, key=lambda s: s.start)) or " "


def scores_of(texts: list[str], label: list[str], lang: str) -> list[float]:
    """Each text's decision score for its label."""
    found = affectlab.detect(texts, lang=lang)
    return [result.scores[name] for result, name in zip(found, label, strict=True)]


def measure_language(code: str, data_dir: str, n: int) -> dict:
    """The language's tables (module docstring)."""
    lang, rng = LANGUAGES[code], random.Random(1)
    texts = test_texts(code, data_dir, n)
    started = time.perf_counter()
    explained = affectlab.detect(texts, lang=lang, explain=True)
    explain_seconds = time.perf_counter() - started
    cases = []  # (text, label, base score, spans ranked by weight)
    for text, result in zip(texts, explained, strict=True):
        emotions = [label for label in result.labels if label != "none"]
        if not emotions:
            continue
        label = emotions[0]
        ranked = sorted(result.explanation[label], key=lambda s: -s.weight)
        cases.append((text, label, result.scores[label], ranked))
    rows = {}
    for k in KS:
        usable = [c for c in cases if len(c[3]) > k]
        variants, labels = [], []
        for text, label, _, ranked in usable:
            draws = [rng.sample(ranked, k) for _ in range(DRAWS)]
            variants += [removed(text, ranked[:k]), kept(text, ranked[:k])]
            variants += [removed(text, d) for d in draws] + [kept(text, d) for d in draws]
            labels += [label] * (2 + 2 * DRAWS)
        scored = scores_of(variants, labels, lang)
        step = 2 + 2 * DRAWS
        comp, suff, comp_random, suff_random, wins = [], [], [], [], 0
        for i, (_, _, base, _) in enumerate(usable):
            block = scored[i * step : (i + 1) * step]
            top_removed, top_kept = block[0], block[1]
            random_removed = statistics.mean(block[2 : 2 + DRAWS])
            random_kept = statistics.mean(block[2 + DRAWS :])
            comp.append(base - top_removed)
            suff.append(base - top_kept)
            comp_random.append(base - random_removed)
            suff_random.append(base - random_kept)
            wins += (base - top_removed) > (base - random_removed)
        rows[k] = {
            "texts": len(usable),
            "comprehensiveness": round(statistics.mean(comp), 4) if comp else None,
            "comprehensiveness_random": round(statistics.mean(comp_random), 4) if comp else None,
            "sufficiency": round(statistics.mean(suff), 4) if suff else None,
            "sufficiency_random": round(statistics.mean(suff_random), 4) if suff else None,
            "win_rate": round(wins / len(usable), 4) if usable else None,
        }
    return {"lang": lang, "texts": len(texts), "with_an_emotion": len(cases),
            "explain_seconds": round(explain_seconds, 1), "by_k": rows}  # fmt: skip


def print_tables(results: dict) -> None:
    print("| language | texts with an emotion | k | comprehensiveness (top / random) | sufficiency (top / random) |"
          " top beats random |")  # fmt: skip
    print("|---|---:|---:|---|---|---:|")
    for found in results["languages"].values():
        for k, row in found["by_k"].items():
            print(f"| {found['lang']} | {row['texts']} | {k} | {row['comprehensiveness']:.3f} / "
                  f"{row['comprehensiveness_random']:.3f} | {row['sufficiency']:.3f} / {row['sufficiency_random']:.3f}"
                  f" | {row['win_rate']:.1%} |")  # fmt: skip
    print(f"win rate at k=3 over all texts: {results['win_rate_k3_all']:.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--n", type=int, default=200, help="test texts drawn per language")
    args = parser.parse_args()
    results = {
        "machine": f"{platform.node()} ({platform.machine()}), Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "draws": DRAWS,
        "languages": {code: measure_language(code, args.data_dir, args.n) for code in LANGUAGES},
    }
    k3 = [(r["by_k"][3]["win_rate"], r["by_k"][3]["texts"]) for r in results["languages"].values()]
    results["win_rate_k3_all"] = round(sum(w * t for w, t in k3) / sum(t for _, t in k3), 4)
    OUT.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print_tables(results)


if __name__ == "__main__":
    main()
