"""The languages of SemEval-2025 Task 11 (BRIGHTER), one :class:`Language` record each, said once and cheap to import:
the dataset loaders, the language identifier (read on every ``affectlab detect``), the keyword detector and the
default model's routes all derive their tables from :data:`LANGUAGES`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from affectlab.labels import EKMAN
from affectlab.registry import Registry

SPLITS = ("train", "dev", "test")
"""The splits of SemEval-2025 track A, and of track B where a language has them all."""


@dataclass(frozen=True)
class Language:
    """One language of SemEval-2025 Task 11: ``tag`` is what each row's ``lang`` gets (ISO 639-1 where there is
    one, else 639-3; the two Portuguese sets by region), ``code`` the task's file name for it in both tracks
    (``track_a/{split}/{code}.csv``), ``aliases`` the other codes a caller or a dataset may give for it (ISO
    639-3 or 639-2 forms, spellings CLD3 returns, a region's Arabic: ``ar-dz``; other BCP 47 tags are matched by
    :func:`affectlab.langid.normalise`), ``emotions`` the Ekman emotion columns its files annotate,
    ``has_neutral`` whether any of its rows carries no emotion, and ``intensity_splits`` the splits track B rates
    its intensities in (none where track B leaves it out)."""

    tag: str
    code: str
    name: str
    aliases: tuple[str, ...] = ()
    emotions: tuple[str, ...] = EKMAN.emotion_labels
    has_neutral: bool = True
    intensity_splits: tuple[str, ...] = ()

    @property
    def codes(self) -> tuple[str, ...]:
        """Every code that names this language, lower-cased: its tag, its file code and its aliases."""
        return (self.tag.lower(), self.code, *self.aliases)

    @property
    def full_ekman(self) -> bool:
        """Whether it annotates all six emotions and has neutral texts (its label space is the whole Ekman one)."""
        return self.emotions == EKMAN.emotion_labels and self.has_neutral


def _without(emotion: str) -> tuple[str, ...]:
    return tuple(label for label in EKMAN.emotion_labels if label != emotion)


LANGUAGES: Registry[Language] = Registry("language")
"""The 28 languages of track A by tag, in the order of their file codes."""
for _language in (
    Language("af", "afr", "Afrikaans", emotions=_without("surprise")),
    Language("am", "amh", "Amharic", intensity_splits=SPLITS),
    Language("arq", "arq", "Algerian Arabic", aliases=("ar-dz",), intensity_splits=SPLITS),
    Language("ary", "ary", "Moroccan Arabic", aliases=("ar", "ara", "ar-ma")),  # Arabic: the larger training set
    Language("zh", "chn", "Chinese", aliases=("zho", "cmn", "zh-latn"), intensity_splits=SPLITS),
    Language("de", "deu", "German", aliases=("ger",), intensity_splits=SPLITS),
    Language("en", "eng", "English", emotions=_without("disgust"), intensity_splits=SPLITS),
    Language("es", "esp", "Spanish", aliases=("spa",), has_neutral=False, intensity_splits=SPLITS),
    Language("ha", "hau", "Hausa", intensity_splits=SPLITS),
    Language("hi", "hin", "Hindi"),
    Language("ig", "ibo", "Igbo"),
    Language("rw", "kin", "Kinyarwanda"),
    Language("mr", "mar", "Marathi"),
    Language("om", "orm", "Oromo"),
    Language("pcm", "pcm", "Nigerian Pidgin"),
    Language("pt-BR", "ptbr", "Brazilian Portuguese", aliases=("por", "pt"), intensity_splits=SPLITS),  # likewise
    Language("pt-MZ", "ptmz", "Mozambican Portuguese"),
    Language("ro", "ron", "Romanian", intensity_splits=("dev", "test")),
    Language("ru", "rus", "Russian", intensity_splits=SPLITS),
    Language("so", "som", "Somali"),
    Language("su", "sun", "Sundanese"),
    Language("sw", "swa", "Swahili"),
    Language("sv", "swe", "Swedish"),
    Language("tt", "tat", "Tatar"),
    Language("ti", "tir", "Tigrinya"),
    Language("uk", "ukr", "Ukrainian", intensity_splits=SPLITS),
    Language("vmw", "vmw", "Emakhuwa"),
    Language("yo", "yor", "Yoruba"),
):
    LANGUAGES.add(_language.tag, _language)

FIRST_LANGUAGES: tuple[str, ...] = ("uk", "en", "es")
"""The first three languages, in this order: Ukrainian, English and Spanish (EmoBench-UA and the SemEval-2025
subsets the project began with). The keyword detector's languages, a router's default members, the default model's
first routes and the heads' larger n-gram members are these; every other list of them derives from this one."""
FIRST_CODES: tuple[str, ...] = tuple(LANGUAGES.get(tag).code for tag in FIRST_LANGUAGES)
"""The same three by their SemEval-2025 file codes (``ukr``, ``eng``, ``esp``)."""

BY_CODE = {language.code: language for _, language in LANGUAGES.items()}
"""The same records by their SemEval-2025 file code (``ukr``, ``ptbr``, ...)."""
BRIGHTER_LANGS = {code: language.tag for code, language in BY_CODE.items()}
"""Track A's language codes and the tag each row's ``lang`` gets."""
BRIGHTER_LANGUAGE_NAMES = {code: language.name for code, language in BY_CODE.items()}
"""Track A's language codes and the languages' English names."""


def tags_by_code(tags: Iterable[str] | None = None) -> dict[str, str]:
    """Every code that names one of the languages ``tags`` (all when None), lower-cased, mapped to its tag."""
    chosen = [LANGUAGES.get(tag) for tag in tags] if tags is not None else list(BY_CODE.values())
    return {code: language.tag for language in chosen for code in language.codes}
