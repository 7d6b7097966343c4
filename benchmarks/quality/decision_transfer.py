"""How the shipped default's ekman decisions transfer across datasets (issue 32, part 3).

Thresholds tuned on one small dev set follow that set's label rates. This measures, with the shipped head's own
members and the project's metrics:

* ``test``: every test set (GoEmotions-Ekman, EmoBench-UA, the 28 SemEval-2025 track A languages) under the shipped
  decision of the route that serves it: the dataset's primary score, macro-F1 and per-label F1;
* ``pairs``: "tune on A, test on B": thresholds tuned on A's dev rows (scored by the member that serves B) and
  applied to B's test rows, beside B's shipped decision. A label A does not annotate keeps B's shipped threshold;
* ``leave_one_out``: the encoder's ekman head alone (one model for every language): per language, thresholds tuned
  on its own dev set against thresholds tuned on every other dev set pooled, scored on its test set;
* ``english_disgust``: disgust F1 on GoEmotions-Ekman test and the clear-cut English sentences of disgust
  (``tests/fixtures/clear_cut_sentences.json``): how many get disgust, and how many of disgust beside anger get both;
  how often SemEval-2025 English test texts given anger also get disgust, beside the other languages' gold rate;
* ``english_disgust_rules``: other rules for English disgust, each tuned on GoEmotions-Ekman dev (the English dev
  rows that annotate disgust): the encoder member alone, with its threshold from GoEmotions dev or from every
  disgust-annotating dev set pooled; and the n-gram member's disgust classifier refitted on the rows that annotate
  disgust (GoEmotions train, the shipped vocabulary), as a build that left unannotated labels out would fit it.

    python benchmarks/quality/decision_transfer.py --data-dir ../shared/data --label before [--work /work/tmp_decisions]
    python benchmarks/quality/decision_transfer.py --table before [--table after]

The members' probabilities of each split are cached in ``--work`` (keyed by the head's arrays, so a decision-only
change reuses them); writes ``benchmarks/results/decision_transfer_<label>.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import affectlab
from affectlab.datasets import resolve_dataset
from affectlab.datasets.semeval2025 import LANGS
from affectlab.detectors.default import HEADS_DIR, load_default
from affectlab.detectors.ensemble import EnsembleDetector, combine
from affectlab.encoders.sentence import embedding_cache
from affectlab.evaluation.evaluate import column_map
from affectlab.labels import EKMAN
from affectlab.metrics.classification import classification_scores, macro_f1, primary_score
from affectlab.metrics.thresholds import Decision, tune_thresholds

BENCHMARKS = Path(__file__).resolve().parents[1]
SENTENCES = BENCHMARKS.parent / "tests" / "fixtures" / "clear_cut_sentences.json"
SETS = ("goemotions-ekman", "emobench-ua", *(f"semeval2025-{code}" for code in LANGS))
PAIRS = (
    ("semeval2025-eng", "goemotions-ekman"),
    ("goemotions-ekman", "semeval2025-eng"),
    ("emobench-ua", "semeval2025-rus"),
    ("semeval2025-rus", "emobench-ua"),
    ("semeval2025-esp", "semeval2025-ptbr"),
    ("semeval2025-ptbr", "semeval2025-ptmz"),
    ("semeval2025-deu", "semeval2025-swe"),
    ("semeval2025-hau", "semeval2025-pcm"),
)
"""(tune on A's dev, test on B): the issue's two (BRIGHTER eng -> GoEmotions-Ekman, ukr -> rus), each the other way,
and pairs of near languages or regions whose annotators' label rates differ (Spanish gives disgust very often)."""


@dataclass
class Split:
    """A dataset split as one route's member scores it: each member's probabilities, gold in the dataset's label
    space, and the dataset's columns of the ekman space."""

    name: str
    route: str
    members: list[np.ndarray]
    gold: np.ndarray
    columns: list[int]
    metric: str
    space: Any


def route_of(name: str, data_dir: str) -> str:
    """The route (language tag) that serves a dataset's texts."""
    _, data = resolve_dataset(name, data_dir)
    (lang,) = set(data["test"]["lang"])
    return str(lang)


def split_scores(name: str, split: str, route: str, data_dir: str, work: Path) -> Split:
    """``split`` of dataset ``name`` scored by the members of ``route`` (cached in ``work``)."""
    spec, data = resolve_dataset(name, data_dir)
    rows = data[split]
    path = work / f"{name}.{split}.{route}.npz"
    if path.is_file():
        members = list(np.load(path)["members"])
    else:
        member = load_default("ekman").member(route)
        with embedding_cache():
            members = member.member_probas(rows)
        work.mkdir(parents=True, exist_ok=True)
        np.savez(path, members=np.stack(members))
    gold = spec.label_space.encode(rows["labels"])
    return Split(name, route, members, gold, column_map(EKMAN, spec.label_space), spec.primary_metric, spec.label_space)


def member_probs(split: Split) -> np.ndarray:
    """The route's ensemble probabilities (its members averaged with its tuned weights)."""
    return combine(split.members, _member(split.route).weights_)


def _member(route: str) -> EnsembleDetector:
    member = load_default("ekman").member(route)
    assert isinstance(member, EnsembleDetector)
    return member


def scores_of(split: Split, predicted: np.ndarray) -> dict[str, Any]:
    """The dataset's primary score, macro-F1 and per-label F1 of ``predicted`` (ekman columns)."""
    pred = predicted[:, split.columns]
    scores = classification_scores(split.gold, pred, split.space, split.metric)
    return {
        "primary": round(scores["primary"]["value"], 4),
        "metric": split.metric,
        "macro_f1": round(scores["macro_f1"], 4),
        "per_label_f1": {label: round(s["f1"], 4) for label, s in scores["per_label"].items()},
        "n": len(split.gold),
    }


def shipped_decision(split: Split, probs: np.ndarray) -> np.ndarray:
    decision = _member(split.route).decision_
    assert decision is not None
    return decision.apply(probs, EKMAN)


def ekman_gold(split: Split) -> tuple[np.ndarray, np.ndarray]:
    """The split's gold in ekman columns, and which of those columns it annotates (none too: derived)."""
    gold = np.zeros((len(split.gold), len(EKMAN)), dtype=np.int8)
    gold[:, split.columns] = split.gold
    annotated = np.zeros(len(EKMAN), dtype=bool)
    annotated[split.columns] = True
    none = EKMAN.labels.index("none")
    if not annotated[none]:
        gold[:, none] = gold.sum(axis=1) == 0
        annotated[none] = not _without_neutral(split)
    return gold, annotated


def _without_neutral(split: Split) -> bool:
    return bool((split.gold.sum(axis=1) > 0).all())


def scores_on_test_sets(data_dir: str, work: Path) -> dict[str, Any]:
    out = {}
    for name in SETS:
        test = split_scores(name, "test", route_of(name, data_dir), data_dir, work)
        out[name] = {"route": test.route, **scores_of(test, shipped_decision(test, member_probs(test)))}
        print(name, out[name]["primary"], flush=True)
    return out


def pair_table(data_dir: str, work: Path) -> dict[str, Any]:
    out = {}
    for tune_on, test_on in PAIRS:
        route = route_of(test_on, data_dir)
        dev, test = (split_scores(name, s, route, data_dir, work) for name, s in ((tune_on, "dev"), (test_on, "test")))
        gold, annotated = ekman_gold(dev)
        shipped = _member(route).decision_
        assert shipped is not None
        tuned = np.where(annotated, tune_thresholds(member_probs(dev), gold), shipped.values)
        transferred = Decision("thresholds", tuned, none_gate=shipped.none_gate)
        probs = member_probs(test)
        out[f"{tune_on} -> {test_on}"] = {
            "route": route,
            "shipped": scores_of(test, shipped_decision(test, probs)),
            "tuned_on_other": scores_of(test, transferred.apply(probs, EKMAN)),
            "thresholds_shipped": [round(float(v), 2) for v in shipped.values],
            "thresholds_tuned_on_other": [round(float(v), 2) for v in tuned],
        }
        print(tune_on, "->", test_on, out[f"{tune_on} -> {test_on}"]["tuned_on_other"]["primary"], flush=True)
    return out


def leave_one_out(data_dir: str, work: Path) -> dict[str, Any]:
    """The encoder head alone: own dev thresholds against every other dev set's pooled, on each test set."""
    names = [f"semeval2025-{code}" for code in LANGS]
    devs = {name: split_scores(name, "dev", route_of(name, data_dir), data_dir, work) for name in names}
    gold = {name: ekman_gold(dev) for name, dev in devs.items()}
    out = {}
    for name in names:
        test = split_scores(name, "test", route_of(name, data_dir), data_dir, work)
        own = _tuned([devs[name]], [gold[name]])
        others = _tuned([devs[n] for n in names if n != name], [gold[n] for n in names if n != name])
        out[name] = {
            policy: round(_score(test, Decision("thresholds", values).apply(test.members[0], EKMAN)), 4)
            for policy, values in (("own_dev", own), ("other_devs_pooled", others))
        }
    for policy in ("own_dev", "other_devs_pooled"):
        out[f"mean_{policy}"] = round(statistics.mean(out[n][policy] for n in names), 4)
    print("leave one out", out["mean_own_dev"], out["mean_other_devs_pooled"], flush=True)
    return out


def _tuned(splits: list[Split], golds: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Per label, thresholds tuned on the rows of the splits that annotate it (the encoder head's probabilities)."""
    values = np.full(len(EKMAN), 0.5)
    for j in range(len(EKMAN)):
        rows = [(s.members[0][:, j], g[:, j]) for s, (g, annotated) in zip(splits, golds, strict=True) if annotated[j]]
        if rows:
            p, y = np.concatenate([r[0] for r in rows]), np.concatenate([r[1] for r in rows])
            values[j] = tune_thresholds(p[:, None], y[:, None])[0]
    return values


def _score(split: Split, predicted: np.ndarray) -> float:
    return primary_score(split.metric, split.gold, predicted[:, split.columns], split.space)


def english_disgust(tests: dict[str, Any]) -> dict[str, Any]:
    """Disgust F1 on GoEmotions-Ekman test and the clear-cut English sentences that express disgust."""
    sentences = json.loads(SENTENCES.read_text(encoding="utf-8"))["en"]
    keys = [key for key in sentences if "disgust" in key.rsplit("-", 1)[0].split("+")]
    detections = affectlab.detect([sentences[key] for key in keys], lang="en")
    both = [key for key in keys if "anger" in key]
    return {
        "goemotions_ekman_test_disgust_f1": tests["goemotions-ekman"]["per_label_f1"]["disgust"],
        "sentences_with_disgust": sum("disgust" in d.labels for d in detections),
        "sentences": len(keys),
        "anger_and_disgust_sentences_with_both": sum(
            {"anger", "disgust"} <= set(d.labels) for key, d in zip(keys, detections, strict=True) if key in both
        ),
        "anger_and_disgust_sentences": len(both),
        "labels": {key: d.labels for key, d in zip(keys, detections, strict=True)},
    }


def anger_with_disgust(data_dir: str, work: Path) -> dict[str, Any]:
    """Of the texts given anger, the share also given disgust: predicted on SemEval-2025 English test (the en route),
    and in the gold of the other 27 track A test sets pooled (where both columns are annotated)."""
    anger, disgust = EKMAN.labels.index("anger"), EKMAN.labels.index("disgust")
    eng = split_scores("semeval2025-eng", "test", "en", data_dir, work)
    predicted = shipped_decision(eng, member_probs(eng))
    gold = np.vstack([ekman_gold(split_scores(f"semeval2025-{code}", "test", route_of(f"semeval2025-{code}", data_dir),
                                              data_dir, work))[0] for code in LANGS if code != "eng"])  # fmt: skip
    return {
        "eng_test_predicted": _share(predicted, anger, disgust),
        "other_languages_test_gold": _share(gold, anger, disgust),
    }


def _share(labels: np.ndarray, given: int, also: int) -> float:
    rows = labels[:, given] == 1
    return round(float(labels[rows, also].mean()), 4)


def english_disgust_rules(data_dir: str, work: Path) -> dict[str, Any]:
    """English disgust under other rules, each tuned on GoEmotions-Ekman dev: F1 on its dev and test, and the
    clear-cut English disgust sentences that get disgust."""
    j = EKMAN.labels.index("disgust")
    member = _member("en")
    sentences = json.loads(SENTENCES.read_text(encoding="utf-8"))["en"]
    keys = [key for key in sentences if "disgust" in key.rsplit("-", 1)[0].split("+")]
    _, goemotions = resolve_dataset("goemotions-ekman", data_dir)
    texts = {"dev": goemotions["dev"], "test": goemotions["test"], "sentences": [sentences[key] for key in keys]}
    members = {part: split_scores("goemotions-ekman", part, "en", data_dir, work).members for part in ("dev", "test")}
    members["sentences"] = member.member_probas(texts["sentences"])
    gold = {part: EKMAN.encode(goemotions[part]["labels"])[:, j] for part in ("dev", "test")}
    encoder = {part: probas[0][:, j] for part, probas in members.items()}
    refitted = _ngram_disgust_refitted(member, goemotions["train"], texts)
    share = member.weights_[0] / member.weights_.sum()
    assert member.decision_ is not None
    rules = {
        "shipped": ({part: combine(probas, member.weights_)[:, j] for part, probas in members.items()},
                    float(member.decision_.values[j])),
        "encoder_member_alone": (encoder, None),
        "encoder_member_alone_threshold_from_every_disgust_dev_set": (encoder, _every_dev_disgust(data_dir, work)),
        "ngram_disgust_refitted_on_annotated_rows": ({part: share * encoder[part] + (1 - share) * refitted[part]
                                                      for part in texts}, None),
    }  # fmt: skip
    out = {}
    for rule, (probs, threshold) in rules.items():
        if threshold is None:
            threshold = float(tune_thresholds(probs["dev"][:, None], gold["dev"][:, None])[0])
        out[rule] = {
            "threshold": round(threshold, 2),
            **{f"goemotions_ekman_{part}_f1": round(_f1(probs[part] >= threshold, gold[part]), 4) for part in gold},
            "sentences_with_disgust": int((probs["sentences"] >= threshold).sum()),
            "sentences": len(keys),
        }
    return out


def _ngram_disgust_refitted(member: EnsembleDetector, train: Any, texts: dict[str, Any]) -> dict[str, np.ndarray]:
    """The en n-gram member's disgust probability on ``texts`` once its disgust classifier is refitted (same
    vocabulary and settings) on the rows that annotate disgust: GoEmotions-Ekman train, not SemEval-2025 English."""
    from affectlab.detectors.batch import as_inputs
    from affectlab.detectors.linear import fit_linear, linear_proba

    j = EKMAN.labels.index("disgust")
    ngram = member.members_[1]
    features = ngram.features_  # type: ignore[attr-defined]
    y = EKMAN.encode(train["labels"])[:, j : j + 1]
    p = ngram.params
    coef, bias = fit_linear(features.transform(as_inputs(train)), y, True, p["C"], p["class_weight"], p["max_iter"])
    return {part: linear_proba(features.transform(as_inputs(rows)), coef, bias, True)[:, 0]
            for part, rows in texts.items()}  # fmt: skip


def _every_dev_disgust(data_dir: str, work: Path) -> float:
    """The encoder member's disgust threshold tuned on every dev set that annotates disgust, pooled."""
    j = EKMAN.labels.index("disgust")
    probs, gold = [], []
    for name in ("goemotions-ekman", *(f"semeval2025-{code}" for code in LANGS)):
        dev = split_scores(name, "dev", route_of(name, data_dir), data_dir, work)
        y, annotated = ekman_gold(dev)
        if annotated[j]:
            probs.append(dev.members[0][:, j])
            gold.append(y[:, j])
    return float(tune_thresholds(np.concatenate(probs)[:, None], np.concatenate(gold)[:, None])[0])


def _f1(predicted: np.ndarray, gold: np.ndarray) -> float:
    return macro_f1(gold[:, None], predicted[:, None].astype(np.int8))


def clear_cut_misses() -> dict[str, Any]:
    """The clear-cut sentences (every language) whose labels miss, each read as its language (``detect(...,
    lang=)``: the decision's record, whatever the identifier says), and apart from them those the identifier reads
    as another language (``tests/test_clear_cut.py`` checks both)."""
    sentences = json.loads(SENTENCES.read_text(encoding="utf-8"))
    misses, other_language, total = {}, {}, 0
    for lang, by_key in sentences.items():
        if lang.startswith("_"):
            continue
        texts = list(by_key.values())
        given, identified = affectlab.detect(texts, lang=lang), affectlab.detect(texts)
        for key, detection, read in zip(by_key, given, identified, strict=True):
            wanted = key.rsplit("-", 1)[0].split("+")
            total += 1
            if not (detection.labels == ["none"] if wanted == ["none"] else set(wanted) <= set(detection.labels)):
                misses[f"{lang}-{key}"] = detection.labels
            if (read.lang, read.supported) != (lang, True):
                other_language[f"{lang}-{key}"] = read.lang
    return {"misses": len(misses), "of": total, "which": misses, "read_as_another_language": other_language}


def tables(labels: list[str]) -> None:
    """The Markdown tables of ``decision_transfer_<label>.json`` side by side (one column per label)."""
    records = [json.loads((BENCHMARKS / "results" / f"decision_transfer_{label}.json").read_text(encoding="utf-8"))
               for label in labels]  # fmt: skip
    first = records[0]
    print(
        "| test set (route) | metric | "
        + " | ".join(labels)
        + " | disgust F1 |\n|---|---|"
        + "---:|" * (len(labels) + 1)
    )
    for name, row in first["test"].items():
        cells = [f"{r['test'][name]['primary']:.4f}" for r in records]
        disgust = row["per_label_f1"].get("disgust")
        print(f"| {name} ({row['route']}) | {row['metric']} | " + " | ".join(cells) + f" | {disgust or '-'} |")
    print("| mean of the 28 track A sets | | " + " | ".join(f"{r['track_a_mean']:.4f}" for r in records) + " | |")
    print("\n| tune on (dev) -> test on | route | B's shipped thresholds | tuned on A's dev | disgust F1 shipped / A |")
    print("|---|---|---:|---:|---|")
    for pair, row in first["pairs"].items():
        shipped, other = row["shipped"], row["tuned_on_other"]
        disgust = f"{shipped['per_label_f1'].get('disgust', '-')} / {other['per_label_f1'].get('disgust', '-')}"
        print(f"| {pair} | {row['route']} | {shipped['primary']:.4f} | {other['primary']:.4f} | {disgust} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir")
    parser.add_argument("--label")
    parser.add_argument("--work", default="/work/tmp_decisions", help="folder of the cached member probabilities")
    parser.add_argument("--table", action="append", help="print the tables of this label's results instead")
    args = parser.parse_args()
    if args.table:
        tables(args.table)
        return
    if not (args.data_dir and args.label):
        parser.error("measuring needs --data-dir and --label")
    config = json.loads((HEADS_DIR / "ekman" / "config.json").read_text(encoding="utf-8"))
    work = Path(args.work) / config["arrays_sha256"][:16]
    started = time.perf_counter()
    tests = scores_on_test_sets(args.data_dir, work)
    track_a = [tests[f"semeval2025-{code}"]["primary"] for code in LANGS]
    record = {
        "label": args.label,
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
        "head_config_sha256": config["config_sha256"],
        "track_a_mean": round(statistics.mean(track_a), 4),
        "test": tests,
        "pairs": pair_table(args.data_dir, work),
        "leave_one_out": leave_one_out(args.data_dir, work),
        "english_disgust": english_disgust(tests),
        "anger_with_disgust": anger_with_disgust(args.data_dir, work),
        "english_disgust_rules": english_disgust_rules(args.data_dir, work),
        "clear_cut": clear_cut_misses(),
    }
    record["seconds"] = round(time.perf_counter() - started, 1)
    out = BENCHMARKS / "results" / f"decision_transfer_{args.label}.json"
    out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(out)


if __name__ == "__main__":
    main()
