"""The languages of SemEval-2025 Task 11 (BRIGHTER), said once and cheap to import: the dataset loaders and the
language identifier (read on every ``affectlab detect``) both take them from here."""

BRIGHTER_LANGS = {
    "afr": "af", "amh": "am", "arq": "arq", "ary": "ary", "chn": "zh", "deu": "de", "eng": "en", "esp": "es",
    "hau": "ha", "hin": "hi", "ibo": "ig", "kin": "rw", "mar": "mr", "orm": "om", "pcm": "pcm", "ptbr": "pt-BR",
    "ptmz": "pt-MZ", "ron": "ro", "rus": "ru", "som": "so", "sun": "su", "swa": "sw", "swe": "sv", "tat": "tt",
    "tir": "ti", "ukr": "uk", "vmw": "vmw", "yor": "yo",
}  # fmt: skip
"""Track A's language codes and the tag each row's ``lang`` gets (ISO 639-1 where there is one, else 639-3; the two
Portuguese sets by region)."""
BRIGHTER_LANGUAGE_NAMES = {
    "afr": "Afrikaans", "amh": "Amharic", "arq": "Algerian Arabic", "ary": "Moroccan Arabic", "chn": "Chinese",
    "deu": "German", "eng": "English", "esp": "Spanish", "hau": "Hausa", "hin": "Hindi", "ibo": "Igbo",
    "kin": "Kinyarwanda", "mar": "Marathi", "orm": "Oromo", "pcm": "Nigerian Pidgin", "ptbr": "Brazilian Portuguese",
    "ptmz": "Mozambican Portuguese", "ron": "Romanian", "rus": "Russian", "som": "Somali", "sun": "Sundanese",
    "swa": "Swahili", "swe": "Swedish", "tat": "Tatar", "tir": "Tigrinya", "ukr": "Ukrainian", "vmw": "Emakhuwa",
    "yor": "Yoruba",
}  # fmt: skip
