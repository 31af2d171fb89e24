"""The mem reference's SQLite store: ``<state-dir>/mem.db``, WAL journal, parameterised SQL only.

Tables: ``sessions``, ``observations`` (the memories; a soft delete sets ``deleted_at``),
``prompts`` and ``judgments`` (the pending or judged relation of a saved memory to a candidate it
resembles, removed with either memory); ``observations_fts`` is an FTS5 index over title,
content, type and topic key, kept in step by triggers. Data access only: ``memories`` and the
tools decide what to read and write.

Times are UTC text ``YYYY-MM-DD HH:MM:SS.ffffff`` (sorting as text sorts them in time), taken
from a clock that never repeats or goes back within one process: a revision made in the same
microsecond as the save before it still gets a later ``updated_at``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..at_rest import private_file
from ..erasure import checkpoint

DATABASE_FILE = "mem.db"
TIME_FORMAT = "%Y-%m-%d %H:%M:%S.%f"
PERSONAL, PROJECT = "personal", "project"
DEFAULT_SESSION_PREFIX = "manual-save-"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, project TEXT NOT NULL, directory TEXT NOT NULL,
    started_at TEXT NOT NULL, ended_at TEXT, summary TEXT
);
CREATE TABLE IF NOT EXISTS observations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    type TEXT NOT NULL, title TEXT NOT NULL, content TEXT NOT NULL, tool_name TEXT,
    project TEXT NOT NULL, scope TEXT NOT NULL, topic_key TEXT, normalized_hash TEXT NOT NULL,
    revision_count INTEGER NOT NULL DEFAULT 1, duplicate_count INTEGER NOT NULL DEFAULT 1,
    last_seen_at TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    deleted_at TEXT
);
CREATE INDEX IF NOT EXISTS observations_by_topic ON observations (topic_key, project, scope);
CREATE INDEX IF NOT EXISTS observations_by_hash ON observations (normalized_hash, project);
CREATE INDEX IF NOT EXISTS observations_by_session ON observations (session_id, id);
CREATE TABLE IF NOT EXISTS prompts (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions (id),
    content TEXT NOT NULL, project TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS judgments (
    id TEXT PRIMARY KEY,
    source_id INTEGER NOT NULL REFERENCES observations (id) ON DELETE CASCADE,
    target_id INTEGER NOT NULL REFERENCES observations (id) ON DELETE CASCADE,
    relation TEXT, reason TEXT, evidence TEXT, confidence REAL, session_id TEXT,
    created_at TEXT NOT NULL, judged_at TEXT
);
CREATE INDEX IF NOT EXISTS judgments_by_target ON judgments (target_id);
CREATE VIRTUAL TABLE IF NOT EXISTS observations_fts USING fts5 (
    title, content, type, topic_key, content = 'observations', content_rowid = 'id'
);
CREATE TRIGGER IF NOT EXISTS observations_indexed AFTER INSERT ON observations BEGIN
    INSERT INTO observations_fts (rowid, title, content, type, topic_key)
    VALUES (new.id, new.title, new.content, new.type, new.topic_key);
END;
CREATE TRIGGER IF NOT EXISTS observations_unindexed AFTER DELETE ON observations BEGIN
    INSERT INTO observations_fts (observations_fts, rowid, title, content, type, topic_key)
    VALUES ('delete', old.id, old.title, old.content, old.type, old.topic_key);
END;
CREATE TRIGGER IF NOT EXISTS observations_reindexed AFTER UPDATE ON observations BEGIN
    INSERT INTO observations_fts (observations_fts, rowid, title, content, type, topic_key)
    VALUES ('delete', old.id, old.title, old.content, old.type, old.topic_key);
    INSERT INTO observations_fts (rowid, title, content, type, topic_key)
    VALUES (new.id, new.title, new.content, new.type, new.topic_key);
END;
"""
#: the columns a revision may set
REVISABLE = (
    "session_id",
    "type",
    "title",
    "content",
    "tool_name",
    "project",
    "scope",
    "topic_key",
    "normalized_hash",
)


@dataclass(frozen=True)
class Observation:
    """One memory row (its fields in the table's column order: rows are read with ``*``)."""

    id: int
    session_id: str
    type: str
    title: str
    content: str
    tool_name: str | None
    project: str
    scope: str
    topic_key: str | None
    normalized_hash: str
    revision_count: int
    duplicate_count: int
    last_seen_at: str
    created_at: str
    updated_at: str
    deleted_at: str | None


@dataclass(frozen=True)
class Session:
    id: str
    project: str
    directory: str
    started_at: str
    ended_at: str | None
    summary: str | None
    #: its live observations
    observations: int


@dataclass(frozen=True)
class Judgment:
    """A saved memory (``source_id``) and a live one it resembled (``target_id``); ``relation``
    is ``None`` until judged."""

    id: str
    source_id: int
    target_id: int
    relation: str | None
    reason: str | None
    evidence: str | None
    confidence: float | None
    session_id: str | None
    created_at: str
    judged_at: str | None


@dataclass(frozen=True)
class Prompt:
    content: str
    created_at: str


class Clock:
    """UTC instants that strictly increase, one microsecond apart at least."""

    def __init__(self) -> None:
        self._last: datetime | None = None

    def now(self) -> datetime:
        instant = datetime.now(UTC)
        if self._last is not None and instant <= self._last:
            instant = self._last + timedelta(microseconds=1)
        self._last = instant
        return instant


def stamp(instant: datetime) -> str:
    return instant.strftime(TIME_FORMAT)


def default_session(project: str) -> str:
    """The session of a project's writes when none is started, as upstream names it; made on
    first use, never started or ended by a caller."""
    return f"{DEFAULT_SESSION_PREFIX}{project}"


class Store:
    """One database file; one connection, used by one call at a time (the server's limiter)."""

    def __init__(self, state_dir: Path) -> None:
        path = Path(state_dir) / DATABASE_FILE
        private_file(path)  # 0600; SQLite gives its WAL and shared-memory files the same mode
        self.connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.clock = Clock()
        try:
            # secure_delete: freed pages and cells are zeroed, whatever the build's default
            pragmas = (
                "journal_mode=WAL",
                "synchronous=NORMAL",
                "foreign_keys=ON",
                "secure_delete=ON",
            )
            for pragma in pragmas:
                self.connection.execute(f"PRAGMA {pragma}")
            self.connection.executescript(_SCHEMA)
        except BaseException:
            self.connection.close()
            raise

    def close(self) -> None:
        self.connection.close()

    def now(self) -> str:
        return stamp(self.clock.now())

    def since(self, window: timedelta) -> str:
        """The instant ``window`` before now, as stored times compare with it."""
        return stamp(self.clock.now() - window)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic write: committed when the block ends, rolled back if it raises."""
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")

    def _rows(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[Observation]:
        return [Observation(*row) for row in self.connection.execute(sql, parameters)]

    def _first(self, sql: str, parameters: tuple[Any, ...]) -> Observation | None:
        rows = self._rows(sql + " LIMIT 1", parameters)
        return rows[0] if rows else None

    def _newest_live(self, condition: str, parameters: tuple[Any, ...]) -> Observation | None:
        """The most recently updated live row that meets ``condition`` (SQL over the columns,
        always one of this module's literals)."""
        return self._first(
            f"SELECT * FROM observations WHERE {condition} "  # noqa: S608 - a literal of ours
            "AND deleted_at IS NULL ORDER BY updated_at DESC, id DESC",
            parameters,
        )

    # sessions ------------------------------------------------------------------------------
    def ensure_session(self, session_id: str, project: str, directory: str = "") -> None:
        """Create the session if missing; an existing one only has its blanks filled."""
        self.connection.execute(
            "INSERT INTO sessions (id, project, directory, started_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET "
            "project = CASE WHEN project = '' THEN excluded.project ELSE project END, "
            "directory = CASE WHEN directory = '' THEN excluded.directory ELSE directory END",
            (session_id, project, directory, self.now()),
        )

    def session_project(self, session_id: str) -> str | None:
        """The project of a session (``None``: no such session), without counting its
        memories as ``session`` does."""
        row = self.connection.execute(
            "SELECT project FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        return None if row is None else str(row[0])

    def session(self, session_id: str) -> Session | None:
        sessions = self._sessions(session_id, None, 1)
        return sessions[0] if sessions else None

    def recent_sessions(self, project: str, limit: int) -> list[Session]:
        """A project's sessions, latest activity (newest observation, else start) first."""
        return self._sessions(None, project, limit)

    def _sessions(self, session_id: str | None, project: str | None, limit: int) -> list[Session]:
        rows = self.connection.execute(
            "SELECT s.id, s.project, s.directory, s.started_at, s.ended_at, s.summary, "
            "count(o.id), coalesce(max(o.created_at), s.started_at) AS active "
            "FROM sessions s LEFT JOIN observations o "
            "ON o.session_id = s.id AND o.deleted_at IS NULL "
            "WHERE (?1 IS NULL OR s.id = ?1) AND (?2 IS NULL OR s.project = ?2) "
            "GROUP BY s.id ORDER BY active DESC, s.rowid DESC LIMIT ?3",
            (session_id, project, limit),
        )
        return [Session(*row[:7]) for row in rows]

    def active_session(self, project: str, implicit: str) -> str | None:
        """The project's most recently started session that has not ended, the ``implicit``
        one (the project's default session, which no one starts) left out."""
        row = self.connection.execute(
            "SELECT id FROM sessions WHERE project = ? AND ended_at IS NULL AND id != ? "
            "ORDER BY started_at DESC, rowid DESC LIMIT 1",
            (project, implicit),
        ).fetchone()
        return None if row is None else str(row[0])

    def end_session(self, session_id: str, summary: str | None) -> None:
        self.connection.execute(
            "UPDATE sessions SET ended_at = ?, summary = ? WHERE id = ?",
            (self.now(), summary, session_id),
        )

    # observations: writes ------------------------------------------------------------------
    def insert_observation(self, values: dict[str, Any]) -> int:
        """A new row from ``values`` (the ``REVISABLE`` columns); its
        counters start at 1 and its times at now."""
        row = self.connection.execute(
            "INSERT INTO observations (session_id, type, title, content, tool_name, project, "
            "scope, topic_key, normalized_hash, last_seen_at, created_at, updated_at) VALUES "
            "(:session_id, :type, :title, :content, :tool_name, :project, :scope, :topic_key, "
            ":normalized_hash, :now, :now, :now)",
            {**values, "now": self.now()},
        )
        return int(row.lastrowid)  # type: ignore[arg-type]

    def revise(self, observation_id: int, changes: dict[str, Any], *, seen: bool) -> None:
        """Set ``changes`` (``REVISABLE`` columns): one more revision, ``updated_at`` now, and
        ``last_seen_at`` too when ``seen``."""
        unknown = set(changes) - set(REVISABLE)
        if unknown:
            raise ValueError(f"not revisable: {sorted(unknown)}")
        assignments = "".join(f"{column} = :{column}, " for column in changes)
        self.connection.execute(
            f"UPDATE observations SET {assignments}revision_count = revision_count + 1, "  # noqa: S608 - REVISABLE names only
            "updated_at = :now, last_seen_at = CASE WHEN :seen THEN :now ELSE last_seen_at END "
            "WHERE id = :id",
            {**changes, "now": self.now(), "seen": seen, "id": observation_id},
        )

    def seen_again(self, observation_id: int) -> None:
        """A duplicate absorbed: one more duplicate, ``last_seen_at`` now."""
        self.connection.execute(
            "UPDATE observations SET duplicate_count = duplicate_count + 1, last_seen_at = ? "
            "WHERE id = ?",
            (self.now(), observation_id),
        )

    def soft_delete(self, observation_id: int) -> None:
        now = self.now()
        self.connection.execute(
            "UPDATE observations SET deleted_at = ?, updated_at = ? "
            "WHERE id = ? AND deleted_at IS NULL",
            (now, now, observation_id),
        )

    def hard_delete(self, observation_id: int) -> None:
        """Remove a row and its terms from the index.

        Deleting an FTS5 row only adds delete markers: the terms stay in the older segments
        (SQLite 3.40's FTS5 has no secure-delete). Optimizing merges the index into one segment
        without them; ``secure_delete`` zeroes the pages and cells this frees. The WAL still
        holds them until ``checkpoint``."""
        self.connection.execute("DELETE FROM observations WHERE id = ?", (observation_id,))
        self.connection.execute(
            "INSERT INTO observations_fts (observations_fts) VALUES ('optimize')"
        )

    def checkpoint(self) -> bool:
        """The WAL checkpointed and truncated (``erasure.checkpoint``), outside any
        transaction; False when another connection kept it from completing."""
        return checkpoint(self.connection)

    # observations: reads -------------------------------------------------------------------
    def observation(self, observation_id: int, *, deleted: bool = False) -> Observation | None:
        """A live row, or with ``deleted`` a soft-deleted one too."""
        return self._first(
            "SELECT * FROM observations WHERE id = ? AND (? OR deleted_at IS NULL)",
            (observation_id, deleted),
        )

    def topic_match(self, topic_key: str, project: str, scope: str) -> Observation | None:
        """The live row of a topic (the newest, if several hold its key)."""
        return self._newest_live(
            "topic_key = ? AND project = ? AND scope = ?", (topic_key, project, scope)
        )

    def duplicate_of(self, values: dict[str, Any], created_since: str) -> Observation | None:
        """A live row with the same content hash, title, type and project as ``values``, of any
        scope, created at ``created_since`` or later."""
        return self._first(
            "SELECT * FROM observations WHERE normalized_hash = ? AND project = ? "
            "AND type = ? AND title = ? AND created_at >= ? "
            "AND deleted_at IS NULL ORDER BY created_at DESC, id DESC",
            (
                values["normalized_hash"],
                values["project"],
                values["type"],
                values["title"],
                created_since,
            ),
        )

    def same_contents(self, normalized_hashes: list[str], project: str) -> dict[str, int]:
        """Content hash -> the id of the project's newest live row with that content hash,
        whatever its type or title, for each of ``normalized_hashes`` that one has (one query,
        its hashes passed as one JSON array)."""
        rows = self.connection.execute(
            "SELECT normalized_hash, id FROM observations WHERE project = ? "
            "AND deleted_at IS NULL AND normalized_hash IN (SELECT value FROM json_each(?)) "
            "ORDER BY updated_at, id",
            (project, json.dumps(normalized_hashes)),
        )
        return dict(rows.fetchall())  # the newest of each hash comes last, and stays

    def search(
        self,
        match: str,
        project: str | None,
        memory_type: str | None,
        scope: str | None,
        limit: int,
        *,
        personal_everywhere: bool,
    ) -> list[Observation]:
        """Live rows whose index matches the FTS5 expression ``match``, best first: of the
        project (``None``: of every project), and with ``personal_everywhere`` the personal
        ones of every project too; of ``scope`` and ``memory_type`` when given."""
        return self._rows(
            "SELECT o.* FROM observations_fts f JOIN observations o ON o.id = f.rowid "
            "WHERE observations_fts MATCH ?1 AND o.deleted_at IS NULL "
            "AND (?2 IS NULL OR o.project = ?2 OR (?6 AND o.scope = 'personal')) "
            "AND (?3 IS NULL OR o.scope = ?3) "
            "AND (?4 IS NULL OR o.type = ?4) ORDER BY f.rank, o.id DESC LIMIT ?5",
            (match, project, scope, memory_type, limit, personal_everywhere),
        )

    def title_matches(self, match: str, memory: Observation, limit: int) -> list[Observation]:
        """The other live rows of ``memory``'s project and scope whose title matches the FTS5
        expression ``match``, best first."""
        return self._rows(
            "SELECT o.* FROM observations_fts f JOIN observations o ON o.id = f.rowid "
            "WHERE observations_fts MATCH ? AND o.deleted_at IS NULL AND o.id != ? "
            "AND o.project = ? AND o.scope = ? ORDER BY f.rank, o.id DESC LIMIT ?",
            (f"title : ({match})", memory.id, memory.project, memory.scope, limit),
        )

    def recent(
        self, project: str, scope: str | None, limit: int, *, besides: int | None = None
    ) -> list[Observation]:
        """Live rows as ``search`` sees them, most recently updated first, ``besides`` left
        out."""
        return self._rows(
            "SELECT * FROM observations WHERE deleted_at IS NULL "
            "AND (project = ?1 OR scope = 'personal') AND (?2 IS NULL OR scope = ?2) "
            "AND id IS NOT ?3 ORDER BY updated_at DESC, id DESC LIMIT ?4",
            (project, scope, besides, limit),
        )

    def latest_of_type(self, project: str, memory_type: str) -> Observation | None:
        """The project's most recently updated live memory of a type."""
        return self._newest_live("project = ? AND type = ?", (project, memory_type))

    def neighbours(
        self, focus: Observation, before: int, after: int
    ) -> tuple[list[Observation], list[Observation]]:
        """The live rows of the focus's session just before and after it, oldest first."""
        earlier = self._rows(
            "SELECT * FROM observations WHERE session_id = ? AND id < ? "
            "AND deleted_at IS NULL ORDER BY id DESC LIMIT ?",
            (focus.session_id, focus.id, before),
        )
        later = self._rows(
            "SELECT * FROM observations WHERE session_id = ? AND id > ? "
            "AND deleted_at IS NULL ORDER BY id LIMIT ?",
            (focus.session_id, focus.id, after),
        )
        return earlier[::-1], later

    # judgments -----------------------------------------------------------------------------
    def insert_judgment(self, judgment_id: str, source_id: int, target_id: int) -> None:
        self.connection.execute(
            "INSERT INTO judgments (id, source_id, target_id, created_at) VALUES (?, ?, ?, ?)",
            (judgment_id, source_id, target_id, self.now()),
        )

    def judgment(self, judgment_id: str) -> Judgment | None:
        row = self.connection.execute(
            "SELECT * FROM judgments WHERE id = ?", (judgment_id,)
        ).fetchone()
        return None if row is None else Judgment(*row)

    def judge(self, judgment_id: str, verdict: dict[str, Any]) -> None:
        """Record (or replace) a judgment's ``relation``, ``reason``, ``evidence``,
        ``confidence`` and ``session_id``."""
        self.connection.execute(
            "UPDATE judgments SET relation = :relation, reason = :reason, evidence = :evidence, "
            "confidence = :confidence, session_id = :session_id, judged_at = :now WHERE id = :id",
            {**verdict, "now": self.now(), "id": judgment_id},
        )

    # prompts and totals --------------------------------------------------------------------
    def insert_prompt(self, session_id: str, content: str, project: str) -> None:
        self.connection.execute(
            "INSERT INTO prompts (session_id, content, project, created_at) VALUES (?, ?, ?, ?)",
            (session_id, content, project, self.now()),
        )

    def recent_prompts(self, project: str, limit: int) -> list[Prompt]:
        rows = self.connection.execute(
            "SELECT content, created_at FROM prompts WHERE project = ? "
            "ORDER BY created_at DESC, id DESC LIMIT ?",
            (project, limit),
        )
        return [Prompt(*row) for row in rows]

    def totals(self) -> tuple[int, int, int]:
        """Sessions, live observations, prompts."""
        (counts,) = self.connection.execute(
            "SELECT (SELECT count(*) FROM sessions), "
            "(SELECT count(*) FROM observations WHERE deleted_at IS NULL), "
            "(SELECT count(*) FROM prompts)"
        )
        return counts

    def projects(self) -> list[str]:
        """Projects of live observations, the one with the newest observation first."""
        rows = self.connection.execute(
            "SELECT project FROM observations WHERE deleted_at IS NULL "
            "GROUP BY project ORDER BY max(created_at) DESC"
        )
        return [project for (project,) in rows]

    def known_projects(self) -> list[str]:
        """Every project a session or a live observation names, sorted."""
        rows = self.connection.execute(
            "SELECT project FROM sessions WHERE project != '' UNION "
            "SELECT project FROM observations WHERE deleted_at IS NULL ORDER BY 1"
        )
        return [project for (project,) in rows]
