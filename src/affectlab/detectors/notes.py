"""What a reader of a detection should know, as notes beside its scores: the text was cut by the encoder, its
language could not be told, the model was not trained on it, it is Arabic in Latin letters, it was read sentence by
sentence, it holds several languages."""

from __future__ import annotations

from collections.abc import Sequence

from affectlab.detectors.base import Detector
from affectlab.detectors.documents import WHOLE_UP_TO
from affectlab.detectors.readings import reads_documents
from affectlab.langid import UNDETERMINED, arabizi, normalise, undetermined_reason


def unsupported_note(lang: str) -> str:
    """The one-line note for a text in a language the model was not trained on."""
    return f"the model was not trained on {lang!r} texts; take these scores as a guess"


def trained_on(trained: frozenset[str] | None, lang: str) -> bool | None:
    """Whether a model trained on the languages ``trained`` (None: it does not say) was trained on ``lang`` (a tag
    as given or identified: ``zh-Hant`` is Chinese)."""
    return None if trained is None else normalise(lang) in trained


def encoder_cut(detector: Detector, texts: Sequence[str]) -> int | None:
    """How many characters of a text ``detector``'s encoder reads, when one of ``texts`` is long enough to be cut
    (only a detector that reads each turn whole cuts: :func:`reads_documents`); None otherwise."""
    cut = detector.capabilities.max_chars
    if reads_documents(detector) or cut is None:
        return None
    return cut if any(len(text) > cut for text in texts) else None


def text_notes(text: str, cut: int | None, lang: str, supported: bool | None, by_sentences: bool = False) -> list[str]:
    """What a reader of a text's scores should know: the text was cut for the encoder (at ``cut`` characters, from
    :func:`encoder_cut`), and for a model that says which languages it was trained on (``supported`` not None),
    why its language was not identified (``und``), that the model was not trained on it (``supported`` False), or
    that it is Arabic in Latin letters (:data:`ARABIZI_NOTE`). ``by_sentences``: the text was read sentence by
    sentence (its language is theirs)."""
    notes = [f"only the first {cut} characters were read by the encoder"] if cut and len(text) > cut else []
    if supported is None:
        return notes
    if normalise(lang) == UNDETERMINED:
        return [*notes, undetermined_note(text, by_sentences)]
    if supported is False:
        return [*notes, unsupported_note(lang)]
    return notes + ([ARABIZI_NOTE] if normalise(lang) in ("ary", "arq") and arabizi(text) else [])


def undetermined_note(text: str, by_sentences: bool = False) -> str:
    """Why no language was told for ``text`` (:func:`~affectlab.langid.undetermined_reason`), as one line."""
    reason = undetermined_reason(text) or (
        "no sentence's language could be told" if by_sentences else "no language the identifier knows fits it"
    )
    return f"language not identified ({reason}): scored as a text of any language; take these scores as a guess"


ARABIZI_NOTE = (
    "Arabic in Latin letters (Arabizi), read as Moroccan Arabic: the model learnt from few such texts (about 280, none "
    "Algerian), so take these scores as a guess"
)
"""The note of a text in Latin-script Moroccan or Algerian Arabic (:func:`affectlab.langid.arabizi`): 283 of the
1,608 Moroccan training texts are Latin-script, and none of the Algerian ones."""


def languages_note(shares: dict[str, float]) -> str:
    """The line naming a document's languages with their shares (from
    :func:`~affectlab.detectors.documents.languages_shown`): ``languages: en 40 %, fi 20 %, ja 15 %``."""
    return "languages: " + ", ".join(f"{lang} {round(100 * share)} %" for lang, share in shares.items())


def document_notes(text: str, n_sentences: int | None, detector: Detector) -> list[str]:
    """A note that a long text was read sentence by sentence (how many, ``n_sentences``, when they were scored)."""
    if not reads_documents(detector) or len(text) <= WHOLE_UP_TO:
        return []
    count = "" if n_sentences is None else f" ({n_sentences})"
    return [f"read sentence by sentence{count}: the text is over {WHOLE_UP_TO:,} characters"]
