"""Bootstrapped collection of affective states (MASIVE section 3.1, Figure 2): from seed states, find posts with
"I feel <state> and <X>" (and the other templates), keep the adjective conjuncts X as new states, and repeat.

Every template match is found in one pass over the corpus (the state slot and the word after "and"/"y"); the
rounds then run on those matches in memory, so N rounds cost one scan. A round queries every state known so far,
as the paper's "expanding the pool of query affective states in each round". A post's states are its query terms
and their accepted conjuncts, in order of appearance, each with the template's negation; Spanish states also
get a grammatical gender from their ending (:func:`spanish_gender`).

Differences from the paper, which searched Reddit through an API: the corpus is given (files), the state slot is
the one word right after the template (so "I feel so happy and" is not a match), and only the first conjunct is
taken ("I feel happy and calm and safe" yields "calm").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from affectlab.errors import InputError
from affectlab.openstates.collect.pos import AdjectiveCheck, LexicalAdjectives
from affectlab.openstates.collect.seeds import SEEDS, Template, templates_for

SLOT = r"([^\W\d_]+(?:-[^\W\d_]+)?)"
"""One word (letters, accents, an inner hyphen) in the state slot."""
INTENSIFIERS = {
    "en": ("so", "very", "really", "pretty", "quite", "kinda", "extremely", "too", "a bit", "a little", "super"),
    "es": ("muy", "tan", "súper", "super", "bastante", "un poco", "algo", "demasiado"),
}
"""Words the relaxed recipe lets stand between the template and the state ("I feel so lonely")."""
INVARIABLE_A = ("ista", "ita", "ega", "cida")
"""Spanish adjectives in -a that are not feminine forms (optimista, idiota, colega, suicida)."""


@dataclass(frozen=True)
class StateMention:
    """An affective state a post was collected for: the term, whether its template was negated, its template and
    (Spanish) grammatical gender ``masc``/``fem``/``single``."""

    term: str
    negated: bool
    template: str
    gender: str | None = None


@dataclass
class CollectedPost:
    """A post with its affective states (first appearance order) and the earliest round in which one of them was
    found (0: a seed)."""

    id: str
    lang: str
    text: str
    states: list[StateMention]
    round: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {**asdict(self), "states": [asdict(state) for state in self.states]}


@dataclass
class BootstrapResult:
    """Collected posts, each state's first round (0 = seed), per-round counts and the adjective check used."""

    lang: str
    posts: list[CollectedPost]
    states: dict[str, int]
    rounds: list[dict[str, int]] = field(default_factory=list)
    adjective_check: str = ""


@dataclass(frozen=True)
class _Match:
    post: int
    template: Template
    slot: str
    conjunct: str | None
    start: int


def template_pattern(templates: Sequence[Template], intensifiers: bool = False) -> re.Pattern[str]:
    """One case-insensitive regex for all templates of a language: group ``t<i>`` marks template ``i``, ``s<i>``
    the state, ``c<i>`` the word after the conjunction (templates with one); ``intensifiers`` allows one of
    :data:`INTENSIFIERS` before the state. An apostrophe may be typographic or left out ("im feeling", "i dont
    feel": CARER's tweets have their punctuation removed)."""
    alternatives = []
    for i, template in enumerate(templates):
        prefix = r"\s+".join(re.escape(word).replace("'", "['’]?") for word in template.prefix)
        if intensifiers:
            words = "|".join(re.escape(w).replace(" ", r"\s+") for w in INTENSIFIERS[template.lang])
            prefix += rf"(?:\s+(?:{words}))?"
        tail = rf"\s+{re.escape(template.conjunction)}\s+(?P<c{i}>{SLOT[1:-1]})" if template.conjunction else r"\b"
        alternatives.append(rf"(?P<t{i}>{prefix}\s+(?P<s{i}>{SLOT[1:-1]}){tail})")
    return re.compile(r"(?<![\w'’])(?:" + "|".join(alternatives) + ")", re.IGNORECASE)


def find_matches(texts: Sequence[str], templates: Sequence[Template], intensifiers: bool = False) -> list[_Match]:
    """Every template match in ``texts`` (one pass)."""
    pattern = template_pattern(templates, intensifiers)
    found = []
    for post, text in enumerate(texts):
        for match in pattern.finditer(text):
            i = next(int(name[1:]) for name, value in match.groupdict().items() if name[0] == "t" and value)
            conjunct = match.group(f"c{i}") if templates[i].conjunction else None
            found.append(
                _Match(post, templates[i], match.group(f"s{i}").lower(), conjunct and conjunct.lower(), match.start())
            )
    return found


def spanish_gender(term: str) -> str:
    """``fem`` for -a/-as (but not invariable -ista, -ita, ...), ``masc`` for -o/-os, else ``single`` (feliz,
    triste): the rule the collector records; the paper does not say how it decided gender."""
    stem = term[:-1] if term.endswith("s") and len(term) > 3 else term
    if stem.endswith("a") and not stem.endswith(INVARIABLE_A):
        return "fem"
    if stem.endswith("o"):
        return "masc"
    return "single"


def bootstrap(
    texts: Sequence[str],
    lang: str,
    rounds: int = 4,
    seeds: Iterable[str] | None = None,
    ids: Sequence[str] | None = None,
    adjectives: AdjectiveCheck | None = None,
    single_form: bool = False,
    grow_from_single: bool = False,
) -> BootstrapResult:
    """Run ``rounds`` rounds of bootstrapping from ``seeds`` (Table 10 by default) over ``texts``.

    For corpora where "I feel X and Y" is too rare (a few per 100,000 comments in GoEmotions), ``single_form``
    also collects posts with the single form "I feel [so] <state>" and lets an intensifier stand before the state
    in every template; ``grow_from_single`` (which implies it) adds a first round that takes every X of the single
    form that passes the adjective check as a new state, before the ``rounds`` conjunct rounds expand from those."""
    if rounds < 1:
        raise InputError(f"rounds must be at least 1, not {rounds}")
    templates = templates_for(lang)
    seed_terms = [s.lower() for s in (SEEDS[lang] if seeds is None else seeds)]
    if not seed_terms:
        raise InputError("give at least one seed affective state")
    ids = [str(i) for i in range(len(texts))] if ids is None else [str(i) for i in ids]
    check = adjectives or LexicalAdjectives()
    single_form = single_form or grow_from_single
    matches = find_matches(texts, templates, intensifiers=single_form)
    extra = find_matches(texts, templates_for(lang, single=True), intensifiers=True) if single_form else []
    states = {term: 0 for term in seed_terms}
    history = []
    if grow_from_single:
        found = {
            m.slot: None
            for m in extra
            if m.slot not in states and check.is_adjective(m.slot, lang, texts[m.post], states)
        }
        history.append({"round": 1, "queries": len(states), "posts": len({m.post for m in extra}), "new": len(found)})
        states.update({term: 1 for term in found})
    accepted: dict[tuple[str, str], bool] = {}
    for number in range(len(history) + 1, len(history) + rounds + 1):
        queried = [m for m in matches if m.slot in states]
        new: dict[str, None] = {}
        for m in queried:
            if m.conjunct is None or m.conjunct in states or m.conjunct in new:
                continue
            key = (m.conjunct, texts[m.post])
            if key not in accepted:
                accepted[key] = check.is_adjective(m.conjunct, lang, texts[m.post], states)
            if accepted[key]:
                new[m.conjunct] = None
        history.append(
            {"round": number, "queries": len(states), "posts": len({m.post for m in queried}), "new": len(new)}
        )
        states.update({term: number for term in new})
        if not new:
            break
    posts = _posts(texts, ids, lang, matches + extra, states)
    return BootstrapResult(lang, posts, states, history, check.name)


def _posts(
    texts: Sequence[str],
    ids: Sequence[str],
    lang: str,
    matches: list[_Match],
    states: dict[str, int],
) -> list[CollectedPost]:
    """The posts with at least one matched state, their states in order of appearance."""
    by_post: dict[int, list[_Match]] = {}
    for m in sorted(matches, key=lambda m: (m.post, m.start)):
        if m.slot in states:
            by_post.setdefault(m.post, []).append(m)
    posts = []
    for index, found in by_post.items():
        mentions: dict[str, StateMention] = {}
        for m in found:
            terms = [m.slot]
            if m.conjunct in states:
                terms.append(m.conjunct)
            for term in terms:
                gender = spanish_gender(term) if lang == "es" else None
                mentions.setdefault(term, StateMention(term, m.template.negated, m.template.text, gender))
        first_round = min(states[term] for term in mentions)
        posts.append(CollectedPost(ids[index], lang, texts[index], list(mentions.values()), first_round))
    return posts
