"""What both references do so that deleted text leaves every file of a state folder: SQLite's
WAL keeps each page a transaction wrote, deleted text included, until a checkpoint copies it
into the database and truncates the log."""

from __future__ import annotations

import sqlite3


def checkpoint(connection: sqlite3.Connection) -> bool:
    """Copy the WAL into the database and truncate it to nothing (outside any transaction).
    False when another connection's reader or writer kept it from completing."""
    try:
        busy, _, _ = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except sqlite3.OperationalError:  # locked past the busy timeout
        return False
    return busy == 0
