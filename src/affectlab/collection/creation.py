"""Making a collection project file: the protocol, the items and the control answers checked together (each
refusal one line), the owner token made (shown once, stored hashed), and the first stages opened."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from affectlab.annotation.protocol import duration_seconds, protocol_from_data
from affectlab.collection.access import new_token, token_hash
from affectlab.collection.events import Entry, StageOpened
from affectlab.collection.log import EventLog, Item
from affectlab.collection.project import DEFAULT_RESERVATION, MIN_RESERVATION_SECONDS, Clock, Project
from affectlab.errors import InputError


def create_project(
    path: str, protocol_text: str, items: Sequence[Item], gold: Mapping[tuple[str, str], float],
    seed: int = 0, reservation: str = DEFAULT_RESERVATION, clock: Clock = time.time,
) -> tuple[Project, str]:  # fmt: skip
    """A new project file at ``path`` and its owner token (shown once; only its hash is kept). The first stages
    (those without a gate) open at once with every item that is not a control task."""
    import yaml

    protocol = protocol_from_data(yaml.safe_load(protocol_text), "the protocol")
    ids = [item.id for item in items]
    if len(set(ids)) != len(ids):
        raise InputError("the items have a repeated id")
    unknown = sorted({item for item, _ in gold} - set(ids))
    if unknown:
        raise InputError(f"control task {unknown[0]!r} is not among the items")
    known = {choice.name for choice in protocol.labels}
    off_protocol = sorted({label for _, label in gold} - known)
    if off_protocol:
        raise InputError(f"control answers name {off_protocol[0]!r}, which is not a label of the protocol")
    held = duration_seconds(reservation)
    if held < MIN_RESERVATION_SECONDS:
        raise InputError(f"--reservation must hold a page at least {MIN_RESERVATION_SECONDS // 60} minute, not "
                         f"{reservation!r} (each page would expire before it is sent back)")  # fmt: skip
    controls = {item for item, _ in gold}
    items = [Item(it.id, it.text, it.context, it.id in controls) for it in items]
    token = new_token()
    meta = {"protocol": protocol_text, "seed": str(seed), "owner_token_hash": token_hash(token),
            "reservation_seconds": str(held), "created_at": str(clock())}  # fmt: skip
    log = EventLog.create(path, meta, items, gold)
    project = Project(log, clock)
    ordinary = [item.id for item in items if not item.control]
    opened: list[Entry] = [(None, StageOpened(stage.name, tuple(ordinary))) for stage in protocol.stages
                           if stage.gate is None]  # fmt: skip
    project.append_events(opened)
    return project, token
