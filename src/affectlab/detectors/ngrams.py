"""TF-IDF features shared by the n-gram detectors: word n-grams and character n-grams of the text, and, for
dialogue tasks, word n-grams of the earlier turns in a block of their own (scaled by ``context_weight``).

Vocabularies and IDF weights are learned by scikit-learn's ``TfidfVectorizer``; applying them to new texts is done
here (:class:`FittedBlock`), with the vectoriser's own analysers (lower-casing, the word pattern and word n-grams;
character n-grams inside space-padded words, ``char_wb``), sublinear term frequency, IDF and L2 norm. Why by hand:
importing scikit-learn's text module costs about 1.2 s on a 2-core machine, more than half of the 2 s a user waits
for ``affectlab detect "..."``; a detector loaded to score texts now imports none of scikit-learn. Character
n-grams are found by hash over a whole batch in numpy (:class:`CharNgramIndex`), since scikit-learn's analyser and
a dictionary lookup per n-gram in Python made the n-gram features most of the fast profile's time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import scipy.sparse as sp

from affectlab.detectors.batch import Inputs
from affectlab.detectors.negation import negation_marked
from affectlab.detectors.serialization import arrays_to_strings, strings_to_arrays
from affectlab.text import WORD_PATTERN, canonical_text, normalise

FEATURE_DEFAULTS: dict[str, Any] = {
    "word_ngrams": (1, 2),
    "char_ngrams": (1, 5),
    "min_df": 1,
    "max_features": 300_000,
    "context_weight": 1.0,
    "canonical": False,
    "negation_scope": 0,
}


def _vectorizer(kind: str, params: dict[str, Any]) -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer

    if kind == "char":
        return TfidfVectorizer(
            analyzer="char_wb",
            ngram_range=tuple(params["char_ngrams"]),
            min_df=params["min_df"],
            sublinear_tf=True,
            max_features=params["max_features"],
            dtype=np.float32,
        )
    ngrams = tuple(params["word_ngrams"])
    return TfidfVectorizer(
        analyzer="word",
        token_pattern=WORD_PATTERN,
        ngram_range=ngrams,
        min_df=params["min_df"],
        sublinear_tf=True,
        max_features=params["max_features"],
        dtype=np.float32,
    )


class FittedBlock:
    """One fitted TF-IDF block applied to new texts: the n-grams of each text (``char``: character n-grams of each
    space-padded word, a word shorter than n counted once; otherwise word n-grams of the word pattern's tokens),
    counted over the vocabulary, ``1 + log(count)``, times IDF, each row scaled to unit length. Word tokens follow
    ``token_pattern`` (the vectoriser's own; :data:`~affectlab.text.WORD_PATTERN` for the detectors).

    Character n-grams are looked up by hash, for a whole batch at once in numpy (:class:`CharNgramIndex`): in
    Python, one dictionary lookup per n-gram (about 700 per tweet-length text) took most of the fast profile's
    time."""

    def __init__(
        self, kind: str, ngram_range: tuple[int, int], vocabulary: dict[str, int], idf: np.ndarray,
        token_pattern: str = WORD_PATTERN,
    ):  # fmt: skip
        self.kind, self.ngram_range = kind, ngram_range
        self.vocabulary, self.idf = vocabulary, np.asarray(idf, dtype=np.float64)
        self._tokens = re.compile(token_pattern)
        self._char_index: CharNgramIndex | None = None
        self._hashes_collide = False

    def ngrams(self, text: str) -> list[str]:
        """The n-grams of one text, as the vectoriser's analyser gives them (repeats included)."""
        low, high = self.ngram_range
        text = text.lower()
        grams: list[str] = []
        if self.kind == "char":
            for word in text.split():
                padded = f" {word} "
                for n in range(low, high + 1):
                    grams += [padded[i : i + n] for i in range(max(len(padded) - n + 1, 1))]
                    if len(padded) <= n:
                        break
            return grams
        tokens = self._tokens.findall(text)
        for n in range(low, min(high, len(tokens)) + 1):
            grams += tokens if n == 1 else [" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
        return grams

    def transform(self, texts: list[str]) -> sp.csr_matrix:
        """``(len(texts), len(vocabulary))`` float32 TF-IDF rows."""
        index = self._hashed_index()
        rows, columns = index.occurrences(texts) if index is not None else self._looked_up_occurrences(texts)
        counts = sp.csr_matrix(
            (np.ones(len(rows), dtype=np.float64), (rows, columns)), shape=(len(texts), len(self.vocabulary))
        )
        counts.sum_duplicates()
        counts.data = (1.0 + np.log(counts.data)) * self.idf[counts.indices]
        norms = np.sqrt(np.asarray(counts.multiply(counts).sum(axis=1)).ravel())
        matrix = sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ counts
        return matrix.astype(np.float32).tocsr()

    def _hashed_index(self) -> CharNgramIndex | None:
        """The character n-gram index, built on first use; None for word n-grams (a few per text: a dictionary is
        fast enough) and for a vocabulary whose terms share a hash."""
        if self.kind != "char" or self._hashes_collide:
            return None
        if self._char_index is None:
            try:
                self._char_index = CharNgramIndex(self.vocabulary, self.ngram_range)
            except ValueError:
                self._hashes_collide = True
        return self._char_index

    def _looked_up_occurrences(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Row and column of every vocabulary n-gram occurrence (repeats included), one dictionary lookup each."""
        vocabulary, rows, columns = self.vocabulary, [], []
        for row, text in enumerate(texts):
            found = [column for gram in self.ngrams(text) if (column := vocabulary.get(gram)) is not None]
            columns += found
            rows += [row] * len(found)
        return np.asarray(rows, dtype=np.int64), np.asarray(columns, dtype=np.int64)


_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_LENGTH_SALT = 0x9E3779B97F4A7C15


def _codepoints(text: str) -> np.ndarray:
    """One uint32 per character (lone surrogates kept as themselves)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _salted(hashes: np.ndarray, n: int) -> np.ndarray:
    return hashes ^ np.uint64((_LENGTH_SALT * n) % 2**64)


class CharNgramIndex:
    """A character n-gram vocabulary (``char_wb``) looked up by a 64-bit FNV-1a hash of each n-gram's code points
    and its length: the vocabulary's hashes sorted once, then every n-gram of a batch of texts hashed and found
    by binary search, all in numpy. Two different strings sharing a hash is possible in principle (about one in
    10^13 per n-gram against a 100,000-term vocabulary); a vocabulary whose own terms collide is refused at
    construction, and the caller falls back to exact lookups."""

    def __init__(self, vocabulary: dict[str, int], ngram_range: tuple[int, int]):
        self.low, self.high = ngram_range
        terms = list(vocabulary)
        hashes = np.empty(len(terms), dtype=np.uint64)
        lengths = np.fromiter(map(len, terms), dtype=np.int64, count=len(terms))
        for n in np.unique(lengths):
            picked = np.flatnonzero(lengths == n)
            points = _codepoints("".join(terms[i] for i in picked)).reshape(len(picked), int(n))
            hashes[picked] = _salted(self._fnv(points), int(n))
        order = np.argsort(hashes, kind="stable")
        self.hashes = hashes[order]
        self.columns = np.fromiter(map(vocabulary.__getitem__, terms), dtype=np.int64, count=len(terms))[order]
        if len(self.hashes) > 1 and (np.diff(self.hashes) == 0).any():
            raise ValueError("two vocabulary n-grams share a hash")

    @staticmethod
    def _fnv(points: np.ndarray) -> np.ndarray:
        """FNV-1a over each row's code points."""
        hashes = np.full(len(points), _FNV_OFFSET, dtype=np.uint64)
        for column in points.T:
            hashes = (hashes ^ column.astype(np.uint64)) * _FNV_PRIME
        return hashes

    def occurrences(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Row and column of every vocabulary n-gram occurrence in ``texts`` (repeats included), with the n-grams
        of scikit-learn's ``char_wb`` analyser: lower-cased, split on white space, each word padded with a space on
        both sides; every n-gram of length ``low..high`` inside a padded word, and a padded word shorter than
        ``low`` once, whole."""
        words = [text.lower().split() for text in texts]
        flat = [word for text_words in words for word in text_words]
        if not flat:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        word_rows = np.repeat(np.arange(len(texts)), [len(text_words) for text_words in words])
        padded = np.fromiter(map(len, flat), dtype=np.int64, count=len(flat)) + 2
        ends = np.cumsum(padded)
        starts = ends - padded
        points = np.concatenate([_codepoints(" " + "  ".join(flat) + " "), np.zeros(self.high, dtype=np.uint32)])
        word_of = np.repeat(np.arange(len(flat)), padded)
        position = np.arange(int(ends[-1]))
        rows: list[np.ndarray] = []
        columns: list[np.ndarray] = []
        hashes = np.full(len(position), _FNV_OFFSET, dtype=np.uint64)
        for n in range(1, self.high + 1):
            hashes = (hashes ^ points[position + n - 1].astype(np.uint64)) * _FNV_PRIME
            if n < self.low:
                whole = starts[padded == n]  # padded words shorter than low count once, whole
                self._look_up(_salted(hashes[whole], n), word_rows[word_of[whole]], rows, columns)
                continue
            inside = position + n <= ends[word_of]
            self._look_up(_salted(hashes[inside], n), word_rows[word_of[inside]], rows, columns)
        return np.concatenate(rows), np.concatenate(columns)

    def _look_up(self, keys: np.ndarray, key_rows: np.ndarray, rows: list, columns: list) -> None:
        at = np.minimum(np.searchsorted(self.hashes, keys), len(self.hashes) - 1)
        found = self.hashes[at] == keys if len(self.hashes) else np.zeros(len(keys), dtype=bool)
        rows.append(key_rows[found])
        columns.append(self.columns[at[found]] if len(self.hashes) else np.zeros(0, dtype=np.int64))


class NgramFeatures:
    """Fits (scikit-learn) and applies (:class:`FittedBlock`) the TF-IDF blocks; the context block exists only if
    the training texts had context."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params
        self.blocks_: dict[str, FittedBlock] = {}

    def _columns(self, inputs: Inputs) -> dict[str, list[str]]:
        """The texts each block reads: canonical where asked, and with the ``negation_scope`` words after each
        negation cue marked for the word block and left out of the character block where asked (0: not at all;
        :mod:`affectlab.detectors.negation`)."""
        read = canonical_text if self.params.get("canonical") else str
        texts = [normalise(read(t)) for t in inputs.texts]
        context = [normalise(" ".join(turns)) for turns in inputs.contexts]
        scope = int(self.params.get("negation_scope") or 0)
        if not scope:
            return {"word": texts, "char": texts, "context": context}
        marked = [negation_marked(text, scope) for text in texts]
        return {"word": [w for w, _ in marked], "char": [c for _, c in marked], "context": context}

    def _block(self, kind: str, vocabulary: dict[str, int], idf: np.ndarray) -> FittedBlock:
        ngrams = self.params["char_ngrams"] if kind == "char" else self.params["word_ngrams"]
        return FittedBlock(kind, (int(ngrams[0]), int(ngrams[1])), vocabulary, idf)

    def fit_transform(self, inputs: Inputs) -> sp.csr_matrix:
        """Learn vocabularies and IDF weights from ``inputs`` and return their features."""
        columns = self._columns(inputs)
        kinds = ["word", "char"] + (["context"] if any(columns["context"]) else [])
        blocks = []
        self.blocks_ = {}
        for kind in kinds:
            vectorizer = _vectorizer(kind, self.params)
            blocks.append(self._scaled(kind, vectorizer.fit_transform(columns[kind])))
            vocabulary = {term: int(column) for term, column in vectorizer.vocabulary_.items()}
            self.blocks_[kind] = self._block(kind, vocabulary, vectorizer.idf_)
        return sp.hstack(blocks, format="csr")

    def transform(self, inputs: Inputs) -> sp.csr_matrix:
        """Features of ``inputs`` with the learned vocabularies."""
        columns = self._columns(inputs)
        blocks = [self._scaled(kind, block.transform(columns[kind])) for kind, block in self.blocks_.items()]
        return sp.hstack(blocks, format="csr")

    def _scaled(self, kind: str, block: sp.spmatrix) -> sp.spmatrix:
        return block * self.params["context_weight"] if kind == "context" else block

    @property
    def reads_context(self) -> bool:
        """Whether a context block was learned (the training texts had earlier turns)."""
        return "context" in self.blocks_

    @property
    def n_features(self) -> int:
        """Total number of features over all blocks."""
        return sum(len(block.vocabulary) for block in self.blocks_.values())

    def get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Vocabularies (as packed strings, in column order) and IDF weights."""
        arrays: dict[str, np.ndarray] = {}
        for kind, block in self.blocks_.items():
            terms = sorted(block.vocabulary, key=block.vocabulary.__getitem__)
            arrays.update(strings_to_arrays(f"{kind}.vocabulary", terms))
            arrays[f"{kind}.idf"] = block.idf.astype(np.float64)
        return {"blocks": list(self.blocks_)}, arrays

    def set_state(self, state: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        """Restore what :meth:`get_state` saved: the vocabularies and IDF weights of each block."""
        self.blocks_ = {}
        for kind in state["blocks"]:
            terms = arrays_to_strings(f"{kind}.vocabulary", arrays)
            self.blocks_[kind] = self._block(kind, {term: i for i, term in enumerate(terms)}, arrays[f"{kind}.idf"])
