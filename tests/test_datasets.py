"""Loaders on the real files: row and label counts are those of the MANIFEST.md files in shared/data."""

import csv
import json
from collections import Counter

import pytest

from affectlab.datasets import DATASETS, get_dataset, load_dataset, resolve_dataset, semeval2025
from affectlab.errors import DataNotFoundError, UnknownNameError
from affectlab.labels import EKMAN


def label_counts(split):
    return Counter(label for labels in split["labels"] for label in labels)


@pytest.mark.slow
def test_every_dataset_returns_the_standard_columns(data_dir):
    for name in DATASETS:
        data = load_dataset(name, data_dir)
        assert set(data) == set(DATASETS.get(name).splits) <= {"train", "dev", "test"} and {"dev", "test"} <= set(data)
        for split in data.values():
            assert split.column_names == ["id", "text", "context", "labels", "lang", "meta"]
            assert all(text.strip() for text in split["text"])
            assert all(labels for labels in split["labels"])


@pytest.mark.slow
def test_goemotions_counts(data_dir):
    data = load_dataset("goemotions", data_dir)
    assert {s: len(d) for s, d in data.items()} == {"train": 43410, "dev": 5426, "test": 5427}
    counts = label_counts(data["test"])
    assert counts["neutral"] == 1787 and counts["admiration"] == 504 and counts["grief"] == 6
    assert label_counts(data["train"])["neutral"] == 14219
    assert sum(len(labels) > 1 for labels in data["train"]["labels"]) == 7102


@pytest.mark.slow
def test_goemotions_unquotes_csv_style_texts(data_dir):
    texts = load_dataset("goemotions", data_dir)["train"]["text"]
    quoted = [t for t in texts if '"' in t]
    assert quoted and not any(t.startswith('"') and t.endswith('"') and '""' in t for t in quoted)


@pytest.mark.slow
def test_goemotions_ekman_view_equals_masive_ekman_release_row_by_row(data_dir):
    # MASIVE's goemo_ekman_test.csv: same ids in the same order; label ids 0-6 in Ekman order with 6 = neutral
    test = load_dataset("goemotions-ekman", data_dir)["test"]
    with open(data_dir / "masive_external" / "goemo_ekman_test.csv", encoding="utf-8", newline="") as f:
        released = list(csv.DictReader(f))
    assert test["id"] == [row["id"] for row in released]
    expected = [[EKMAN.labels[int(i)] for i in sorted(row["label"].split(","), key=int)] for row in released]
    assert test["labels"] == expected
    singles = Counter(labels[0] for labels in test["labels"] if len(labels) == 1)
    assert singles["joy"] == 1863 and singles["none"] == 1606 and singles["fear"] == 80  # MASIVE MANIFEST


@pytest.mark.slow
def test_goemotions_sentiment_view_has_four_labels(data_dir):
    spec, data = resolve_dataset("goemotions-sentiment", data_dir)
    assert set(label_counts(data["dev"])) == set(spec.label_space.labels)


@pytest.mark.slow
def test_emocontext_counts_and_turns(data_dir):
    data = load_dataset("emocontext", data_dir)
    assert {s: len(d) for s, d in data.items()} == {"train": 30160, "dev": 2755, "test": 5509}
    assert label_counts(data["train"]) == {"happy": 4243, "sad": 5463, "angry": 5506, "others": 14948}
    assert label_counts(data["test"]) == {"happy": 284, "sad": 250, "angry": 298, "others": 4677}
    first = data["train"][0]
    assert first["context"] == ["Don't worry  I'm girl", "hmm how do I know if you are"]
    assert first["text"] == "What's ur name?"  # no trailing CR from the CRLF line end
    assert not any(text.endswith("\r") for text in data["test"]["text"])


def test_emobench_ua_counts_and_none(data_dir):
    data = load_dataset("emobench-ua", data_dir)
    assert {s: len(d) for s, d in data.items()} == {"train": 2466, "dev": 249, "test": 2234}
    train = label_counts(data["train"])
    assert [train[e] for e in ("anger", "disgust", "fear", "joy", "sadness", "surprise")] == [
        98,
        86,
        172,
        412,
        333,
        196,
    ]
    test = label_counts(data["test"])
    assert [test[e] for e in ("anger", "disgust", "fear", "joy", "sadness", "surprise")] == [99, 79, 151, 368, 298, 175]
    assert all(labels == ["none"] or "none" not in labels for labels in data["test"]["labels"])
    assert set(data["test"]["lang"]) == {"uk"}


def test_semeval_eng_has_test_gold_from_track_b_and_no_name_rows(data_dir):
    spec, data = resolve_dataset("semeval2025-eng", data_dir)
    assert "disgust" not in spec.label_space.labels
    # 2764 train and 2765 test rows, less the 5 #NAME? rows in each
    assert {s: len(d) for s, d in data.items()} == {"train": 2759, "dev": 115, "test": 2760}
    assert "#NAME?" not in data["train"]["text"] and "#NAME?" not in data["test"]["text"]
    assert label_counts(data["train"])["fear"] == 1608  # 1610 in the MANIFEST, 2 of them on #NAME? rows
    assert sum(label_counts(data["test"]).values()) > 2760  # the blank track A gold was filled in


def test_semeval_esp_counts(data_dir):
    spec, data = resolve_dataset("semeval2025-esp", data_dir)
    assert "none" not in spec.label_space.labels
    train = label_counts(data["train"])
    assert [train[e] for e in ("anger", "disgust", "fear", "joy", "sadness", "surprise")] == [
        492,
        654,
        317,
        642,
        309,
        421,
    ]


def test_missing_data_file_names_the_file(tmp_path):
    (tmp_path / "goemotions").mkdir()
    with pytest.raises(DataNotFoundError, match=r"goemotions/train\.tsv"):
        load_dataset("goemotions", tmp_path)


def test_unknown_dataset_suggests_the_close_name():
    with pytest.raises(UnknownNameError, match="did you mean 'goemotions'"):
        get_dataset("goemotion")


BRIGHTER_ROWS = {
    "afr": (1222, 98, 1065), "amh": (3549, 592, 1774), "arq": (901, 100, 902), "ary": (1608, 267, 812),
    "chn": (2642, 200, 2642), "deu": (2603, 200, 2604), "hau": (2145, 356, 1080), "hin": (2556, 100, 1010),
    "ibo": (2880, 479, 1444), "kin": (2451, 407, 1231), "mar": (2415, 100, 1000), "orm": (3442, 574, 1721),
    "pcm": (3728, 620, 1870), "ptbr": (2226, 200, 2226), "ptmz": (1546, 257, 776), "ron": (1241, 123, 1119),
    "rus": (2679, 199, 1000), "som": (3392, 566, 1696), "sun": (924, 199, 926), "swa": (3307, 551, 1656),
    "swe": (1186, 200, 1188), "tat": (1000, 200, 1000), "tir": (3681, 614, 1840), "vmw": (1551, 258, 777),
    "yor": (2992, 497, 1500),
}  # fmt: skip
"""Track A rows of the 25 other BRIGHTER languages (shared/data/semeval2025_task11/MANIFEST.md; swe train less its one
#NAME? row, a spreadsheet error dropped as in English)."""


@pytest.mark.slow
def test_every_brighter_language_is_a_dataset_with_the_manifests_rows_and_the_official_metric(data_dir):

    assert len(semeval2025.LANGS) == 28 and set(BRIGHTER_ROWS) | {"ukr", "eng", "esp"} == set(semeval2025.LANGS)
    for lang, rows in BRIGHTER_ROWS.items():
        spec, data = resolve_dataset(f"semeval2025-{lang}", data_dir)
        assert tuple(len(data[split]) for split in ("train", "dev", "test")) == rows, lang
        assert spec.primary_metric == "macro_f1_emotions" and set(data["dev"]["lang"]) == {semeval2025.LANGS[lang]}
    assert get_dataset("semeval2025-afr").label_space.labels == ("anger", "disgust", "fear", "joy", "sadness", "none")
    assert get_dataset("emobench-ua").primary_metric == "macro_f1"  # EmoBench-UA keeps its paper's 7-label score


TRACK_B_ROWS = {  # the MANIFEST's, less the #NAME? rows of English (5 in train, 5 in test)
    "amh": (3549, 592, 1774), "arq": (901, 100, 902), "chn": (2642, 200, 2642), "deu": (2603, 200, 2604),
    "eng": (2758, 115, 2760), "esp": (1996, 184, 1695), "hau": (2145, 356, 1080), "ptbr": (2226, 200, 2226),
    "ron": (None, 123, 1119), "rus": (2220, 343, 650), "ukr": (2466, 249, 2234),
}  # fmt: skip


@pytest.mark.slow
def test_track_b_intensity_sets_have_the_manifests_rows_and_rate_each_emotion_0_to_3(data_dir):
    assert set(TRACK_B_ROWS) == set(semeval2025.INTENSITY_SPLITS)
    for lang, rows in TRACK_B_ROWS.items():
        spec, data = resolve_dataset(f"semeval2025-{lang}-intensity", data_dir)
        assert tuple(len(data[split]) if split in data else None for split in ("train", "dev", "test")) == rows, lang
        assert spec.primary_metric == "pearson_intensity" and spec.rates_intensity
        for row in data["dev"].select(range(50)):
            ratings = json.loads(row["meta"])["intensity"]
            assert set(ratings) == set(semeval2025.EMOTIONS[lang]) and set(ratings.values()) <= {0, 1, 2, 3}
            assert sorted(row["labels"]) == sorted([e for e, v in ratings.items() if v > 0] or ["none"])
    ukrainian = resolve_dataset("semeval2025-ukr-intensity", data_dir)[1]["test"]
    track_a = resolve_dataset("emobench-ua", data_dir)[1]["test"]
    assert ukrainian["labels"] == track_a["labels"]  # the MANIFEST: track A equals track B > 0 on every Ukrainian row
