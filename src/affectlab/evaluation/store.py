"""The results store: every ``affectlab eval`` run record (model, config, dataset, split, metrics, n, seconds,
library versions, git commit) in one SQLite file, for ``affectlab runs list|show|compare`` and
``affectlab leaderboard``.

The file is ``$AFFECTLAB_RUNS_DB`` when set, else ``runs.sqlite`` in the user data directory (platformdirs:
``~/.local/share/affectlab`` on Linux). The whole record is kept as JSON beside the columns that lists and
leaderboards filter and sort on; SQLite's own locking keeps concurrent writers (two evals at once) safe.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from affectlab.errors import InputError

RUNS_DB_ENV = "AFFECTLAB_RUNS_DB"
SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    model TEXT NOT NULL,
    label TEXT NOT NULL,
    dataset TEXT NOT NULL,
    split TEXT NOT NULL,
    n INTEGER NOT NULL,
    seconds REAL,
    metric TEXT,
    value REAL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_dataset ON runs (dataset, split);
CREATE TABLE IF NOT EXISTS outputs (
    run_id INTEGER PRIMARY KEY REFERENCES runs (id),
    data BLOB NOT NULL
);
"""
TEXT_CHARS = 500
"""Texts are kept up to this many characters, for the reports' error examples."""


def default_path() -> Path:
    """``$AFFECTLAB_RUNS_DB`` or the user data directory's ``runs.sqlite``."""
    if os.environ.get(RUNS_DB_ENV):
        return Path(os.environ[RUNS_DB_ENV]).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("affectlab")) / "runs.sqlite"


def model_label(record: dict[str, Any]) -> str:
    """A short name for a run's model: what was passed as ``--model`` (``model_ref``; a path shortened to its last
    part, ``hf:/x/y`` to ``hf:y``), else the model kind."""
    ref = str(record.get("model_ref") or record.get("model", "?"))
    prefix, sep, rest = ref.rpartition(":") if ref.startswith(("hf:", "llm:")) else ("", "", ref)
    head, *flags = rest.split(" ")
    short = Path(head).name or head if "/" in head else head
    return " ".join([f"{prefix}{sep}{short}", *flags])


def _pack(outputs: dict[str, Any]) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        probs=np.asarray(outputs["probs"], dtype=np.float16),
        pred=np.asarray(outputs["pred"], dtype=np.int8),
        gold=np.asarray(outputs["gold"], dtype=np.int8),
        ids=np.array([str(i) for i in outputs["ids"]]),
        texts=np.array([str(t)[:TEXT_CHARS] for t in outputs["texts"]]),
    )
    return buffer.getvalue()


class RunStore:
    """The runs in one SQLite file (created on first use)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with closing(sqlite3.connect(self.path, timeout=30)) as connection:
                connection.executescript(SCHEMA)
                with connection:
                    yield connection
        except sqlite3.DatabaseError as exc:
            raise InputError(f"cannot use the runs database {self.path} ({exc})") from None
        except OSError as exc:
            raise InputError(f"cannot use the runs database {self.path} ({exc.strerror or exc})") from None

    def add(self, record: dict[str, Any], outputs: dict[str, Any] | None = None) -> int:
        """Store an eval run record (and its per-text ``outputs``); returns its id."""
        primary = (record.get("metrics") or {}).get("primary") or {}
        row = (
            datetime.now(UTC).isoformat(timespec="seconds"),
            str(record["model"]),
            model_label(record),
            str(record["dataset"]),
            str(record["split"]),
            int(record["n"]),
            record.get("seconds"),
            primary.get("name"),
            primary.get("value"),
            json.dumps(record, ensure_ascii=False, default=str),
        )
        with self._connect() as db:
            cursor = db.execute(
                "INSERT INTO runs (created, model, label, dataset, split, n, seconds, metric, value, record) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
            run_id = int(cursor.lastrowid or 0)
            if outputs is not None:
                db.execute("INSERT INTO outputs (run_id, data) VALUES (?, ?)", (run_id, _pack(outputs)))
            return run_id

    def outputs(self, run_id: int) -> dict[str, Any] | None:
        """A run's per-text outputs, or None when they were not kept."""
        with self._connect() as db:
            row = db.execute("SELECT data FROM outputs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            return None
        with np.load(io.BytesIO(row[0]), allow_pickle=False) as arrays:
            return {
                "probs": arrays["probs"].astype(np.float64),
                "pred": arrays["pred"],
                "gold": arrays["gold"],
                "ids": arrays["ids"].tolist(),
                "texts": arrays["texts"].tolist(),
            }

    def list(
        self, dataset: str | None = None, model: str | None = None, limit: int = 50
    ) -> builtins.list[dict[str, Any]]:
        """The newest runs first (filtered by dataset and by model kind or label substring)."""
        query, args = "SELECT id, created, label, dataset, split, n, seconds, metric, value FROM runs", []
        where = []
        if dataset:
            where.append("dataset = ?")
            args.append(dataset)
        if model:
            where.append("(model = ? OR label LIKE ?)")
            args += [model, f"%{model}%"]
        if where:
            query += " WHERE " + " AND ".join(where)
        query += " ORDER BY id DESC LIMIT ?"
        with self._connect() as db:
            rows = db.execute(query, [*args, limit]).fetchall()
        keys = ("id", "created", "model", "dataset", "split", "n", "seconds", "metric", "value")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def get(self, run_id: int) -> dict[str, Any]:
        """One run's full record (with its ``id`` and ``created``)."""
        with self._connect() as db:
            row = db.execute("SELECT id, created, record FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise InputError(f"no run {run_id} in {self.path}")
        return {"id": row[0], "created": row[1], **json.loads(row[2])}

    def leaderboard(self, dataset: str, split: str = "test") -> builtins.list[dict[str, Any]]:
        """The best run (by the primary metric) of each model label on ``dataset``/``split``, best first; runs
        scored on part of the split (``eval --limit``) rank below all runs on the whole of it, and a model's part
        run appears only when it has no whole one. Each run gets ``partial`` and ``split_size`` (the split's texts:
        as recorded, or for a run recorded without it the most texts any run on the split scored)."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, record FROM runs WHERE dataset = ? AND split = ? ORDER BY value DESC, id DESC",
                (dataset, split),
            ).fetchall()
        records = [{"id": run_id, **json.loads(record_json)} for run_id, record_json in rows]
        largest = max((record["n"] for record in records), default=0)
        for record in records:
            record["split_size"] = record.get("split_size") or largest
            record["partial"] = record["n"] < record["split_size"]
        best: dict[str, dict[str, Any]] = {}
        for record in sorted(records, key=lambda record: record["partial"]):  # stable: by value within each
            best.setdefault(model_label(record), record)
        return sorted(best.values(), key=lambda record: record["partial"])
