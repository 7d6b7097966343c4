"""The one file of a collection project: SQLite, holding the protocol, the items, the control answers and an
append-only log of every event, from which all other state derives (:mod:`.state`).

The ``events`` table refuses ``UPDATE`` and ``DELETE`` (triggers); each event is committed before the server
answers the request that made it, in WAL mode, so a killed process (``kill -9``) loses no answered request and a
restart replays the log into the same state. Times are the server's (seconds since the epoch), never a client's.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from affectlab.collection.events import Entry
from affectlab.errors import InputError

FORMAT = "affectlab-collection"
FORMAT_VERSION = 1
SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE items (
    id TEXT PRIMARY KEY, position INTEGER NOT NULL, text TEXT NOT NULL, context TEXT NOT NULL,
    control INTEGER NOT NULL
);
CREATE TABLE gold (item TEXT NOT NULL REFERENCES items(id), label TEXT NOT NULL, value REAL NOT NULL,
    PRIMARY KEY (item, label));
CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, kind TEXT NOT NULL, annotator TEXT,
    data TEXT NOT NULL
);
CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'append-only'); END;
"""


@dataclass(frozen=True)
class Event:
    """One line of the log: its sequence number, server time, kind, annotator (None: the owner's) and data."""

    seq: int
    at: float
    kind: str
    annotator: str | None
    data: Mapping[str, Any]


@dataclass(frozen=True)
class Item:
    """A text to annotate: its id, text, the dialogue turns before it and whether it is a control task."""

    id: str
    text: str
    context: tuple[str, ...] = ()
    control: bool = False


class EventLog:
    """The project file: read with :meth:`open`, made with :meth:`create`. Safe to share between threads (one
    connection, one lock); every :meth:`append` is one committed transaction."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._connection = connection
        self._lock = threading.Lock()
        self.path = path

    @classmethod
    def create(
        cls, path: str | Path, meta: Mapping[str, str], items: Sequence[Item],
        gold: Mapping[tuple[str, str], float],
    ) -> EventLog:  # fmt: skip
        """A new project file at ``path`` (refused when one exists), holding ``meta``, ``items`` and the control
        answers ``gold`` (``(item, label) -> value``), written in one transaction."""
        target = Path(path)
        if target.exists():
            raise InputError(f"{str(target)!r} already exists (a project file is never overwritten)")
        partial = target.with_name(f".{target.name}.partial")
        partial.unlink(missing_ok=True)
        connection = _connect(partial)
        with connection:
            connection.executescript(SCHEMA)
            rows = {"format": FORMAT, "format_version": str(FORMAT_VERSION), **meta}
            connection.executemany("INSERT INTO meta VALUES (?, ?)", rows.items())
            connection.executemany(
                "INSERT INTO items VALUES (?, ?, ?, ?, ?)",
                [(it.id, i, it.text, json.dumps(list(it.context)), int(it.control)) for i, it in enumerate(items)],
            )
            connection.executemany("INSERT INTO gold VALUES (?, ?, ?)", [(i, lb, v) for (i, lb), v in gold.items()])
        connection.close()
        for suffix in ("-wal", "-shm", "-journal"):
            # Left by an earlier file of the same name that was deleted without them: SQLite would replay that
            # file's write-ahead log into this new one (its events in a new project). Without their database
            # nothing can read them.
            target.with_name(target.name + suffix).unlink(missing_ok=True)
        partial.rename(target)
        return cls.open(target)

    @classmethod
    def open(cls, path: str | Path) -> EventLog:
        """The project file at ``path`` (one-line :class:`InputError` when it is missing or not one)."""
        source = Path(path)
        if not source.is_file():
            raise InputError(f"{str(source)!r} is not a project file (make one with `affectlab annotate create`)")
        connection = _connect(source)
        try:
            meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError:
            connection.close()
            raise InputError(f"{str(source)!r} is not an affectlab collection project") from None
        if meta.get("format") != FORMAT:
            connection.close()
            raise InputError(f"{str(source)!r} is not an affectlab collection project")
        if int(meta.get("format_version", 0)) > FORMAT_VERSION:
            connection.close()
            raise InputError(f"{str(source)!r} was written by a newer affectlab (format {meta['format_version']})")
        return cls(connection, source)

    def meta(self) -> dict[str, str]:
        """The project's settings (protocol text, seed, reservation time, owner token's hash, ...)."""
        with self._lock:
            return dict(self._connection.execute("SELECT key, value FROM meta").fetchall())

    def items(self) -> list[Item]:
        """Every item, in the order given at creation."""
        with self._lock:
            rows = self._connection.execute("SELECT id, text, context, control FROM items ORDER BY position")
            return [Item(i, text, tuple(json.loads(context)), bool(control)) for i, text, context, control in rows]

    def gold(self) -> dict[tuple[str, str], float]:
        """The control answers: ``(item, label) -> value``."""
        with self._lock:
            rows = self._connection.execute("SELECT item, label, value FROM gold").fetchall()
        return {(item, label): float(value) for item, label, value in rows}

    def append(self, at: float, entries: Sequence[Entry]) -> list[Event]:
        """Append ``(annotator, record)`` entries at server time ``at``, in one committed transaction: each line
        holds the record's kind and its fields as JSON (:mod:`.events`)."""
        with self._lock, self._connection:
            events = []
            for annotator, record in entries:
                kind, data = record.kind, record.data()
                text = json.dumps(data, ensure_ascii=False, sort_keys=True)
                cursor = self._connection.execute(
                    "INSERT INTO events (at, kind, annotator, data) VALUES (?, ?, ?, ?)", (at, kind, annotator, text)
                )
                events.append(Event(int(cursor.lastrowid or 0), at, kind, annotator, data))
            return events

    def events(self, after: int = 0) -> Iterator[Event]:
        """Every event after sequence number ``after``, oldest first."""
        with self._lock:
            rows = self._connection.execute(
                "SELECT seq, at, kind, annotator, data FROM events WHERE seq > ? ORDER BY seq", (after,)
            ).fetchall()
        for seq, at, kind, annotator, data in rows:
            yield Event(seq, at, kind, annotator, json.loads(data))

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._connection.close()


def _connect(path: Path) -> sqlite3.Connection:
    try:
        connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.DatabaseError as exc:
        raise InputError(f"cannot open {str(path)!r} as a project file ({exc})") from None
    connection.isolation_level = "DEFERRED"
    return connection
