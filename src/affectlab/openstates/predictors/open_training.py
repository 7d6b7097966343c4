"""Training the open-vocabulary predictor (:mod:`affectlab.openstates.predictors.open_vocabulary`): the map over
state embeddings, and the blend of the map with the closed n-gram member, chosen on a dev split carved from the
training posts."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.openstates.predictors.affect_agreement import (
    CARER_FAMILIES,
    EMOTIONS,
    WordAffect,
    agreement,
    context_affect,
    label_words,
    word_affect_examples,
)
from affectlab.openstates.predictors.closed_members import NgramMember, VectorMember, balanced_weights
from affectlab.openstates.predictors.open_scoring import (
    TAU,
    Blend,
    Examples,
    blend_scores,
    columns,
    embed_states,
    log_softmax,
    unit_rows,
)

STEPS = 200
L2 = 1e-4
LEARNING_RATE = 1e-3
"""Full-batch Adam on the map: steps, pull towards the identity, step size (on dev, 200 steps were as good as 400)."""
VECTOR_WEIGHT = 0.4
"""The vector member's weight, fixed: the fixed-label evaluation (MASIVE 4.2.2) rests on it, since it alone was
trained on the App. C words of GoEmotions (GoEmotions-Ekman dev macro-F1 0.096 at 0, 0.163 at 0.2, 0.282 at 0.4,
the other weights as chosen), while the recipe's dev moved little with it (acc@1 + acc@5 0.269 at 0, 0.285 at 0.4)."""
BLENDS = tuple((ngram, VECTOR_WEIGHT) for ngram in (0.0, 0.2, 0.3, 0.4))
OFFSETS = (-0.5, 0.0, 0.5, 1.0)
"""The closed members' weights (n-gram, vector) and the unseen offsets tried on dev."""
DEV_SHARE = 0.15
DEV_FAMILIES = 12
"""Dev split for choosing the blend: this share of the training examples, plus this many whole state families
(2-30 examples each) held out as unseen-dev."""


def fit_map(contexts: np.ndarray, targets: np.ndarray, states: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The map ``W``: full-batch Adam on the weighted softmax cross-entropy of ``(contexts @ W) @ states.T / TAU``
    against ``targets`` (row indices of ``states``), with ``L2 * |W - I|^2``. Written by hand: it is a bilinear
    softmax over embeddings of the classes, which no scikit-learn estimator fits, and torch is only an extra."""
    dim = contexts.shape[1]
    identity = np.eye(dim, states.shape[1], dtype=np.float64)
    W = identity.copy()
    first, second = np.zeros_like(W), np.zeros_like(W)
    scale = weights / weights.sum()
    rows = np.arange(len(targets))
    for step in range(1, STEPS + 1):
        probs = np.exp(log_softmax(contexts @ W @ states.T / TAU))
        probs[rows, targets] -= 1.0
        grad = contexts.T @ ((probs * scale[:, None]) @ states) / TAU + L2 * (W - identity)
        first = 0.9 * first + 0.1 * grad
        second = 0.999 * second + 0.001 * grad * grad
        W -= LEARNING_RATE * (first / (1 - 0.9**step)) / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
    return W.astype(np.float32)


def train_map(
    vectors: Mapping[str, np.ndarray], examples: Examples, keep: Mapping[str, np.ndarray] | None = None
) -> np.ndarray:
    """The shared map from every language's examples (``keep[lang]``: a boolean row mask, default all)."""
    contexts, targets, state_vectors, weights = [], [], [], []
    offset = 0
    for lang, (_, states) in examples.items():
        rows = keep[lang] if keep is not None else np.ones(len(states), bool)
        kept = [s for s, k in zip(states, rows, strict=True) if k]
        names = sorted(set(kept))
        index = {s: i + offset for i, s in enumerate(names)}
        contexts.append(vectors[lang][rows])
        targets += [index[s] for s in kept]
        state_vectors.append(embed_states(names, lang))
        weights.append(balanced_weights(kept))
        offset += len(names)
    return fit_map(np.vstack(contexts), np.array(targets), np.vstack(state_vectors), np.concatenate(weights))


def dev_split(states: Sequence[str], seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(dev, unseen)`` boolean row masks: :data:`DEV_FAMILIES` whole state families of 2-30 examples (unseen-dev)
    and :data:`DEV_SHARE` of the other rows, drawn with ``seed``."""
    rng = random.Random(seed)
    counts = Counter(states)
    pool = sorted(s for s, n in counts.items() if 2 <= n <= 30)
    held = set(rng.sample(pool, min(DEV_FAMILIES, len(pool) // 4)))
    unseen = np.array([s in held for s in states])
    dev = unseen | np.array([rng.random() < DEV_SHARE for _ in states])
    return dev, unseen


def dev_hits(scores: np.ndarray, candidates: Sequence[str], gold: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per row, whether the gold state is first, and whether it is in the first five."""
    top = np.argsort(-scores, axis=1, kind="stable")[:, :5]
    position = {s: i for i, s in enumerate(candidates)}
    wanted = np.array([position[g] for g in gold])
    return top[:, 0] == wanted, (top == wanted[:, None]).any(axis=1)


MAP_ALONE = Blend(closed=0.0, vector=0.0, unseen_offset=0.0)
"""The blend of a language with no dev rows (Spanish: 24 training masks): its closed member would have learnt from
a handful of posts, so the map, trained on every language's masks, ranks alone."""
AFFECT_WEIGHTS = (0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0)
"""The weights of the affect agreement tried on dev (:mod:`~affectlab.openstates.predictors.affect_agreement`)."""
MIN_WORD_DEV_ROWS = 100
"""Fewer recipe dev rows than this say nothing of word accuracy when choosing the affect weight (Spanish has 7, so
one post moves its acc@1 by 0.14): the situation dev alone decides there."""


@dataclass
class KindData:
    """What choosing the affect weight needs: per language, the family of each example's post (``None`` where its
    source gives none; lines up with the examples), the label words ``{lang: [(family, word)]}`` the word affect
    also learns from, and situation dev texts, each with the one Ekman emotion its annotators gave it."""

    families: dict[str, list[str | None]]
    seeds: dict[str, list[tuple[str, str]]]
    situations: dict[str, tuple[list[str], list[str]]]


@dataclass
class DevMembers:
    """The closed members fitted on a language's non-dev rows, and its dev candidates with their vectors."""

    ngram: NgramMember | None
    vector: VectorMember | None
    candidates: list[str]
    state_vectors: np.ndarray

    def closed(self, contexts: Sequence[str], vectors: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """The members' ``(columns, logits)`` for ``contexts`` (as :func:`blend_scores` takes them); a member not
        fitted (the map alone ranks the language) knows no state."""
        none = (np.full(len(self.candidates), -1), np.zeros((len(contexts), 1)))
        return [
            none if self.ngram is None else (columns(self.ngram.seen, self.candidates), self.ngram.logits(contexts)),
            none if self.vector is None else (columns(self.vector.seen, self.candidates), self.vector.logits(vectors)),
        ]


def choose_blends(
    vectors: Mapping[str, np.ndarray], examples: Examples, lexicons: Mapping[str, Sequence[str]],
    progress: Callable[[str], None] = print, labelled: Mapping[str, tuple[np.ndarray, list[str]]] | None = None,
    kind: KindData | None = None,
) -> tuple[dict[str, Blend], dict[str, Any]]:  # fmt: skip
    """Per language, the :class:`Blend` with the highest acc@1 + acc@5 + unseen-dev acc@5 on its dev rows, the
    members trained on the other rows, the vector member on ``labelled`` too (the unseen term, since naming unseen
    states is this predictor's point: by acc@1 + acc@5 alone the best blend named none of them on dev); then, given
    ``kind``, its affect weight (:func:`choose_affect`); and the dev figures of each blend tried."""
    splits = {lang: dev_split(states) for lang, (_, states) in examples.items()}
    train_rows = {lang: ~dev for lang, (dev, _) in splits.items()}
    W = train_map(vectors, examples, keep=train_rows)
    reader = None if kind is None else fit_word_affect(examples, kind, keep=train_rows)
    blends: dict[str, Blend] = {}
    report: dict[str, Any] = {}
    for lang, (contexts, states) in examples.items():
        dev, unseen = splits[lang]
        more = (labelled or {}).get(lang, (np.zeros((0, 384), np.float32), []))
        train_states = {s for s, d in zip(states, dev, strict=True) if not d}
        alone = not unseen[dev].any() or len(train_states) < 2
        members = _dev_members(lang, vectors[lang], (contexts, states), dev, lexicons.get(lang, ()), more, alone)
        if alone:
            blends[lang], report[lang] = MAP_ALONE, {"rows": int(dev.sum()), "blend": "the map alone (too few posts)"}
        else:
            figures = _dev_figures(W, vectors[lang], (contexts, states), (dev, unseen), members)
            blends[lang] = max(figures, key=lambda b: sum(figures[b].values()))
            progress(f"{lang} dev ({int(dev.sum()):,} rows, {int(unseen.sum())} unseen): {blends[lang]} gives "
                     f"{figures[blends[lang]]}")  # fmt: skip
            named = {f"ngram={b.closed} vector={b.vector} offset={b.unseen_offset}": f for b, f in figures.items()}
            report[lang] = {"rows": int(dev.sum()), "unseen_rows": int(unseen.sum()), "blends": named}
        if kind is not None and reader is not None and lang in kind.situations:
            weight, by_weight = choose_affect(W, lang, vectors[lang], (contexts, states), (dev, unseen), members,
                                              blends[lang], (reader, kind.situations[lang]))  # fmt: skip
            blends[lang] = dataclasses.replace(blends[lang], affect=weight)
            progress(f"{lang} affect weight {weight} (dev: {by_weight[weight]})")
            report[lang]["affect"] = {str(w): f for w, f in by_weight.items()}
    return blends, report


def _dev_members(
    lang: str, vectors: np.ndarray, rows: tuple[list[str], list[str]], dev: np.ndarray, lexicon: Sequence[str],
    labelled: tuple[np.ndarray, list[str]], map_alone: bool,
) -> DevMembers:  # fmt: skip
    """The closed members fitted on the non-dev rows (the vector member on ``labelled`` too; neither when the
    ``map_alone`` ranks); the candidates are the lexicon and every state of the examples and of ``labelled``."""
    contexts, states = rows
    candidates = sorted(set(lexicon) | set(states) | set(labelled[1]))
    if map_alone:
        return DevMembers(None, None, candidates, embed_states(candidates, lang))
    train_states = [s for s, d in zip(states, dev, strict=True) if not d]
    ngram = NgramMember.fit([c for c, d in zip(contexts, dev, strict=True) if not d], train_states)
    vector = VectorMember.fit(np.vstack([vectors[~dev], labelled[0]]), [*train_states, *labelled[1]])
    return DevMembers(ngram, vector, candidates, embed_states(candidates, lang))


def _dev_figures(
    W: np.ndarray, vectors: np.ndarray, rows: tuple[list[str], list[str]], split: tuple[np.ndarray, np.ndarray],
    members: DevMembers,
) -> dict[Blend, dict[str, float]]:  # fmt: skip
    """acc@1, acc@5 and unseen acc@5 of each blend of :data:`BLENDS` x :data:`OFFSETS` on one language's dev rows."""
    (contexts, states), (dev, unseen) = rows, split
    closed = members.closed([c for c, d in zip(contexts, dev, strict=True) if d], vectors[dev])
    gold = [s for s, d in zip(states, dev, strict=True) if d]
    figures = {}
    for weights in BLENDS:
        for offset in OFFSETS:
            blend = Blend(*weights, unseen_offset=offset)
            scores = blend_scores(vectors[dev], W, members.state_vectors, closed, blend)
            first, five = dev_hits(scores, members.candidates, gold)
            figures[blend] = {"acc@1": float(first.mean()), "acc@5": float(five.mean()),
                              "unseen_acc@5": float(five[unseen[dev]].mean())}  # fmt: skip
    return figures


def choose_affect(
    W: np.ndarray, lang: str, vectors: np.ndarray, rows: tuple[list[str], list[str]],
    split: tuple[np.ndarray, np.ndarray], members: DevMembers, blend: Blend,
    kind: tuple[WordAffect, tuple[list[str], list[str]]],
) -> tuple[float, dict[float, dict[str, float]]]:  # fmt: skip
    """The weight of :data:`AFFECT_WEIGHTS` with the highest sum of two dev measures, and each weight's figures:

    * **right in word**: acc@1 + acc@5 + unseen acc@5 on the recipe's dev rows (where the language has at least
      :data:`MIN_WORD_DEV_ROWS` of them);
    * **right in kind**: on the situation dev texts (each with "I feel <extra_id_0>." appended), the share whose top
      state's family, and whose top state's polarity (joy or not), is the text's emotion (surprise texts left out
      of polarity), a state's family read by ``kind``'s word affect (fitted on the non-dev rows).

    ``kind`` is ``(word affect, (situation texts, their emotions))``.
    """
    from affectlab.encoders.sentence import embed, embedding_cache
    from affectlab.openstates.predictors.base import prepare
    from affectlab.openstates.predictors.embedded import NO_FEELING, mask_contexts

    (contexts, states), (dev, unseen), (reader, (texts, emotions)) = rows, split, kind
    profiles = reader.profiles(members.state_vectors)
    figures: dict[float, dict[str, float]] = {w: {} for w in AFFECT_WEIGHTS}
    if blend != MAP_ALONE and dev.sum() >= MIN_WORD_DEV_ROWS:
        dev_contexts = [c for c, d in zip(contexts, dev, strict=True) if d]
        closed = members.closed(dev_contexts, vectors[dev])
        base = blend_scores(vectors[dev], W, members.state_vectors, closed, blend)
        agreed = agreement(context_affect(dev_contexts, [lang] * len(dev_contexts)), profiles)
        gold = [s for s, d in zip(states, dev, strict=True) if d]
        for weight in AFFECT_WEIGHTS:
            first, five = dev_hits(base + weight * agreed, members.candidates, gold)
            figures[weight] |= {"acc@1": float(first.mean()), "acc@5": float(five.mean()),
                                "unseen_acc@5": float(five[unseen[dev]].mean())}  # fmt: skip
    situation_contexts = [mask_contexts(prepare(text, lang))[0] for text in texts]
    with embedding_cache():
        X = unit_rows(embed(situation_contexts))
    base = blend_scores(X, W, members.state_vectors, members.closed(situation_contexts, X), blend)
    base[:, [i for i, c in enumerate(members.candidates) if c == NO_FEELING.get(lang)]] = -np.inf
    agreed = agreement(context_affect(situation_contexts, [lang] * len(texts)), profiles)
    family_of = np.array(EMOTIONS)[profiles.argmax(axis=1)]
    polar = np.array([e != "surprise" for e in emotions])
    for weight in AFFECT_WEIGHTS:
        top = family_of[(base + weight * agreed).argmax(axis=1)]
        figures[weight]["situation_family"] = float(np.mean(top == np.array(emotions)))
        figures[weight]["situation_polarity"] = float(
            np.mean((top == "joy")[polar] == (np.array(emotions) == "joy")[polar])
        )
    best = max(AFFECT_WEIGHTS, key=lambda w: (round(sum(figures[w].values()), 6), -w))
    return best, figures


def fit_word_affect(examples: Examples, kind: KindData, keep: Mapping[str, np.ndarray] | None = None) -> WordAffect:
    """The word affect from every language's example states with their posts' families (``keep[lang]``: a boolean
    row mask, default all) and ``kind``'s label words."""
    states: list[tuple[str, str]] = []
    families: list[str | None] = []
    for lang, (_, lang_states) in examples.items():
        rows = keep[lang] if keep is not None else np.ones(len(lang_states), bool)
        lang_families = kind.families.get(lang, [None] * len(lang_states))
        for state, family, kept in zip(lang_states, lang_families, rows, strict=True):
            if kept:
                states.append((lang, state))
                families.append(family)
    words, labels, weights = word_affect_examples(states, families, kind.seeds)
    vectors = np.zeros((len(words), 384), np.float32)
    for lang in {lang for lang, _ in words}:
        of_lang = [i for i, (word_lang, _) in enumerate(words) if word_lang == lang]
        vectors[of_lang] = embed_states([words[i][1] for i in of_lang], lang)
    return WordAffect.fit(vectors, labels, weights)


SITUATIONS = {"en": (("goemotions-ekman", 1200), ("semeval2025-eng", None)), "es": (("semeval2025-esp", None),)}
"""The situation dev sets per language: (dataset, at most this many of its dev rows with one Ekman emotion, drawn
with seed 0; None: all)."""


def kind_data(recipe_dir: str | Path, data_dir: str | Path | None) -> KindData:
    """The :class:`KindData` of the recipe: its CARER posts' families, the paper's label words, and the situation
    dev rows of :data:`SITUATIONS` (their dev splits: never the test splits)."""
    from affectlab.openstates.collect.carer import carer_labels
    from affectlab.openstates.collect.dataset import read_records
    from affectlab.openstates.languages import OPEN_LANGS

    labels = carer_labels(data_dir)
    families: dict[str, list[str | None]] = {}
    for lang in OPEN_LANGS:
        path = Path(recipe_dir) / f"{lang}.jsonl"
        records = [r for r in (read_records(path) if path.is_file() else []) if r["split"] == "train"]
        families[lang] = [CARER_FAMILIES.get(labels.get(r["id"], "")) for r in records for _ in r["terms"]]
    return KindData(families, label_words(), {lang: situation_rows(lang, data_dir) for lang in SITUATIONS})


def situation_rows(lang: str, data_dir: str | Path | None) -> tuple[list[str], list[str]]:
    """``(texts, emotions)``: the dev rows of :data:`SITUATIONS`' datasets of ``lang`` that carry exactly one of
    the six Ekman emotions (GoEmotions through its Ekman view)."""
    from affectlab.datasets import resolve_dataset

    texts: list[str] = []
    emotions: list[str] = []
    for name, most in SITUATIONS[lang]:
        dev = resolve_dataset(name, data_dir)[1]["dev"]
        rows = []
        for text, labels in zip(dev["text"], dev["labels"], strict=True):
            found = set(labels) - {"none"}
            if len(found) == 1 and found <= set(EMOTIONS):
                rows.append((str(text), found.pop()))
        if most is not None and len(rows) > most:
            rows = random.Random(0).sample(rows, most)
        texts += [text for text, _ in rows]
        emotions += [emotion for _, emotion in rows]
    return texts, emotions
