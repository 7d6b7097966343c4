"""Negation scope for n-gram features (issue 52): the words a negation cue governs ("I'm not **angry with you**",
"мені не **страшно**", "no estoy **enfadada**") are marked for the word n-grams (``not_angry``, a feature of its own
that the training data rarely holds) and left out of the character n-grams, so that a denied emotion word no longer
counts as the emotion in the ``tfidf`` member of the default heads.

The classic device of sentiment classifiers (Das and Chen 2001; Pang, Lee and Vaithyanathan 2002: a ``NOT_`` prefix
on each word between a negation and the next punctuation mark), with the cues of the languages the suite covers
whose negation precedes what it denies (English, Ukrainian, Russian, Spanish, Portuguese, German, Arabic), and, for
Hindi, whose ``नहीं`` follows the predicate, the two words before the cue. Written here because no library marks
negation scope in these languages (NLTK's ``mark_negation`` is English only and needs NLTK's tokenizer).
"""

from __future__ import annotations

import re

SCOPE_WORDS = 4
"""By default, at most this many words after a cue are in its scope (a scope also ends at punctuation or a contrast
word)."""
MARK = "not_"
"""The prefix of a word in a negation's scope, for the word n-grams."""
_FORWARD_CUES = (
    r"not|no|never|nothing|nobody|none|neither|nor|without|\w+n['’]t|"  # en
    r"не|ні|ни|нет|немає|нема|нету|ніколи|никогда|жодн\w*|ніяк\w*|никак\w*|ніскільки|нисколько|анітрохи|ничуть|нічого|ничего|без|"
    r"nunca|jamás|ni|nada|sin|tampoco|ningún|ninguna|ninguno|"  # es
    r"não|jamais|nem|sem|nenhum|nenhuma|"  # pt
    r"nicht|kein|keine|keinen|keiner|keinem|keines|nie|niemals|nichts|ohne|weder|"  # de
    r"لا|لم|لن|ليس|لست|لسنا|ليست|ما|مش|موش|ماشي|مو|غير|بدون|مانيش|ماراني|ماكانش"  # ar
)
_BACKWARD_CUES = r"नहीं|नही|न|ना|मत"
_CONTRAST = r"but|however|pero|sino|mas|porém|aber|sondern|doch|але|а|однак|проте|но|однако|зато|لكن|بل|بصح|ولكن"
_LETTER = r"[\w\u0900-\u0DFF\u0300-\u036F\u0610-\u061A\u064B-\u065F]"
r"""A word character, the combining vowel signs of Indic scripts and Arabic diacritics included (Python's ``\w``
leaves them out, which would cut a Hindi word at each vowel sign)."""
_TOKEN = re.compile(rf"{_LETTER}+(?:['’]{_LETTER}+)?|[^\w\s]+", re.UNICODE)
_IS_CUE = re.compile(rf"(?:{_FORWARD_CUES})", re.IGNORECASE)
_IS_BACKWARD_CUE = re.compile(rf"(?:{_BACKWARD_CUES})")
_IS_CONTRAST = re.compile(rf"(?:{_CONTRAST})", re.IGNORECASE)
_IS_WORD = re.compile(r"\w", re.UNICODE)
_ANY_CUE = re.compile(rf"(?<!{_LETTER})(?:{_FORWARD_CUES}|{_BACKWARD_CUES})(?!{_LETTER})", re.IGNORECASE)
"""Whether a text holds a cue as a word of its own: most texts do not, and they are returned as they are without
being tokenised (the n-gram member's hot path)."""


def _scoped(tokens: list[str], words: int) -> list[bool]:
    """For each token, whether a negation cue governs it (at most ``words`` after a cue)."""
    scoped = [False] * len(tokens)
    remaining = 0
    for i, token in enumerate(tokens):
        if not _IS_WORD.match(token) or _IS_CONTRAST.fullmatch(token):
            remaining = 0
        elif _IS_CUE.fullmatch(token):
            remaining = words
        elif remaining:
            scoped[i], remaining = True, remaining - 1
        if _IS_BACKWARD_CUE.fullmatch(token):
            for j in range(max(i - 2, 0), i):
                scoped[j] = scoped[j] or (bool(_IS_WORD.match(tokens[j])) and not _IS_CUE.fullmatch(tokens[j]))
    return scoped


def negation_marked(text: str, words: int = SCOPE_WORDS) -> tuple[str, str]:
    """``text`` for the word n-grams (each word in a negation's scope, at most ``words`` after its cue, prefixed
    with :data:`MARK`) and for the character n-grams (those words left out); everything else as it is, so a text
    without negation is unchanged."""
    if not _ANY_CUE.search(text):
        return text, text
    matches = list(_TOKEN.finditer(text))
    scoped = _scoped([match.group() for match in matches], words)
    marked: list[str] = []
    kept: list[str] = []
    end = 0
    for match, inside in zip(matches, scoped, strict=True):
        between = text[end : match.start()]
        marked.append(between + (MARK if inside else "") + match.group())
        kept.append(between + ("" if inside else match.group()))
        end = match.end()
    return "".join(marked) + text[end:], "".join(kept) + text[end:]
