"""The reference server's SQLite store: one database file in the state folder, WAL journal.

Every mutation runs in one ``BEGIN IMMEDIATE`` transaction (``Store.write``): killing the process
at any instant leaves either all of a call's rows or none. Pending material is stored sealed
only; accepted records are kept in clear with their text in an FTS5 index.

Scopes are independent (DESIGN, Rulings / Scopes are independent): each (tenant, workspace) gets
a small number in ``scopes`` on its first write, its own dense event counter there, and its own
FTS5 table ``records_text_<number>``, so that BM25 statistics, candidate counts and cursors
depend on the scope's own history only. Table names are made from that integer, never from
tenant text.

``current_records`` holds, for each current record, the few columns that decide whether a
match is shown (``Store.matching``), keyed by the rowid it shares with ``records`` and the FTS5
row: about 70 bytes a row where a ``records`` row is about 1.8 kB, so the thousands of lookups
of a common word's matches read a few pages instead of one page each.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..at_rest import private_file
from ..erasure import checkpoint
from .sealing import Sealed

DATABASE_FILE = "memory.sqlite3"
_BATCH = 900  # rowids per IN (...) list, under SQLite's default variable limit
Scope = tuple[str, str]
#: A ``current_records`` row of scope ``?`` that may be shown at instant ``?`` (thrice): valid
#: then and not expired.
_CURRENT = (
    "scope_no = ? AND valid_t <= ? AND (valid_t_end IS NULL OR ? <= valid_t_end)"
    " AND (expires_at_ms IS NULL OR ? < expires_at_ms)"
)

#: The one FTS5 table of every scope in the versions before per-scope statistics.
SHARED_INDEX = "records_text"
#: ``PRAGMA user_version`` of the layout this version writes: 1 since ``current_records``
#: (folders of layout 0 get it filled at open, ``Store._migrate``).
LAYOUT = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scopes (
    scope_no INTEGER PRIMARY KEY,
    tenant TEXT NOT NULL, workspace TEXT NOT NULL, high_water INTEGER NOT NULL DEFAULT 0,
    UNIQUE (tenant, workspace)
);
CREATE TABLE IF NOT EXISTS events (
    scope_no INTEGER NOT NULL, cursor INTEGER NOT NULL,
    operation TEXT NOT NULL, target TEXT NOT NULL, at_ms INTEGER NOT NULL,
    PRIMARY KEY (scope_no, cursor)
);
CREATE TABLE IF NOT EXISTS idempotency (
    tenant TEXT NOT NULL, workspace TEXT NOT NULL, principal TEXT NOT NULL, key TEXT NOT NULL,
    tool TEXT NOT NULL, request_digest TEXT NOT NULL, value TEXT NOT NULL,
    PRIMARY KEY (tenant, workspace, principal, key)
);
CREATE TABLE IF NOT EXISTS candidates (
    candidate_id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL, workspace TEXT NOT NULL, state TEXT NOT NULL,
    payload_digest TEXT NOT NULL, created_cursor INTEGER NOT NULL,
    nonce BLOB, ciphertext BLOB, wrapped_key BLOB
);
CREATE TABLE IF NOT EXISTS records (
    record_id TEXT NOT NULL,
    tenant TEXT NOT NULL, workspace TEXT NOT NULL, state TEXT NOT NULL,
    payload_digest TEXT NOT NULL, record TEXT,
    valid_t INTEGER NOT NULL, valid_t_end INTEGER, expires_at_ms INTEGER,
    PRIMARY KEY (tenant, workspace, record_id)
);
CREATE INDEX IF NOT EXISTS records_by_digest ON records (tenant, workspace, payload_digest);
CREATE TABLE IF NOT EXISTS current_records (
    record_rowid INTEGER PRIMARY KEY, scope_no INTEGER NOT NULL, record_id TEXT NOT NULL,
    valid_t INTEGER NOT NULL, valid_t_end INTEGER, expires_at_ms INTEGER
);
CREATE TABLE IF NOT EXISTS key_check (
    only INTEGER PRIMARY KEY CHECK (only = 1), value BLOB NOT NULL
);
"""


@dataclass(frozen=True)
class Reservation:
    """The first outcome bound to an idempotency identity."""

    tool: str
    request_digest: str
    value: dict[str, Any]


@dataclass(frozen=True)
class Candidate:
    candidate_id: str
    state: str
    payload_digest: str
    created_cursor: int
    sealed: Sealed | None


@dataclass(frozen=True)
class StoredRecord:
    rowid: int
    record_id: str
    state: str
    payload_digest: str
    record: dict[str, Any] | None
    valid_t: int
    valid_t_end: int | None
    expires_at_ms: int | None
    scope: Scope


class EarlierSchema(ValueError):
    """The state folder was written by a version whose search index all scopes shared."""


def _text_table(scope_no: int) -> str:
    """The FTS5 table of one scope: named from its number only."""
    return f"records_text_{int(scope_no)}"


def _prefixes(ranks: list[float], cap: int) -> Iterator[tuple[int, int]]:
    """The spans of ranked matches (of those FTS5 ranks, best first) looked up in turn: the
    best ``cap`` and the matches that tie with the last of them first, then ``_BATCH`` more at
    a time. The first span is enough when its matches are all eligible, for they then rank
    strictly above the rest: a common word's matches often tie at the cut, by tens."""
    start, end = 0, min(cap, len(ranks))
    while 0 < end < len(ranks) and ranks[end] == ranks[end - 1]:
        end += 1
    while start < len(ranks):
        yield start, end
        start, end = end, min(end + _BATCH, len(ranks))


def _ranked_above(rows: list[tuple[float, str]], rank: float, cap: int) -> bool:
    """Whether at least ``cap`` of ``rows`` (FTS5 rank, record_id) rank strictly better than
    ``rank``."""
    return sum(1 for row_rank, _ in rows if row_rank < rank) >= cap


def _best(rows: list[tuple[float, str]], cap: int) -> list[tuple[str, float]]:
    """The ``cap`` best of ``rows`` (FTS5 rank, record_id), ties by record_id, as
    (record_id, score): the score is the rank negated, higher for better matches."""
    return [(record_id, -rank) for rank, record_id in sorted(rows)[:cap]]


class Store:
    """Data access only: the tools decide what to read and write."""

    def __init__(self, state_dir: Path) -> None:
        """An earlier version's state folder raises ``EarlierSchema`` (it is not migrated)."""
        path = Path(state_dir) / DATABASE_FILE
        private_file(path)  # 0600; SQLite gives its WAL and shared-memory files the same mode
        self.connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            self._open()
        except BaseException:
            self.connection.close()
            raise

    def _open(self) -> None:
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=NORMAL")
        self.connection.execute("PRAGMA secure_delete=ON")  # forgotten text is overwritten
        shared = self.connection.execute(
            "SELECT 1 FROM sqlite_master WHERE name = ?", (SHARED_INDEX,)
        ).fetchone()
        if shared is not None:
            raise EarlierSchema(
                "it was written by an earlier version of the reference, whose search index "
                "all scopes shared; this version keeps one per scope and does not migrate: "
                "start on an empty state folder"
            )
        self.connection.executescript(_SCHEMA)
        self._migrate()

    def _layout(self) -> int:
        return int(self.connection.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        """Bring a folder of layout 0 (no ``current_records``) to ``LAYOUT``: its table is
        filled from ``records`` in one transaction, checked again inside it, since another
        process may have opened the same folder meanwhile."""
        if self._layout() >= LAYOUT:
            return
        with self.write():
            if self._layout() >= LAYOUT:
                return
            self.connection.execute(
                "INSERT INTO current_records SELECT r.rowid, s.scope_no, r.record_id, r.valid_t,"
                " r.valid_t_end, r.expires_at_ms FROM records r JOIN scopes s"
                " ON s.tenant = r.tenant AND s.workspace = r.workspace"
                " WHERE r.state = 'accepted_current'"
            )
            self.connection.execute(f"PRAGMA user_version = {LAYOUT}")

    def close(self) -> None:
        self.connection.close()

    def key_check(self) -> bytes | None:
        """What the master key of this state sealed for its check (``Sealer.key_check``), if a
        key has been bound to it."""
        row = self.connection.execute("SELECT value FROM key_check").fetchone()
        return bytes(row[0]) if row else None

    def holds_sealed_material(self) -> bool:
        row = self.connection.execute(
            "SELECT 1 FROM candidates WHERE wrapped_key IS NOT NULL LIMIT 1"
        ).fetchone()
        return row is not None

    def bind_key_check(self, value: bytes) -> None:
        self.connection.execute("INSERT OR IGNORE INTO key_check VALUES (1, ?)", (value,))

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One atomic transaction: committed when the block ends, rolled back if it raises."""
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            yield self.connection
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")

    # scopes and events ---------------------------------------------------------------------
    def _scope_no(self, scope: Scope) -> int | None:
        """The scope's number, None for a scope that never wrote."""
        row = self.connection.execute(
            "SELECT scope_no FROM scopes WHERE tenant = ? AND workspace = ?", scope
        ).fetchone()
        return None if row is None else int(row[0])

    def _written_scope(self, scope: Scope) -> int:
        """The scope's number, given on its first write with its search index (in the write's
        transaction: a rollback takes both back)."""
        scope_no = self._scope_no(scope)
        if scope_no is None:
            row = self.connection.execute(
                "INSERT INTO scopes (tenant, workspace) VALUES (?, ?)", scope
            )
            scope_no = int(row.lastrowid)
            self.connection.execute(
                f"CREATE VIRTUAL TABLE {_text_table(scope_no)} USING fts5 (text)"
            )
        return scope_no

    def append_event(self, scope: Scope, operation: str, target: str, at_ms: int) -> int:
        """Journal one state change; its cursor is the scope's own, dense, and grows with every
        mutation of that scope only."""
        scope_no = self._written_scope(scope)
        (cursor,) = self.connection.execute(
            "UPDATE scopes SET high_water = high_water + 1 WHERE scope_no = ? RETURNING high_water",
            (scope_no,),
        ).fetchone()
        self.connection.execute(
            "INSERT INTO events VALUES (?, ?, ?, ?, ?)",
            (scope_no, cursor, operation, target, at_ms),
        )
        return int(cursor)

    def high_water(self, scope: Scope) -> int:
        """The scope's last cursor (0 before its first mutation)."""
        row = self.connection.execute(
            "SELECT high_water FROM scopes WHERE tenant = ? AND workspace = ?", scope
        ).fetchone()
        return 0 if row is None else int(row[0])

    # idempotency ------------------------------------------------------------------------
    def reservation(self, scope: Scope, principal: str, key: str) -> Reservation | None:
        row = self.connection.execute(
            "SELECT tool, request_digest, value FROM idempotency"
            " WHERE tenant = ? AND workspace = ? AND principal = ? AND key = ?",
            (*scope, principal, key),
        ).fetchone()
        return None if row is None else Reservation(row[0], row[1], json.loads(row[2]))

    def reserve(self, scope: Scope, principal: str, key: str, reservation: Reservation) -> None:
        self.connection.execute(
            "INSERT INTO idempotency VALUES (?, ?, ?, ?, ?, ?, ?)",
            (*scope, principal, key, reservation.tool, reservation.request_digest,
             json.dumps(reservation.value, ensure_ascii=False)),
        )  # fmt: skip

    # candidates -------------------------------------------------------------------------
    def insert_candidate(self, scope: Scope, candidate: Candidate, sealed: Sealed) -> None:
        self.connection.execute(
            "INSERT INTO candidates VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (candidate.candidate_id, *scope, candidate.state, candidate.payload_digest,
             candidate.created_cursor, sealed.nonce, sealed.ciphertext, sealed.wrapped_key),
        )  # fmt: skip

    def candidate(self, scope: Scope, candidate_id: str) -> Candidate | None:
        """The candidate of that id in that scope; another scope's id is as unknown as none."""
        row = self.connection.execute(
            "SELECT state, payload_digest, created_cursor, nonce, ciphertext, wrapped_key"
            " FROM candidates WHERE candidate_id = ? AND tenant = ? AND workspace = ?",
            (candidate_id, *scope),
        ).fetchone()
        if row is None:
            return None
        sealed = Sealed(row[3], row[4], row[5]) if row[5] is not None else None
        return Candidate(candidate_id, row[0], row[1], row[2], sealed)

    def end_candidate(self, candidate_id: str, state: str) -> None:
        """Move a pending candidate to ``state`` and destroy its key and ciphertext."""
        self.connection.execute(
            "UPDATE candidates SET state = ?, nonce = NULL, ciphertext = NULL, wrapped_key = NULL"
            " WHERE candidate_id = ?",
            (state, candidate_id),
        )

    # records ----------------------------------------------------------------------------
    def insert_record(
        self, scope: Scope, record: dict[str, Any], text: str, expires_at_ms: int | None
    ) -> None:
        times = record["valid_time"]["t"], record["valid_time"].get("t_end"), expires_at_ms
        row = self.connection.execute(
            "INSERT INTO records VALUES (?, ?, ?, 'accepted_current', ?, ?, ?, ?, ?)",
            (record["record_id"], *scope, record["payload_digest"],
             json.dumps(record, ensure_ascii=False), *times),
        )  # fmt: skip
        scope_no = self._written_scope(scope)
        self.connection.execute(
            "INSERT INTO current_records VALUES (?, ?, ?, ?, ?, ?)",
            (row.lastrowid, scope_no, record["record_id"], *times),
        )
        self.connection.execute(
            f"INSERT INTO {_text_table(scope_no)} (rowid, text) VALUES (?, ?)",  # noqa: S608
            (row.lastrowid, text),
        )

    def record(self, scope: Scope, record_id: str) -> StoredRecord | None:
        row = self.connection.execute(
            "SELECT rowid, state, payload_digest, record, valid_t, valid_t_end, expires_at_ms"
            " FROM records WHERE record_id = ? AND tenant = ? AND workspace = ?",
            (record_id, *scope),
        ).fetchone()
        if row is None:
            return None
        record = json.loads(row[3]) if row[3] is not None else None
        return StoredRecord(row[0], record_id, row[1], row[2], record, *row[4:], scope)

    def tombstone(self, stored: StoredRecord) -> None:
        """Make a record terminal: its body is erased, and it leaves ``current_records`` and
        its text the scope's index.

        Deleting an FTS5 row only adds delete markers: the terms stay in the older segments
        (SQLite 3.40's FTS5 has no secure-delete). Optimizing merges the scope's index into one
        segment without them; ``secure_delete`` zeroes the pages and cells this frees.
        """
        self.connection.execute(
            "UPDATE records SET state = 'tombstoned', record = NULL WHERE rowid = ?",
            (stored.rowid,),
        )
        self.connection.execute(
            "DELETE FROM current_records WHERE record_rowid = ?", (stored.rowid,)
        )
        scope_no = self._scope_no(stored.scope)
        assert scope_no is not None, "a record's scope has written"
        table = _text_table(scope_no)
        self.connection.execute(f"DELETE FROM {table} WHERE rowid = ?", (stored.rowid,))  # noqa: S608
        self.connection.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")  # noqa: S608

    def checkpoint(self) -> bool:
        """The WAL checkpointed and truncated (``erasure.checkpoint``), outside any
        transaction; False when another connection kept it from completing."""
        return checkpoint(self.connection)

    def tombstoned_payload(self, scope: Scope, payload_digest: str) -> bool:
        row = self.connection.execute(
            "SELECT 1 FROM records WHERE tenant = ? AND workspace = ? AND payload_digest = ?"
            " AND state = 'tombstoned' LIMIT 1",
            (*scope, payload_digest),
        ).fetchone()
        return row is not None

    def matching(self, scope: Scope, match: str, now_ms: int, cap: int) -> list[tuple[str, float]]:
        """(record_id, BM25 score) of the scope's current records matching an FTS5 query.

        Best first (FTS5's bm25 is lower for better matches), ties by record_id; at most ``cap``.
        The index is the scope's own: a scope that never wrote matches nothing. The fast path
        ranks the best ``2 * cap`` matches in the index alone and keeps the eligible ones (not
        expired, valid now), looked up best first (``_prefixes``); it stands once ``cap``
        eligible matches rank strictly better than any match not looked up or left out (so the
        order of ties at the cut, by rowid, never matters), or when every match was ranked.
        Otherwise the exact query ranks every match of the scope. Looking up only as many as
        that needs spares half the lookups of a common word's matches; each reads
        ``current_records``, not the wide ``records`` rows. The best are asked for by
        ``bm25()``, not by FTS5's ``rank`` column: the same scores, but ``ORDER BY rank`` makes
        FTS5 sort every match before the limit is applied, where SQLite keeps only the best
        ``2 * cap`` as it goes (a quarter faster for a word in most records).
        """
        scope_no = self._scope_no(scope)
        if scope_no is None:
            return []
        table = _text_table(scope_no)
        ranked = self.connection.execute(
            f"SELECT rowid, bm25({table}) AS score FROM {table}"  # noqa: S608 - a number
            f" WHERE {table} MATCH ? ORDER BY score LIMIT ?",
            (match, 2 * cap),
        ).fetchall()
        rows: list[tuple[float, str]] = []
        for start, end in _prefixes([rank for _, rank in ranked], cap):
            batch = ranked[start:end]
            eligible = self._eligible(scope_no, [rowid for rowid, _ in batch], now_ms)
            rows += [(rank, eligible[rowid]) for rowid, rank in batch if rowid in eligible]
            if end < len(ranked) and _ranked_above(rows, ranked[end][1], cap):
                return _best(rows, cap)
        every_match_ranked = len(ranked) < 2 * cap
        if not every_match_ranked and not _ranked_above(rows, ranked[-1][1], cap):
            rows = self.connection.execute(
                f"SELECT bm25({table}), record_id"  # noqa: S608 - CROSS JOIN: the index drives
                f" FROM {table} CROSS JOIN current_records ON record_rowid = {table}.rowid"
                f" WHERE {table} MATCH ? AND {_CURRENT}",
                (match, scope_no, now_ms, now_ms, now_ms),
            ).fetchall()
        return _best(rows, cap)

    def _eligible(self, scope_no: int, rowids: list[int], now_ms: int) -> dict[int, str]:
        """rowid -> record_id of those rows that are the scope's current, unexpired records."""
        found = {}
        for start in range(0, len(rowids), _BATCH):
            batch = rowids[start : start + _BATCH]
            rows = self.connection.execute(
                "SELECT record_rowid, record_id FROM current_records"  # noqa: S608 - placeholders
                f" WHERE record_rowid IN ({','.join('?' * len(batch))}) AND {_CURRENT}",
                (*batch, scope_no, now_ms, now_ms, now_ms),
            ).fetchall()
            found.update(rows)
        return found

    def records_by_id(self, scope: Scope, record_ids: list[str]) -> dict[str, dict[str, Any]]:
        """The bodies of the scope's records of those ids (two scopes may hold the same id: an
        id is made from the record, whose cursor is its scope's)."""
        placeholders = ",".join("?" * len(record_ids))
        rows = self.connection.execute(
            "SELECT record_id, record FROM records WHERE tenant = ? AND workspace = ?"  # noqa: S608
            f" AND record_id IN ({placeholders})",
            (*scope, *record_ids),
        ).fetchall()
        return {record_id: json.loads(body) for record_id, body in rows}
