"""``select_by_keys``: lookups of more keys than SQLite binds in one statement, duplicates asked once."""

import sqlite3

from affectlab.io.sqlite import KEYS_PER_QUERY, select_by_keys

QUERY = "SELECT key, value FROM cache WHERE key IN ({marks})"


def make_db(n: int) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE cache (key BLOB PRIMARY KEY, value TEXT)")
    db.executemany("INSERT INTO cache VALUES (?, ?)", [(str(i).encode(), f"v{i}") for i in range(n)])
    return db


def test_more_keys_than_one_statement_binds_are_all_found():
    n = 2 * KEYS_PER_QUERY + 7
    rows = dict(select_by_keys(make_db(n), QUERY, [str(i).encode() for i in range(n)]))
    assert len(rows) == n and rows[b"1000"] == "v1000"


def test_missing_keys_are_left_out_and_duplicates_give_one_row():
    rows = select_by_keys(make_db(3), QUERY, [b"1", b"1", b"missing", b"2"])
    assert sorted(rows) == [(b"1", "v1"), (b"2", "v2")]
