import json

import numpy as np
import pytest

from affectlab.errors import InputError, UnknownNameError
from affectlab.labels import (
    EKMAN,
    EMOCONTEXT,
    GOEMOTIONS,
    GOEMOTIONS_TO_EKMAN,
    GOEMOTIONS_TO_SENTIMENT,
    get_label_space,
    map_labels,
)


def test_ekman_order_is_the_semeval_column_order():
    assert EKMAN.labels == ("anger", "disgust", "fear", "joy", "sadness", "surprise", "none")


def test_goemotions_order_matches_emotions_txt(data_dir):
    names = (data_dir / "goemotions" / "emotions.txt").read_text().split()
    assert list(GOEMOTIONS.labels) == names


def test_ekman_mapping_matches_the_released_file(data_dir):
    released = json.loads((data_dir / "goemotions" / "ekman_mapping.json").read_text())
    ours = {group: sorted(k for k, v in GOEMOTIONS_TO_EKMAN.items() if v == group) for group in released}
    assert ours == {group: sorted(members) for group, members in released.items()}
    assert GOEMOTIONS_TO_EKMAN["neutral"] == "none"


def test_sentiment_mapping_matches_the_released_file(data_dir):
    released = json.loads((data_dir / "goemotions" / "sentiment_dict.json").read_text())
    ours = {group: sorted(k for k, v in GOEMOTIONS_TO_SENTIMENT.items() if v == group) for group in released}
    assert ours == {group: sorted(members) for group, members in released.items()}


def test_every_goemotions_label_is_mapped():
    assert set(GOEMOTIONS_TO_EKMAN) == set(GOEMOTIONS.labels) == set(GOEMOTIONS_TO_SENTIMENT)


def test_ukrainian_words_are_those_of_the_emobench_prompts():
    assert [EKMAN.word(label, "uk") for label in ("joy", "anger", "fear", "sadness", "surprise", "disgust")] == [
        "радість",
        "злість",
        "страх",
        "сум",
        "здивування",
        "огида",
    ]


def test_canonical_accepts_words_in_any_language_and_case():
    assert EKMAN.canonical("Радість") == "joy"
    assert EKMAN.canonical("miedo") == "fear"
    assert EKMAN.canonical(" Anger ") == "anger"
    with pytest.raises(InputError, match="not in label space"):
        EKMAN.canonical("love")


def test_map_labels_merges_groups_in_target_order():
    assert map_labels(["annoyance", "anger", "joy"], GOEMOTIONS_TO_EKMAN, EKMAN) == ["anger", "joy"]
    assert map_labels(["neutral", "fear"], GOEMOTIONS_TO_EKMAN, EKMAN) == ["fear", "none"]


def test_encode_decode_round_trip():
    rows = [["happy"], ["others"], ["sad"]]
    matrix = EMOCONTEXT.encode(rows)
    assert matrix.tolist() == [[1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]]
    assert EMOCONTEXT.decode(matrix) == rows
    with pytest.raises(InputError):
        EMOCONTEXT.encode([["joy"]])
    assert np.array_equal(EKMAN.encode([]), np.zeros((0, 7)))


def test_unknown_label_space_suggests_a_name():
    with pytest.raises(UnknownNameError, match="did you mean 'ekman'"):
        get_label_space("ekmann")
