"""Ukrainian numerals written in capitals inside a template, inflected to any number (Eval-UA-tion, section 3.2.5).

The LMES templates (LOW, WIS) mark the slot for the number by writing an example numeral in capitals, in the case,
gender and type the sentence needs: ``"В слові "{WORD}" на ПЕРШОМУ місці ..."`` asks for an ordinal in the
locative, ``"під номером ОДИН"`` for a nominative cardinal. We read that morphology with pymorphy3 (Ukrainian
dictionaries) and let ``ukr_numbers`` (the authors' library, built on pymorphy3 and num2words) put the wanted
number into the same form, so no inflection table is written by hand here. ``-1`` means "the last one": an ordinal
becomes ``останній`` in the same form, and a cardinal has no such form (there is no "number last").
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from affectlab.errors import InputError
from affectlab.extras import require
from affectlab.loaded_once import loaded_once
from affectlab.uatasks.ukr_morphology import ukrainian_analyzer

LAST = -1
"""The needle meaning "the last letter/word" (the published instances store it as ``needle: -1``)."""

CAPITALISED_WORD = re.compile(r"(?<![\w'’ʼ])[А-ЩЬЮЯҐЄІЇ](?:['’ʼ]?[А-ЩЬЮЯҐЄІЇ])+(?![\w'’ʼ])")
"""A word of two or more Ukrainian capital letters, apostrophes allowed inside (``П'ЯТОМУ``): a numeral slot."""

_NUMERAL_POS = ("ADJF", "NUMR")  # ordinals are adjectives in the dictionary, cardinals numerals
_PURPOSE = "Inflecting Ukrainian numerals (Eval-UA-tion LMES)"


@dataclass(frozen=True)
class NumeralForm:
    """The form a template asks for: ``kind`` and pymorphy3 grammemes (``case`` like ``"loct"``, ``gender`` like
    ``"neut"``, ``number`` like ``"plur"``; ``None`` where the dictionary leaves it open)."""

    word: str
    kind: Literal["ordinal", "cardinal"]
    lemma: str
    case: str | None
    gender: str | None
    number: str | None


def _morph() -> Any:
    """The one pymorphy3 analyser for Ukrainian (:func:`~affectlab.uatasks.ukr_morphology.ukrainian_analyzer`)."""
    require("pymorphy3", "ua", _PURPOSE)  # without the extra, the one line names what needed it
    return ukrainian_analyzer()


@loaded_once
def _numbers() -> Any:
    """One shared ``ukr_numbers.nums.Numbers`` that raises on failure and reads -1 as "last"."""
    nums = require("ukr_numbers.nums", "ua", _PURPOSE)
    # It warns on every multi-word number ("двадцять першому"); tests check those forms, so the warning on each
    # long sentence would only be noise.
    logging.getLogger("ukr_numbers.nums").setLevel(logging.ERROR)
    return nums.Numbers(graceful_failure=False, negative_one_is_last=True)


@loaded_once
def _numeral_lemmas() -> dict[str, str]:
    """Dictionary forms of the one-word Ukrainian numerals from num2words, mapped to their kind.

    A capitalised word counts as a numeral only if its lemma is here (plus ``останній``), so an ordinary adjective
    in capitals (``ВЕЛИКЕ``) is refused instead of being silently treated as an ordinal.
    """
    num2words = require("num2words", "ua", _PURPOSE).num2words
    lemmas = {"останній": "ordinal"}
    for k in range(1, 1000):
        lemmas[num2words(k, lang="uk", to="ordinal").split()[-1]] = "ordinal"
        lemmas[num2words(k, lang="uk").split()[-1]] = "cardinal"
    return lemmas


def find_numerals(template: str) -> list[str]:
    """The capitalised words of ``template`` in order: the numeral slots of section 3.2.5 (``["ПЕРШОМУ"]``)."""
    return CAPITALISED_WORD.findall(template)


@lru_cache(maxsize=256)
def parse_numeral(word: str) -> NumeralForm:
    """Read type and morphology of a capitalised numeral with pymorphy3 (``"ПЕРШОМУ"`` -> ordinal, datv, masc).

    Where the dictionary gives several readings (``першому`` is dative or locative, masculine or neuter) the first
    one is kept, as ``ukr_numbers`` does; those readings share one written form, so the rendered number is the same.
    Raises :class:`InputError` naming the word if no reading is a Ukrainian numeral.
    """
    lemmas = _numeral_lemmas()
    for parse in _morph().parse(word.lower()):
        if parse.tag.POS in _NUMERAL_POS and parse.normal_form in lemmas:
            kind: Literal["ordinal", "cardinal"] = "ordinal" if parse.tag.POS == "ADJF" else "cardinal"
            tag = parse.tag
            return NumeralForm(word, kind, parse.normal_form, tag.case, tag.gender, tag.number)
    raise InputError(
        f"template numeral {word!r} is not a Ukrainian numeral pymorphy3 can read; write the slot as a capitalised "
        "ordinal or cardinal such as ПЕРША, ПЕРШОМУ or ОДИН (Eval-UA-tion section 3.2.5)"
    )


def inflect_number(n: int, form: NumeralForm) -> str | None:
    """``n`` as a lower-case Ukrainian numeral in ``form`` (``5`` with ``ПЕРШОМУ`` -> ``"п'ятому"``).

    ``n == -1`` gives "last" (``останньому``) for an ordinal and ``None`` for a cardinal, which has no such word;
    the published LMES data leaves out the ``під номером ОДИН`` question for the last letter for that reason.
    """
    _check_needle(n)
    if n == LAST and form.kind == "cardinal":
        return None
    try:
        return _numbers().convert_to_auto(n, form.word.lower())
    except ValueError as error:
        raise InputError(f"cannot inflect {n} like template numeral {form.word!r}: {error}") from None


@lru_cache(maxsize=4096)  # a generator fills the same few templates with the same few positions
def fill_numerals(template: str, n: int) -> str | None:
    """Replace every capitalised numeral of ``template`` with ``n`` in its form (section 3.2.5).

    The numeral is written in lower case, as in the published instances (``Яка п'ята літера ...``), and gets a
    capital first letter only when it opens the template. Returns ``None`` if some slot cannot express ``n``
    (a cardinal slot and ``n == -1``); raises :class:`InputError` for an unknown capitalised word.
    """
    _check_needle(n)
    pieces: list[str] = []
    end = 0
    for match in CAPITALISED_WORD.finditer(template):
        rendered = inflect_number(n, parse_numeral(match.group()))
        if rendered is None:
            return None
        if not template[: match.start()].strip():
            rendered = rendered[:1].upper() + rendered[1:]
        pieces += [template[end : match.start()], rendered]
        end = match.end()
    return "".join(pieces) + template[end:]


def _check_needle(n: int) -> None:
    """Positions are 1-based and -1 is "last" (as in the published ``needle``); anything else is refused."""
    if n < 1 and n != LAST:
        raise InputError(f"a position must be 1 or more, or -1 for the last one; got {n}")
