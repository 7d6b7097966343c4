"""The robustness suite (issue 41): do the same meaning and plain denials get the answers they should?

On the default detector, as a user calls it (``affectlab.detect``, each text's language identified), in English,
Ukrainian, Spanish, German, Russian and Brazilian Portuguese:

* ``negation``: the hand-written sentences that deny an emotion (``benchmarks/data/robustness_sentences.json``):
  the share given none of the emotions they deny; ``negation_dev``: the same on denials built from each language's
  dev texts by :func:`affectlab.build.augment.negated_sentence` (the rules that build training rows from train);
* ``edits``: each dev text (the first ``--dev-rows`` of the language's BRIGHTER dev split) and each hand-written
  clear and neutral sentence, edited the four ways of the issue ("!!!" appended; upper case; said twice; a leading
  "@user " and a trailing link): the share of edits that keep the label set, per edit and in all;
* ``neutral``: the hand-written factual statements: the share given ``none`` alone;
* ``clear``: the hand-written clear sentences: the share given all their emotions (English disgust, and disgust
  beside anger, counted apart too).

    python benchmarks/robustness/robustness.py --data-dir ../shared/data --label before
    python benchmarks/robustness/robustness.py --table before after

Writes ``benchmarks/results/robustness_<label>.json``. Every sentence and dev text is dev data: nothing here reads a
test split.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import affectlab
from affectlab.build.augment import negated_sentence
from affectlab.datasets import resolve_dataset
from affectlab.labels import EKMAN

BENCHMARKS = Path(__file__).resolve().parents[1]
SENTENCES = BENCHMARKS / "data" / "robustness_sentences.json"
DEV_SETS = {
    "en": "semeval2025-eng", "uk": "emobench-ua", "es": "semeval2025-esp", "de": "semeval2025-deu",
    "ru": "semeval2025-rus", "pt-BR": "semeval2025-ptbr",
}  # fmt: skip
"""Each language of the suite and the dev split its edited texts come from (the written file keys Portuguese "pt")."""
EDITS: dict[str, Callable[[str], str]] = {
    "exclamations": lambda text: text + "!!!",
    "upper_case": str.upper,
    "said_twice": lambda text: f"{text} {text}",
    "mention_and_link": lambda text: f"@user {text} https://t.co/x7Qp2Lm9Zk",
}
"""The four edits of the issue, each of which keeps a text's meaning."""


def _labels(texts: list[str]) -> list[set[str]]:
    return [set(d.labels) for d in affectlab.detect(texts)] if texts else []


def _share(hits: list[bool]) -> dict[str, Any]:
    return {"share": round(sum(hits) / len(hits), 4) if hits else None, "n": len(hits)}


def negation(items: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The share of denials given none of the emotions they deny, and the failures."""
    got = _labels([item["text"] for item in items])
    hits = [not (labels & set(item["denied"])) for item, labels in zip(items, got, strict=True)]
    fails = [{"text": i["text"], "labels": sorted(g)} for i, g, h in zip(items, got, hits, strict=True) if not h]
    return _share(hits), fails


def dev_negations(lang: str, texts: list[str]) -> list[dict[str, Any]]:
    """Denials built from dev texts: each text's first first-person statement of an emotion, denied."""
    found = [negated_sentence(text, lang, set(EKMAN.emotion_labels)) for text in texts]
    return [{"text": f[0], "denied": [f[1]]} for f in found if f is not None]


def edits(texts: list[str]) -> dict[str, Any]:
    """Per edit and in all, the share of ``texts`` whose label set the edit keeps; a few changed examples."""
    before = _labels(texts)
    result: dict[str, Any] = {}
    kept_all: list[bool] = []
    changed = []
    for name, edit in EDITS.items():
        edited = [edit(text) for text in texts]
        after = _labels(edited)
        kept = [a == b for a, b in zip(after, before, strict=True)]
        kept_all += kept
        result[name] = _share(kept)
        changed += [{"edit": name, "text": e, "before": sorted(b), "after": sorted(a)}
                    for e, a, b, k in zip(edited, after, before, kept, strict=True) if not k][:5]  # fmt: skip
    return {"all": _share(kept_all), **result, "changed_examples": changed}


def neutral(texts: list[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The share of factual statements given ``none`` alone, and the failures."""
    got = _labels(texts)
    hits = [labels == {"none"} for labels in got]
    return _share(hits), [{"text": t, "labels": sorted(g)} for t, g, h in zip(texts, got, hits, strict=True) if not h]


def clear(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The share of clear sentences given all their emotions, overall and per emotion set, and the failures."""
    got = _labels([item["text"] for item in items])
    hits = [set(item["labels"]) <= labels for item, labels in zip(items, got, strict=True)]
    by_key: dict[str, list[bool]] = {}
    for item, hit in zip(items, hits, strict=True):
        by_key.setdefault("+".join(item["labels"]), []).append(hit)
    fails = [{"text": i["text"], "expected": i["labels"], "labels": sorted(g)}
             for i, g, h in zip(items, got, hits, strict=True) if not h]  # fmt: skip
    return {"all": _share(hits), **{key: _share(h) for key, h in sorted(by_key.items())}, "failures": fails}


def run(data_dir: str, dev_rows: int) -> dict[str, Any]:
    """The suite on every language; returns the record that is written."""
    written = json.loads(SENTENCES.read_text(encoding="utf-8"))
    record: dict[str, Any] = {}
    for lang, dev_set in DEV_SETS.items():
        mine = written[lang.split("-")[0]]
        dev_texts = list(resolve_dataset(dev_set, data_dir)[1]["dev"]["text"])
        neg, neg_fails = negation(mine["negation"])
        neg_dev, _ = negation(dev_negations(lang, dev_texts))
        neu, neu_fails = neutral(mine["neutral"])
        own = [item["text"] for item in mine["clear"]] + list(mine["neutral"])
        record[lang] = {
            "negation": neg, "negation_dev": neg_dev, "neutral": neu,
            "edits": edits(dev_texts[:dev_rows] + own), "clear": clear(mine["clear"]),
            "negation_failures": neg_fails, "neutral_failures": neu_fails,
        }  # fmt: skip
        print(lang, {k: v.get("share", v.get("all")) for k, v in record[lang].items() if isinstance(v, dict)})
    return record


def table(labels: list[str]) -> str:
    """A Markdown table of the suite's shares per language, one column per saved run."""
    runs = {label: json.loads((BENCHMARKS / "results" / f"robustness_{label}.json").read_text()) for label in labels}
    rows = [("negation (written)", "negation"), ("negation (dev-built)", "negation_dev"), ("edits kept", "edits"),
            ("neutral: none alone", "neutral"), ("clear", "clear")]  # fmt: skip
    head = "| language | measure | " + " | ".join(labels) + " |"
    lines = [head, "|" + "---|" * (2 + len(labels))]
    for lang in DEV_SETS:
        for title, key in rows:
            cells = []
            for label in labels:
                entry = runs[label]["results"][lang][key]
                entry = entry.get("all", entry)
                cells.append("-" if entry["share"] is None else f"{entry['share']:.3f} ({entry['n']})")
            lines.append(f"| {lang} | {title} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default="../shared/data")
    parser.add_argument("--label", help="name of this run (writes benchmarks/results/robustness_LABEL.json)")
    parser.add_argument("--dev-rows", type=int, default=200)
    parser.add_argument("--table", nargs="+", help="print the table of these saved runs")
    args = parser.parse_args()
    if args.table:
        print(table(args.table))
        return
    started = time.perf_counter()
    results = run(args.data_dir, args.dev_rows)
    out = BENCHMARKS / "results" / f"robustness_{args.label}.json"
    out.write_text(json.dumps({
        "command": f"python benchmarks/robustness/robustness.py --data-dir {args.data_dir} --label {args.label}",
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}", "date": time.strftime("%Y-%m-%d"),
        "affectlab": affectlab.__version__, "seconds": round(time.perf_counter() - started, 1), "results": results,
    }, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")  # fmt: skip
    print(table([args.label]))


if __name__ == "__main__":
    main()
