"""Where right in kind is lost (issue 43): the shipped open predictor's ranking on the situation dev texts of its
choosing step (:func:`affectlab.openstates.predictors.open_training.situation_rows`: GoEmotions and SemEval-2025
eng/esp dev texts with one Ekman emotion, "I feel <extra_id_0>." appended), its agreement recomputed from other
readers of the same situations: the default detector's Ekman reading (what ships), its GoEmotions head through
GoEmotions' Ekman grouping, their mean, and the gold emotion (an oracle). Families are judged by the word affect, as
when the weight was chosen. Dev data only; it chooses nothing.

    python benchmarks/open_states/open_kind_readers.py --data-dir ../shared/data \
        [--out benchmarks/results/open_kind_readers.json]

Prints the JSON; ``--out`` also writes it (recorded: ``benchmarks/results/open_kind_readers_issue43.json``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import numpy as np

import affectlab
from affectlab.encoders.sentence import embed, embedding_cache
from affectlab.labels import GOEMOTIONS_TO_EKMAN
from affectlab.openstates.predictors.affect_agreement import EMOTIONS, agreement, context_affect, situation
from affectlab.openstates.predictors.base import prepare
from affectlab.openstates.predictors.embedded import NO_FEELING, mask_contexts
from affectlab.openstates.predictors.open_scoring import blend_scores, unit_rows
from affectlab.openstates.predictors.open_training import situation_rows
from affectlab.openstates.predictors.open_vocabulary import OpenVocabularyPredictor

WEIGHTS = (0.0, 2.0, 5.0, 8.0)


def goemotions_as_ekman(contexts: list[str], lang: str) -> np.ndarray:
    """The detector's GoEmotions reading of each situation, each Ekman family (and none) its labels' highest score."""
    found = affectlab.detect([situation(c, lang) or "." for c in contexts], taxonomy="goemotions", lang=lang)
    scores = np.zeros((len(contexts), len(EMOTIONS) + 1), dtype=np.float32)
    for row, result in enumerate(found):
        for label, value in result.scores.items():
            family = GOEMOTIONS_TO_EKMAN.get(label, "none")
            column = EMOTIONS.index(family) if family in EMOTIONS else len(EMOTIONS)
            scores[row, column] = max(scores[row, column], value)
    return scores


def run(data_dir: str) -> dict:
    predictor = OpenVocabularyPredictor.load()
    out: dict = {}
    for lang in ("en", "es"):
        texts, emotions = situation_rows(lang, data_dir)
        contexts = [mask_contexts(prepare(text, lang))[0] for text in texts]
        with embedding_cache():
            X = unit_rows(embed(contexts))
        candidates, state_vectors = predictor.candidates_[lang], predictor.state_vectors(lang)
        plain = dataclasses.replace(predictor.blends_[lang], affect=0.0)
        base = blend_scores(X, predictor.map_, state_vectors, predictor._closed(lang, candidates, contexts, X), plain)
        base[:, candidates.index(NO_FEELING[lang])] = -np.inf
        profiles = predictor.affect_.profiles(state_vectors)
        family_of, gold = np.array(EMOTIONS)[profiles.argmax(axis=1)], np.array(emotions)
        ekman = context_affect(contexts, [lang] * len(contexts))
        oracle = np.zeros_like(ekman)
        oracle[np.arange(len(gold)), [EMOTIONS.index(e) for e in gold]] = 1.0
        readers = {"detector (ekman)": ekman, "gold emotion (oracle)": oracle}
        if lang == "en":
            readers["detector (goemotions as ekman)"] = goemotions_as_ekman(contexts, lang)
            readers["mean of the two"] = (ekman + readers["detector (goemotions as ekman)"]) / 2
        polar = gold != "surprise"
        out[lang] = {"texts": len(texts)}
        for name, scores in readers.items():
            agreed = agreement(scores, profiles)
            out[lang][name] = {}
            for weight in WEIGHTS:
                top = family_of[(base + weight * agreed).argmax(axis=1)]
                out[lang][name][str(weight)] = {
                    "family": round(float(np.mean(top == gold)), 3),
                    "polarity": round(float(np.mean((top == "joy")[polar] == (gold == "joy")[polar])), 3),
                }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    result = run(args.data_dir)
    print(json.dumps(result, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
