"""Training rows that teach the encoder answers that hold (issue 41), derived from a dataset's own train rows:

* **edited** rows: the same text with an edit that keeps its meaning (letter case, the text said twice, a run of
  punctuation, an @mention and a link, a hashtag of one of its words, its emoji repeated, extra spaces), under the
  same targets;
* **negated** rows: a sentence of a text in which the speaker states an emotion in the first person ("I'm so
  angry", "мені страшно", "estoy furiosa", "ich habe Angst"), turned into its denial ("I'm not angry", "мені не
  страшно", "no estoy furiosa", "ich habe keine Angst"); the denied emotion is known absent and every other label
  unknown (NaN), since a denial says nothing of the rest.

The negation rules are written here because no library negates a clause in these languages; they only find a
first-person statement of an emotion and insert the language's negation, so each negated row is a sentence of the
data, not a template. A denial is a denial whatever the text's labels were, so every emotion a sentence states can
be denied.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from affectlab.labels import EKMAN

Edit = Callable[[str, np.random.Generator], str]

_WORD = re.compile(r"\w{4,}")
_EMOJI = re.compile(r"[\U0001F300-\U0001FAFF\u2600-\u27BF]")


def _upper(text: str, rng: np.random.Generator) -> str:
    return text.upper()


def _lower(text: str, rng: np.random.Generator) -> str:
    return text.lower()


def _said_twice(text: str, rng: np.random.Generator) -> str:
    return f"{text} {text}"


def _punctuation_run(text: str, rng: np.random.Generator) -> str:
    return text.rstrip() + str(rng.choice(["!!!", "!!", "!!!!!", "...", "?!", "!!1"]))


def _mention_and_link(text: str, rng: np.random.Generator) -> str:
    mention = str(rng.choice(["@user", "@USER", "@anna_k", "@mike77"]))
    link = f"https://t.co/{''.join(rng.choice(list('abcdefghkmnpqrstuvwxyzABCDEFGH23456789'), 10))}"
    return f"{mention} {text} {link}"


def _hashtag(text: str, rng: np.random.Generator) -> str:
    words = _WORD.findall(text)
    return f"{text} #{rng.choice(words)}" if words else f"{text} #tbt"


def _emoji_repeated(text: str, rng: np.random.Generator) -> str:
    found = _EMOJI.findall(text)
    return text + "".join(rng.choice(found, 3)) if found else re.sub(r"\s+", "  ", text)


EDITS: tuple[Edit, ...] = (
    _upper, _lower, _said_twice, _punctuation_run, _mention_and_link, _hashtag, _emoji_repeated
)  # fmt: skip
"""The meaning-keeping edits; each edited row gets one, drawn at random."""


def edited_texts(texts: list[str], seed: int) -> list[str]:
    """Each of ``texts`` with one edit of :data:`EDITS`, drawn with ``seed``."""
    rng = np.random.default_rng(seed)
    return [EDITS[int(rng.integers(len(EDITS)))](text, rng) for text in texts]


@dataclass(frozen=True)
class NegationRule:
    """A first-person statement of ``emotion`` (``pattern``, case-insensitive, whose named group ``lead`` is the
    words before the emotion word and ``word`` the emotion word) and how its denial reads (``denial``: a
    replacement for the whole match, in :func:`re.sub` syntax)."""

    emotion: str
    pattern: str
    denial: str


def _rules(emotion: str, leads: str, words: str, denial: str, between: str = "") -> NegationRule:
    gap = rf"(?:(?:{between})\s+)?" if between else ""
    return NegationRule(emotion, rf"\b(?P<lead>{leads})\s+{gap}(?P<word>{words})\b", denial)


_EN_LEADS = r"i am|i'm|im|i’m|we are|we're"
_EN_WAS = r"i was|we were"
_EN_FEEL = r"i feel|i'm feeling|im feeling|i am feeling"
_EN_INTENSIFIERS = r"so|really|very|extremely|super|pretty|quite|totally|absolutely|kinda|a bit|a little|fucking"
_EN_WORDS = {
    "anger": r"angry|mad|furious|pissed|pissed off|annoyed|irritated|livid|outraged|enraged|fuming",
    "fear": r"scared|afraid|terrified|frightened|nervous|anxious|worried|petrified|panicking",
    "sadness": r"sad|depressed|heartbroken|devastated|miserable|unhappy|upset|lonely|gutted",
    "joy": r"happy|glad|excited|thrilled|delighted|overjoyed|ecstatic|pleased|stoked",
    "disgust": r"disgusted|grossed out|repulsed|sickened|nauseated|revolted",
    "surprise": r"surprised|shocked|amazed|astonished|stunned|speechless",
}
_ES_LEADS = r"estoy|estaba|estamos|me siento|me sentí|me quedé|ando"
_ES_INTENSIFIERS = r"muy|tan|super|súper|bastante|re|muy muy"
_ES_WORDS = {
    "anger": r"enojad[oa]s?|enfadad[oa]s?|furios[oa]s?|cabread[oa]s?|molest[oa]s?|hart[oa]s?|indignad[oa]s?",
    "fear": r"asustad[oa]s?|aterrad[oa]s?|aterrorizad[oa]s?|nervios[oa]s?|preocupad[oa]s?|acojonad[oa]s?",
    "sadness": r"triste|tristes|deprimid[oa]s?|destrozad[oa]s?|desanimad[oa]s?|bajonead[oa]s?",
    "joy": r"feliz|felices|content[oa]s?|alegre|alegres|emocionad[oa]s?|encantad[oa]s?|ilusionad[oa]s?",
    "disgust": r"asquead[oa]s?",
    "surprise": r"sorprendid[oa]s?|asombrad[oa]s?|impactad[oa]s?|flipando|alucinando",
}
_ES_NOUNS = {"anger": "rabia|coraje|bronca", "fear": "miedo|pánico", "sadness": "pena|tristeza", "disgust": "asco"}
_UK_WORDS = {
    "anger": r"злий|зла|злюся|злюсь|лютий|люта|розлючений|розлючена|обурений|обурена|сердитий|сердита",
    "fear": r"боюся|боюсь|наляканий|налякана|переляканий|перелякана",
    "sadness": r"сумую|сумний|сумна|засмучений|засмучена",
    "joy": r"щасливий|щаслива|радий|рада|радію|щасливі",
    "surprise": r"здивований|здивована|шокований|шокована|вражений|вражена",
}
_UK_IMPERSONAL = {"fear": r"страшно|моторошно", "sadness": r"сумно|тоскно|журно|гірко", "joy": r"весело|радісно",
                  "disgust": r"гидко|огидно|бридко|мерзенно"}  # fmt: skip
_UK_MAKES_ME = {"anger": r"бісить|дратує|злить|вибішує|обурює"}
_RU_WORDS = {
    "anger": r"злой|злая|зол|зла|злюсь|бешусь|разъярен|разъярён|разъярена|возмущен|возмущён|возмущена",
    "fear": r"боюсь|напуган|напугана|испуган|испугана",
    "sadness": r"грущу|расстроен|расстроена|опечален|опечалена",
    "joy": r"счастлив|счастлива|рад|рада|радуюсь|счастливы",
    "surprise": r"удивлен|удивлён|удивлена|шокирован|шокирована|поражен|поражён|поражена",
}
_RU_IMPERSONAL = {"fear": r"страшно|жутко", "sadness": r"грустно|тоскливо|печально", "joy": r"весело|радостно",
                  "disgust": r"противно|мерзко|тошно|омерзительно"}  # fmt: skip
_RU_MAKES_ME = {"anger": r"бесит|раздражает|злит|выбешивает"}
_CYRILLIC_INTENSIFIERS = r"так|дуже|страшенно|жахливо|трохи|очень|ужасно|страшно|немного|просто"
_DE_WORDS = {
    "anger": r"wütend|sauer|stinksauer|verärgert|zornig|genervt|empört",
    "fear": r"ängstlich|verängstigt|nervös|panisch",
    "sadness": r"traurig|deprimiert|niedergeschlagen|todtraurig|unglücklich",
    "joy": r"glücklich|froh|happy|überglücklich|begeistert",
    "disgust": r"angewidert|angeekelt",
    "surprise": r"überrascht|geschockt|schockiert|baff|erstaunt",
}
_DE_INTENSIFIERS = r"so|echt|total|sehr|richtig|ziemlich|voll|extrem"
_PT_LEADS = r"estou|tô|to|estava|fiquei|me sinto|me senti|ando"
_PT_WORDS = {
    "anger": r"com raiva|irritad[oa]s?|brav[oa]s?|put[oa]s?|furios[oa]s?|revoltad[oa]s?|indignad[oa]s?",
    "fear": r"com medo|assustad[oa]s?|apavorad[oa]s?|nervos[oa]s?|preocupad[oa]s?",
    "sadness": r"triste|tristes|deprimid[oa]s?|arrasad[oa]s?|chatead[oa]s?|desanimad[oa]s?",
    "joy": r"feliz|felizes|content[oa]s?|alegre|animad[oa]s?|empolgad[oa]s?",
    "disgust": r"com nojo|enojad[oa]s?",
    "surprise": r"surpres[oa]s?|chocad[oa]s?|espantad[oa]s?|pasm[oa]s?",
}
_PT_INTENSIFIERS = r"muito|tão|super|bem|mó"


def _language_rules() -> dict[str, tuple[NegationRule, ...]]:
    en = [
        *(_rules(e, _EN_LEADS, w, r"\g<lead> not \g<word>", _EN_INTENSIFIERS) for e, w in _EN_WORDS.items()),
        *(_rules(e, _EN_WAS, w, r"\g<lead> not \g<word>", _EN_INTENSIFIERS) for e, w in _EN_WORDS.items()),
        *(_rules(e, _EN_FEEL, w, r"i don't feel \g<word>", _EN_INTENSIFIERS) for e, w in _EN_WORDS.items()),
    ]
    es = [
        *(_rules(e, _ES_LEADS, w, r"no \g<lead> \g<word>", _ES_INTENSIFIERS) for e, w in _ES_WORDS.items()),
        *(_rules(e, r"me da|me dio|me dan|me daba|tengo|tenía", w, r"no \g<lead> \g<word>",
                 r"mucho|mucha|tanto|tanta|un poco de") for e, w in _ES_NOUNS.items()),
    ]  # fmt: skip
    cyrillic = _CYRILLIC_INTENSIFIERS
    uk = [
        *(_rules(e, r"я|ми", w, r"\g<lead> не \g<word>", cyrillic) for e, w in _UK_WORDS.items()),
        *(_rules(e, r"мені|нам", w, r"\g<lead> не \g<word>", cyrillic) for e, w in _UK_IMPERSONAL.items()),
        *(_rules(e, r"мене", w, r"\g<lead> не \g<word>", cyrillic) for e, w in _UK_MAKES_ME.items()),
    ]
    ru = [
        *(_rules(e, r"я|мы", w, r"\g<lead> не \g<word>", cyrillic) for e, w in _RU_WORDS.items()),
        *(_rules(e, r"мне|нам", w, r"\g<lead> не \g<word>", cyrillic) for e, w in _RU_IMPERSONAL.items()),
        *(_rules(e, r"меня", w, r"\g<lead> не \g<word>", cyrillic) for e, w in _RU_MAKES_ME.items()),
    ]
    de = [
        *(_rules(e, r"ich bin|wir sind|ich war", w, r"\g<lead> nicht \g<word>", _DE_INTENSIFIERS)
          for e, w in _DE_WORDS.items()),
        _rules("fear", r"ich habe|ich hab|ich hatte", r"angst", r"\g<lead> keine Angst", _DE_INTENSIFIERS),
    ]  # fmt: skip
    pt = [
        *(_rules(e, _PT_LEADS, w, r"não \g<lead> \g<word>", _PT_INTENSIFIERS) for e, w in _PT_WORDS.items()),
        _rules("fear", r"tenho|tinha", r"medo", r"não \g<lead> \g<word>", r"muito|tanto"),
    ]
    return {"en": tuple(en), "es": tuple(es), "uk": tuple(uk), "ru": tuple(ru), "de": tuple(de), "pt": tuple(pt)}


NEGATION_RULES = _language_rules()
"""Per base language tag, the first-person statements of an emotion that :func:`negated_sentence` can deny."""
_COMPILED = {lang: [(r, re.compile(r.pattern, re.IGNORECASE)) for r in rules] for lang, rules in NEGATION_RULES.items()}
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_ALREADY_NEGATED = re.compile(r"\b(not|no|never|n't|не|ні|нет|ни|nicht|kein|keine|nunca|não|nem)\b", re.IGNORECASE)


def negated_sentence(text: str, lang: str, emotions: set[str]) -> tuple[str, str] | None:
    """The first sentence of ``text`` (in the language ``lang``, a base tag such as ``en``) that states one of
    ``emotions`` in the first person, denied, and the emotion it denies; None where no sentence does (or the
    sentence already holds a negation, which a second one would reverse)."""
    for rule, pattern in _COMPILED.get(lang.split("-")[0], ()):
        if rule.emotion not in emotions:
            continue
        for sentence in _SENTENCE.findall(text):
            if pattern.search(sentence) and not _ALREADY_NEGATED.search(sentence):
                return pattern.sub(rule.denial, sentence, count=1).strip(), rule.emotion
    return None


def negation_targets(denied: list[str]) -> np.ndarray:
    """``ekman`` targets of negated rows: the denied emotion 0, every other label NaN (unknown)."""
    out = np.full((len(denied), len(EKMAN)), np.nan, dtype=np.float32)
    for i, emotion in enumerate(denied):
        out[i, EKMAN.labels.index(emotion)] = 0.0
    return out
