"""Open affective states, right in kind (issue 43): affectlab's own sanity suite (``data/open_sanity.json``:
sentences written for it, English and Spanish, each with the family of the feeling it names) scored two ways:

* **family**: the top state of ``detect_open`` (the default candidates) is in the family's word list;
* **polarity**: with two positive and two negative user states (``states_only``), the top one has the sentence's
  polarity (joy and calm positive; sadness, anger, fear and disgust negative; surprise sentences left out).

    python benchmarks/open_states/open_sanity.py [--model DIR] [--out benchmarks/results/open_sanity.json]

It reports and chooses nothing: no threshold or weight of the predictor is set by it.

Prints the rates and the misses; ``--out`` writes the JSON (recorded:
``benchmarks/results/open_sanity_issue43_*.json``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from affectlab.openstates.detect import detect_open

SUITE = Path(__file__).parents[1] / "data" / "open_sanity.json"


def family_words(suite: dict, lang: str) -> dict[str, set[str]]:
    """Each family's words in ``lang``."""
    return {family: set(words) for family, words in suite["families" if lang == "en" else "families_es"].items()}


def run(model: str = "default") -> dict:
    """The suite's two rates, per language and overall, with every miss listed."""
    suite = json.loads(SUITE.read_text(encoding="utf-8"))
    polarity_of = {family: pole for pole, families in suite["polarity"].items() for family in families}
    family_hits, polarity_hits, misses = [], [], []
    for item in suite["sentences"]:
        lang, text, family = item["lang"], item["text"], item["family"]
        [found] = detect_open(text, lang=lang, k=5, model=model)
        top = [term["term"] for term in found.masks[0]]
        hit = top[0] in family_words(suite, lang)[family]
        family_hits.append((lang, hit))
        if not hit:
            misses.append({"text": text, "family": family, "top5": top})
        if family not in polarity_of:
            continue
        for states in suite["state_sets"][lang]:
            [ranked] = detect_open(text, lang=lang, k=1, model=model, states=states, states_only=True)
            first = ranked.masks[0][0]["term"]
            right = (states.index(first) < 2) == (polarity_of[family] == "positive")
            polarity_hits.append((lang, right))
            if not right:
                misses.append({"text": text, "family": family, "states": states, "first": first})
    return {"family": _rates(family_hits), "polarity": _rates(polarity_hits), "misses": misses}


def _rates(hits: list[tuple[str, bool]]) -> dict:
    by_lang = {lang: [hit for lang_of, hit in hits if lang_of == lang] for lang in sorted({lang for lang, _ in hits})}
    rates = {lang: {"rate": round(sum(v) / len(v), 3), "n": len(v)} for lang, v in by_lang.items()}
    return {"all": {"rate": round(sum(hit for _, hit in hits) / len(hits), 3), "n": len(hits)}, **rates}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="default")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    result = run(args.model)
    print(json.dumps({key: result[key] for key in ("family", "polarity")}, indent=1))
    for miss in result["misses"]:
        print(json.dumps(miss, ensure_ascii=False))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
