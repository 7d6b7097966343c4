"""Languages, told honestly (issue 41, part 4), on the dev splits: what the identifier now declines to name and why,
and Arabic in Latin letters.

* ``undetermined``: per language of the 28, the dev texts now ``und`` (too short or too repetitive to tell:
  :func:`affectlab.langid.undetermined_reason`) with what the identifier of ``--before`` gave them.
* ``arabizi``: the Latin-script texts of Moroccan Arabic's dev split (most of their letters Latin), the tags the
  identifier gives them before and after, and the official score (macro-F1 over the emotions) of the default ekman
  head on them read as each route (identified before and after, and ``ary``, ``arq``, ``und`` given).
* ``arabizi_elsewhere``: how many train and dev texts of the other 27 languages, and of GoEmotions, EmoContext and
  CARER (English), have :data:`affectlab.langid.ARABIZI_CLUES` clues (false alarms; their texts listed).

Accuracy per language of the 28 (dev) and on the sentences outside them: ``benchmarks/languages/langid_open_set.py
--split dev --before 6166dd3 --out benchmarks/results/langid_open_set_issue41_dev.json``.

    python benchmarks/languages/langid_honest.py --data-dir ../shared/data [--before 6166dd3]

Writes ``benchmarks/results/langid_honest_dev.json``.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

from affectlab.datasets import resolve_dataset
from affectlab.datasets.semeval2025 import LANGS, read_split
from affectlab.detectors.readings import read_texts
from affectlab.detectors.resolve import resolve_detector
from affectlab.langid import ARABIZI_CLUES, arabizi_clues, detect_language, undetermined_reason
from affectlab.metrics.scores import macro_f1_emotions

BENCHMARKS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
from langid_open_set import identifier_at  # noqa: E402

_LATIN, _ARABIC = re.compile(r"[A-Za-z]"), re.compile(r"[\u0600-\u06FF]")
BEFORE = "6166dd3"
"""The last revision before issue 41, part 4."""


def latin_script(text: str) -> bool:
    return len(_LATIN.findall(text)) > len(_ARABIC.findall(text))


def undetermined(data_dir: str, before) -> dict:
    """Per language: the dev texts now ``und``, with their reason and the tag the old identifier gave."""
    found = {}
    for code in LANGS:
        texts = [row["text"] for row in read_split(code, "dev", data_dir)]
        declined = [(text, undetermined_reason(text), before(text)) for text in texts if undetermined_reason(text)]
        found[code] = {"n": len(texts), "und": [{"text": t, "reason": r, "before": b} for t, r, b in declined]}
    return found


def arabizi_routes(data_dir: str, before) -> dict:
    """The Latin-script texts of ary dev: tags before and after, and macro-F1 by route."""
    spec, data = resolve_dataset("semeval2025-ary", data_dir)
    rows = [row for row in data["dev"] if latin_script(row["text"])]
    texts, space = [row["text"] for row in rows], spec.label_space
    gold = space.encode([row["labels"] for row in rows])
    detector = resolve_detector("default", "ekman")
    tags = {"before": [before(text) for text in texts], "after": [detect_language(text) for text in texts]}
    scores = {}
    for route, langs in (*tags.items(), *((lang, [lang] * len(texts)) for lang in ("ary", "arq", "und"))):
        done = read_texts(detector, texts, None, langs)
        predicted = space.encode([[label for label in reading.labels if label in space.labels] for reading in done])
        scores[route] = round(macro_f1_emotions(gold, predicted, space), 3)
    counts = {name: dict(Counter(got).most_common()) for name, got in tags.items()}
    return {"n": len(texts), "tags": counts, "macro_f1_by_route": scores}


def english_texts(data_dir: str) -> dict[str, list[str]]:
    """The texts of GoEmotions (train), EmoContext (train, every turn) and CARER (train)."""
    root = Path(data_dir)
    with (root / "goemotions" / "train.tsv").open(encoding="utf-8") as handle:
        goemotions = [row[0] for row in csv.reader(handle, delimiter="\t")]
    with (root / "emocontext" / "train.txt").open(encoding="utf-8") as handle:
        emocontext = [turn for line in list(handle)[1:] for turn in line.rstrip("\n").split("\t")[1:4]]
    with (root / "carer" / "train.txt").open(encoding="utf-8") as handle:
        carer = [line.rsplit(";", 1)[0] for line in list(handle)[1:]]
    return {"goemotions": goemotions, "emocontext": emocontext, "carer": carer}


def arabizi_elsewhere(data_dir: str) -> dict:
    """False alarms: texts outside Moroccan and Algerian Arabic with enough Arabizi clues."""
    sets = {f"{code}/{split}": [row["text"] for row in read_split(code, split, data_dir)]
            for code in LANGS if code not in ("ary", "arq") for split in ("train", "dev")}  # fmt: skip
    sets |= english_texts(data_dir)
    alarms = {name: [text for text in texts if clued(text)] for name, texts in sets.items()}
    ary = {split: [row["text"] for row in read_split("ary", split, data_dir) if latin_script(row["text"])]
           for split in ("train", "dev")}  # fmt: skip
    caught = {split: [sum(map(clued, texts)), len(texts)] for split, texts in ary.items()}
    return {
        "texts": sum(map(len, sets.values())),
        "alarms": sum(map(len, alarms.values())),
        "alarm_texts": {name: found for name, found in alarms.items() if found},
        "ary_latin_caught": caught,
    }


def clued(text: str) -> bool:
    """Whether ``text`` has enough Arabizi clues to be read as Arabic in Latin letters (its script aside)."""
    return len(arabizi_clues(text)) >= ARABIZI_CLUES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--before", default=BEFORE)
    args = parser.parse_args()
    before = identifier_at(args.before)
    result = {"date": time.strftime("%Y-%m-%d"), "before_revision": args.before}
    result["undetermined"] = undetermined(args.data_dir, before)
    result["arabizi_elsewhere"] = arabizi_elsewhere(args.data_dir)
    result["arabizi"] = arabizi_routes(args.data_dir, before)
    out = BENCHMARKS / "results" / "langid_honest_dev.json"
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "undetermined"}, indent=1, ensure_ascii=False)[:3000])
    print({code: len(found["und"]) for code, found in result["undetermined"].items() if found["und"]})


if __name__ == "__main__":
    main()
