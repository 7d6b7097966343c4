"""Build the character n-gram model of open-set language identification (:class:`affectlab.langid.NgramModel`).

One class per language of SemEval-2025 track A, counted from its **train** split (dev and test are left for tuning
and measuring; English also from GoEmotions' train split, :data:`MORE_TEXTS`; where ``wordfreq`` lists the
language, its word frequencies make half the counts, :data:`WORDFREQ_SHARE`), and one per language of the
``wordfreq`` 3.1.1 word lists that is not among the 28 (:data:`OUTSIDE`; Apache-2.0 code, whose word frequencies
include CC-BY-SA 4.0 data, so the model carries that licence's attribution), counted from its commonest words by
their frequencies. A class's n-gram counts are the sum over its words of each word's count (or frequency) times the
word's n-grams, so a word list and running text give the same kind of profile. Each class keeps its :data:`KEEP`
commonest n-grams; the vocabulary is their union; a class's log-probability of an n-gram is
``log((1 - SMOOTHING) p + SMOOTHING / |vocabulary|)``, stored as float16 for its kept n-grams, with the floor
``log(SMOOTHING / |vocabulary|)`` for the rest. Nigerian Pidgin's marker words (``dey``, ``wetin``, ``abeg``,
...: :func:`marker_words`) are learnt from the same train texts against the English ones. Deterministic: the same
data gives the same file, byte for byte.

    pip install -e ".[langid-build]"
    python -m affectlab.build.langid_model --data-dir ../shared/data

writes the model package's ``langid/langid_ngrams.npz`` (about 1.4 MB) and its manifest
(:mod:`affectlab.build.manifest`; give the package a new version first).
"""

from __future__ import annotations

import argparse
import io
import zipfile
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from affectlab.build.manifest import check_new_version, package_root, write_manifest
from affectlab.errors import InputError
from affectlab.langid import MODEL_FILE, word_ngrams, words
from affectlab.languages import BY_CODE

KEEP = 6000
"""N-grams kept per language."""
SMOOTHING = 0.01
"""The share of probability spread evenly over the vocabulary (so an n-gram a language never showed costs it
``log(SMOOTHING / |vocabulary|)``, not minus infinity)."""
WORDFREQ_WORDS = 40_000
"""Words read from each ``wordfreq`` list (its commonest)."""
WORDFREQ_SHARE = 0.5
"""The share of a language's n-gram counts taken from its ``wordfreq`` list, where it has one (general text beside
the tweets of its train split)."""
WORDFREQ_OF = {"ar": "ar", "ary": "ar", "arq": "ar", "de": "de", "en": "en", "es": "es", "hi": "hi", "pt-BR": "pt",
               "pt-MZ": "pt", "ro": "ro", "ru": "ru", "sv": "sv", "uk": "uk", "zh": "zh"}  # fmt: skip
"""The 28's languages ``wordfreq`` has a list of (by tag)."""
MARKER_TEXTS = 10
MARKER_RATIO = 50.0
"""How much likelier a word must be in a Nigerian Pidgin train text than in an English one to mark Pidgin."""
MORE_TEXTS = {"en": ("goemotions",)}
"""Other datasets whose train texts a language's class learns from: English Reddit comments beside BRIGHTER's
English sentences (without them, a tenth of ordinary English posts read as Nigerian Pidgin)."""
OUTSIDE = (
    "bg", "bn", "ca", "cs", "da", "el", "fa", "fi", "fil", "fr", "he", "hu", "id", "is", "it", "ja", "ko", "lt",
    "lv", "mk", "ms", "nb", "nl", "pl", "sh", "sk", "sl", "ta", "tr", "ur", "vi",
)  # fmt: skip
"""The ``wordfreq`` languages outside the 28 (every one of its lists but those of the 28's languages)."""


def train_texts(code: str, data_dir: str | None) -> list[str]:
    """The texts of track A's train split of the language ``code`` (``ukr``, ``pcm``, ...)."""
    from affectlab.datasets.semeval2025 import read_split

    return [row["text"] for row in read_split(code, "train", data_dir)]


def more_texts(tag: str, data_dir: str | None) -> list[str]:
    """The train texts of :data:`MORE_TEXTS`' datasets for ``tag`` (none for most languages)."""
    from affectlab.datasets import resolve_dataset

    return [text for name in MORE_TEXTS.get(tag, ()) for text in resolve_dataset(name, data_dir)[1]["train"]["text"]]


def word_counts(texts: Iterable[str]) -> Counter[str]:
    """How often each word occurs in ``texts``."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(words(text))
    return counts


def wordfreq_word_counts(lang: str, n_words: int = WORDFREQ_WORDS) -> Counter[str]:
    """The frequencies of ``lang``'s :data:`WORDFREQ_WORDS` commonest words in ``wordfreq`` (its small lists, read
    through the same word splitter as any text)."""
    import wordfreq

    counts: Counter[str] = Counter()
    for word, frequency in list(wordfreq.get_frequency_dict(lang, wordlist="small").items())[:n_words]:
        for part in words(word):
            counts[part] += round(frequency * 1e9)  # whole counts per billion words (wordfreq lists down to 1e-8)
    return counts


def ngram_counts(word_counts: Counter[str]) -> Counter[str]:
    """The n-gram counts of a language whose words occur ``word_counts`` times."""
    counts: Counter[str] = Counter()
    for word, count in word_counts.items():
        for ngram in word_ngrams(word):
            counts[ngram] += count
    return counts


def kept(counts: Counter[str], keep: int = KEEP) -> dict[str, float]:
    """The probabilities of the ``keep`` commonest n-grams (ties broken by the n-gram, so the result is stable)."""
    total = sum(counts.values())
    commonest = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:keep]
    return {ngram: count / total for ngram, count in commonest}


def marker_words(texts: list[str], others: list[str], ratio: float = MARKER_RATIO) -> list[str]:
    """The words in at least :data:`MARKER_TEXTS` of ``texts`` and at least ``ratio`` times likelier to be in one
    of them than in one of ``others`` (counting texts, not occurrences), sorted."""
    ours, theirs = document_counts(texts), document_counts(others)
    return sorted(
        word
        for word, count in ours.items()
        if count >= MARKER_TEXTS and count / len(texts) >= ratio * (theirs[word] + 1) / len(others)
    )


def document_counts(texts: list[str]) -> Counter[str]:
    """In how many of ``texts`` each word occurs."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(words(text)))
    return counts


def model_arrays(
    profiles: dict[str, dict[str, float]], pidgin_words: list[str], smoothing: float = SMOOTHING
) -> dict[str, np.ndarray]:
    """The arrays of ``langid_ngrams.npz`` (:class:`affectlab.langid.NgramModel`) from each language's kept n-grams and
    Nigerian Pidgin's marker words."""
    tags = sorted(profiles)
    ngrams = sorted({ngram for profile in profiles.values() for ngram in profile})
    index = {ngram: i for i, ngram in enumerate(ngrams)}
    floor = np.log(smoothing / len(ngrams))
    rows, cols, values = [], [], []
    for col, tag in enumerate(tags):
        for ngram, probability in sorted(profiles[tag].items()):
            rows.append(index[ngram])
            cols.append(col)
            values.append(np.log((1 - smoothing) * probability + smoothing / len(ngrams)))
    return {
        "tags": np.array(tags),
        "ngrams": np.array(ngrams),
        "rows": np.array(rows, dtype=np.int32),
        "cols": np.array(cols, dtype=np.int16),
        "values": np.array(values, dtype=np.float16),
        "floors": np.full(len(tags), floor, dtype=np.float32),
        "pidgin_words": np.array(pidgin_words),
    }


def save_deterministic(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` as a compressed ``.npz`` whose bytes depend only on the arrays (fixed member dates)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, array in arrays.items():
            member = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            member.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(member, "w") as handle:
                np.lib.format.write_array(handle, array, allow_pickle=False)
    path.write_bytes(buffer.getvalue())


def mixed(counts: Counter[str], more: Counter[str] | None, share: float = WORDFREQ_SHARE) -> Counter[str]:
    """``counts`` with ``more`` mixed in as ``share`` of the total (``counts`` alone where ``more`` is None)."""
    if more is None:
        return counts
    total, total_more = sum(counts.values()), sum(more.values())
    return Counter({ngram: (1 - share) * count / total for ngram, count in counts.items()}) + Counter(
        {ngram: share * count / total_more for ngram, count in more.items()}
    )


def build(data_dir: str | None, codes: Iterable[str] = tuple(BY_CODE), outside: Iterable[str] = OUTSIDE) -> dict:
    """The model's arrays: the 28 languages' n-grams from their train splits (with ``wordfreq``'s list of the
    language mixed in where it has one, :data:`WORDFREQ_SHARE`), the others' from ``wordfreq``."""
    profiles, texts = {}, {}
    for code in codes:
        tag = BY_CODE[code].tag
        listed = WORDFREQ_OF.get(tag)
        more = ngram_counts(wordfreq_word_counts(listed)) if listed else None
        texts[tag] = train_texts(code, data_dir) + more_texts(tag, data_dir)
        profiles[tag] = kept(mixed(ngram_counts(word_counts(texts[tag])), more))
    profiles |= {lang: kept(ngram_counts(wordfreq_word_counts(lang))) for lang in outside}
    return model_arrays(profiles, marker_words(texts.get("pcm", []), texts.get("en", [])) if "pcm" in texts else [])


def main(argv: list[str] | None = None) -> None:
    """``python -m affectlab.build.langid_model --data-dir DIR [--out FILE]``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True, help="the folder holding semeval2025_task11/")
    parser.add_argument("--out", default=str(MODEL_FILE))
    args = parser.parse_args(argv)
    shipped = Path(args.out) == MODEL_FILE
    try:
        if shipped:
            check_new_version(package_root())  # before minutes of counting
        arrays = build(args.data_dir)
        save_deterministic(Path(args.out), arrays)
        if shipped:
            write_manifest(built={"langid": f"python -m affectlab.build.langid_model --data-dir {args.data_dir}"})
    except InputError as exc:
        parser.error(str(exc))
    print(f"{args.out}: {len(arrays['tags'])} languages, {len(arrays['ngrams'])} n-grams, "
          f"{Path(args.out).stat().st_size / 1e6:.2f} MB")  # fmt: skip


if __name__ == "__main__":
    main()
