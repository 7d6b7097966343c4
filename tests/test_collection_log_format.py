"""The collection log's format is a contract (issue 53): a log written before the events were typed (commit 55c8e16;
``tests/fixtures/collection_log/record.py`` made it) replays with today's code to the state that code derived, and
every event kind round-trips through its typed record."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from affectlab.collection.events import KINDS, decode
from affectlab.collection.log import Event
from affectlab.collection.state import CollectionState
from affectlab.errors import InputError

FIXTURE = Path(__file__).parent / "fixtures" / "collection_log"
sys.path.insert(0, str(FIXTURE))
from state_summary import summary  # noqa: E402


def _events() -> list[Event]:
    lines = FIXTURE.joinpath("log_v1.jsonl").read_text(encoding="utf-8").splitlines()
    return [Event(row["seq"], row["at"], row["kind"], row["annotator"], row["data"]) for row in map(json.loads, lines)]


def test_an_old_log_replays_to_the_state_its_own_code_derived():
    state = CollectionState()
    for event in _events():
        state.apply(event)
    expected = json.loads(FIXTURE.joinpath("state_v1.json").read_text(encoding="utf-8"))
    assert json.loads(json.dumps(summary(state))) == expected


def test_every_logged_event_is_its_typed_record_and_writes_back_the_same_fields():
    events = _events()
    assert {event.kind for event in events} <= set(KINDS)
    for event in events:
        record = decode(event.kind, event.data)
        written = json.loads(json.dumps(record.data()))
        for answer in written.get("answers", []):
            assert answer.pop("other") is False  # a field added since: its default for an old log
        assert written == json.loads(json.dumps(event.data))


def test_an_unknown_kind_or_field_is_one_line_naming_it():
    with pytest.raises(InputError, match="'promoted'"):
        decode("promoted", {})
    with pytest.raises(InputError, match="'colour'"):
        decode("trained", {"stage": "s", "colour": "red"})
