#!/usr/bin/env python3
"""memserver — a small agent-memory MCP server (stdio).

(Kit note: a developer wrote this server from seed 003 alone, reading neither this kit nor
upstream Engram, with its own answer forms, argument names and string ids, and the twelve
tools the seed names. It is kept as written, but for its formatting and three lint fixes:
``test_seed_written_server.py`` runs the kit against it, as a vendor's server is judged.)

The agent decides what to remember; this server persists it in SQLite (+FTS5)
and offers search, topic-key upserts, hash dedupe, sessions with structured
summaries, passive capture from free text and a conflict "judge".

Run:   python server.py            (speaks MCP over stdio)
Env:   MEMSERVER_DATA              data folder (default ./memdata)
       MEMSERVER_PROJECT           force the current project name
       MEMSERVER_DEDUPE_WINDOW     dedupe window in seconds (default 900)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import sqlite3
import unicodedata
from datetime import datetime, timedelta, timezone
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

try:  # the SDK depends on jsonschema, but stay usable without it
    import jsonschema
except Exception:  # pragma: no cover
    jsonschema = None

SERVER_NAME = "memserver"
SERVER_VERSION = "0.1.0"

KNOWN_TYPES = [
    "bugfix",
    "architecture",
    "decision",
    "pattern",
    "discovery",
    "config",
    "learning",
    "session_summary",
]
DEFAULT_DEDUPE_WINDOW = 900  # seconds


# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------


class ToolError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def now_iso(delta_seconds: float = 0.0) -> str:
    t = datetime.now(timezone.utc) + timedelta(seconds=delta_seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def strip_accents(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def slugify(s: str, max_len: int = 60) -> str:
    s = strip_accents(s).lower()
    s = re.sub(r"[^a-z0-9]+", "-", s).strip("-")
    if len(s) > max_len:
        cut = s[:max_len]
        if "-" in cut and s[max_len : max_len + 1] not in ("", "-"):
            cut = cut.rsplit("-", 1)[0]
        s = cut.strip("-")
    return s


def norm_ws(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def normalize_project(name: str) -> str:
    n = norm_ws(name).lower().replace(" ", "-")
    return n


def normalize_topic_key(key: str) -> str:
    k = norm_ws(key).lower()
    k = re.sub(r"\s+", "-", k)
    k = re.sub(r"/+", "/", k).strip("/")
    return k


def as_list(v: Any) -> list[str]:
    if v is None:
        return []
    if isinstance(v, list):
        return [norm_ws(str(x)) for x in v if str(x).strip()]
    text = str(v).strip()
    if not text:
        return []
    lines = [re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", ln).strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    return lines if len(lines) > 1 else [text]


# --------------------------------------------------------------------------
# project detection
# --------------------------------------------------------------------------


def find_git_root(start: str) -> str | None:
    cur = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(cur, ".git")):
            return cur
        parent = os.path.dirname(cur)
        if parent == cur:
            return None
        cur = parent


def detect_project(directory: str | None = None) -> dict[str, Any]:
    cwd = os.path.abspath(directory) if directory else os.getcwd()
    env = os.environ.get("MEMSERVER_PROJECT", "").strip()
    git_root = find_git_root(cwd)
    if env and not directory:
        return {
            "project": normalize_project(env),
            "source": "env",
            "directory": cwd,
            "git_root": git_root,
        }
    if git_root:
        return {
            "project": normalize_project(os.path.basename(git_root) or "root"),
            "source": "git",
            "directory": cwd,
            "git_root": git_root,
        }
    return {
        "project": normalize_project(os.path.basename(cwd) or "root"),
        "source": "cwd",
        "directory": cwd,
        "git_root": None,
    }


# --------------------------------------------------------------------------
# storage
# --------------------------------------------------------------------------

SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS observations (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    title           TEXT NOT NULL,
    type            TEXT NOT NULL,
    content         TEXT NOT NULL,
    scope           TEXT NOT NULL DEFAULT 'project',
    project         TEXT NOT NULL,
    topic_key       TEXT,
    session_id      TEXT,
    source          TEXT NOT NULL DEFAULT 'manual',
    content_hash    TEXT NOT NULL,
    revision_count  INTEGER NOT NULL DEFAULT 1,
    duplicate_count INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    last_seen_at    TEXT NOT NULL,
    deleted_at      TEXT
);
CREATE INDEX IF NOT EXISTS obs_project ON observations(project, scope, deleted_at);
CREATE INDEX IF NOT EXISTS obs_topic ON observations(topic_key);
CREATE INDEX IF NOT EXISTS obs_hash ON observations(content_hash);
CREATE TABLE IF NOT EXISTS sessions (
    id              TEXT PRIMARY KEY,
    project         TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'active',
    started_at      TEXT NOT NULL,
    ended_at        TEXT,
    note            TEXT,
    summary_id      TEXT,
    goal            TEXT,
    discoveries     TEXT,
    accomplished    TEXT,
    files           TEXT,
    summarized_at   TEXT
);
CREATE INDEX IF NOT EXISTS ses_project ON sessions(project, status);
"""


class Store:
    def __init__(self, data_dir: str):
        self.data_dir = os.path.abspath(data_dir)
        os.makedirs(self.data_dir, exist_ok=True)
        self.path = os.path.join(self.data_dir, "memories.db")
        self.db = sqlite3.connect(self.path)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA_SQL)
        self.fts = True
        try:
            self.db.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS obs_fts USING fts5("
                "title, content, type, topic_key, tokenize='unicode61 remove_diacritics 2')"
            )
        except sqlite3.OperationalError:
            self.fts = False
        self.db.commit()
        try:
            self.window = int(os.environ.get("MEMSERVER_DEDUPE_WINDOW", DEFAULT_DEDUPE_WINDOW))
        except ValueError:
            self.window = DEFAULT_DEDUPE_WINDOW

    # ---- fts sync ----
    def _fts_put(
        self, seq: int, title: str, content: str, type_: str, topic_key: str | None
    ) -> None:
        if not self.fts:
            return
        self.db.execute("DELETE FROM obs_fts WHERE rowid=?", (seq,))
        self.db.execute(
            "INSERT INTO obs_fts(rowid,title,content,type,topic_key) VALUES (?,?,?,?,?)",
            (seq, title, content, type_, topic_key or ""),
        )

    def _fts_del(self, seq: int) -> None:
        if self.fts:
            self.db.execute("DELETE FROM obs_fts WHERE rowid=?", (seq,))

    # ---- rows -> dicts ----
    @staticmethod
    def mem_dict(r: sqlite3.Row) -> dict[str, Any]:
        return {
            "id": r["id"],
            "title": r["title"],
            "type": r["type"],
            "content": r["content"],
            "scope": r["scope"],
            "project": r["project"],
            "topic_key": r["topic_key"],
            "session_id": r["session_id"],
            "source": r["source"],
            "revision_count": r["revision_count"],
            "duplicate_count": r["duplicate_count"],
            "created_at": r["created_at"],
            "updated_at": r["updated_at"],
            "last_seen_at": r["last_seen_at"],
            "deleted": r["deleted_at"] is not None,
        }

    def session_dict(self, r: sqlite3.Row) -> dict[str, Any]:
        n = self.db.execute(
            "SELECT COUNT(*) FROM observations WHERE session_id=? AND deleted_at IS NULL "
            "AND type!='session_summary'",
            (r["id"],),
        ).fetchone()[0]
        return {
            "id": r["id"],
            "project": r["project"],
            "status": r["status"],
            "started_at": r["started_at"],
            "ended_at": r["ended_at"],
            "memory_count": n,
            "has_summary": r["summary_id"] is not None,
            "summary_id": r["summary_id"],
        }

    def summary_dict(self, r: sqlite3.Row) -> dict[str, Any]:
        return {
            "session_id": r["id"],
            "project": r["project"],
            "memory_id": r["summary_id"],
            "status": r["status"],
            "started_at": r["started_at"],
            "ended_at": r["ended_at"],
            "summarized_at": r["summarized_at"],
            "goal": r["goal"] or "",
            "discoveries": json.loads(r["discoveries"] or "[]"),
            "accomplished": json.loads(r["accomplished"] or "[]"),
            "files": json.loads(r["files"] or "[]"),
        }

    # ---- lookups ----
    def get_mem(self, mem_id: str) -> sqlite3.Row:
        r = self.db.execute("SELECT * FROM observations WHERE id=?", (mem_id,)).fetchone()
        if r is None:
            raise ToolError("not_found", f"No memory with id '{mem_id}'.")
        return r

    def get_session(self, sid: str) -> sqlite3.Row:
        r = self.db.execute("SELECT * FROM sessions WHERE id=?", (sid,)).fetchone()
        if r is None:
            raise ToolError("session_not_found", f"No session with id '{sid}'.")
        return r

    def active_session(self, project: str) -> sqlite3.Row | None:
        return self.db.execute(
            "SELECT * FROM sessions WHERE project=? AND status='active' "
            "ORDER BY started_at DESC LIMIT 1",
            (project,),
        ).fetchone()

    @staticmethod
    def content_hash(title: str, content: str, type_: str, project: str, scope: str) -> str:
        proj = "*personal*" if scope == "personal" else project
        payload = json.dumps([norm_ws(title).lower(), norm_ws(content), type_, proj, scope])
        return hashlib.sha256(payload.encode()).hexdigest()

    # ---- save (create / topic upsert / dedupe) ----
    def save(
        self,
        *,
        title: str,
        type_: str,
        content: str,
        scope: str,
        project: str,
        topic_key: str | None,
        session_id: str | None,
        source: str = "manual",
    ) -> tuple[str, dict]:
        ts = now_iso()
        h = self.content_hash(title, content, type_, project, scope)
        if topic_key:
            if scope == "personal":
                row = self.db.execute(
                    "SELECT * FROM observations WHERE topic_key=? AND scope='personal' AND deleted_at IS NULL "
                    "ORDER BY updated_at DESC LIMIT 1",
                    (topic_key,),
                ).fetchone()
            else:
                row = self.db.execute(
                    "SELECT * FROM observations WHERE topic_key=? AND scope='project' AND project=? "
                    "AND deleted_at IS NULL ORDER BY updated_at DESC LIMIT 1",
                    (topic_key, project),
                ).fetchone()
            if row is not None:
                if row["content_hash"] == h:
                    self.db.execute(
                        "UPDATE observations SET duplicate_count=duplicate_count+1, last_seen_at=? "
                        "WHERE seq=?",
                        (ts, row["seq"]),
                    )
                    self.db.commit()
                    return "deduplicated", self.mem_dict(self.get_mem(row["id"]))
                self.db.execute(
                    "UPDATE observations SET title=?, type=?, content=?, content_hash=?, "
                    "revision_count=revision_count+1, updated_at=?, last_seen_at=?, "
                    "session_id=COALESCE(?, session_id) WHERE seq=?",
                    (title, type_, content, h, ts, ts, session_id, row["seq"]),
                )
                self._fts_put(row["seq"], title, content, type_, topic_key)
                self.db.commit()
                return "revised", self.mem_dict(self.get_mem(row["id"]))
        else:
            cutoff = now_iso(-self.window)
            row = self.db.execute(
                "SELECT * FROM observations WHERE content_hash=? AND deleted_at IS NULL AND last_seen_at>=? "
                "ORDER BY last_seen_at DESC LIMIT 1",
                (h, cutoff),
            ).fetchone()
            if row is not None:
                self.db.execute(
                    "UPDATE observations SET duplicate_count=duplicate_count+1, last_seen_at=? "
                    "WHERE seq=?",
                    (ts, row["seq"]),
                )
                self.db.commit()
                return "deduplicated", self.mem_dict(self.get_mem(row["id"]))
        mem_id = "obs_" + secrets.token_hex(6)
        cur = self.db.execute(
            "INSERT INTO observations(id,title,type,content,scope,project,topic_key,session_id,source,"
            "content_hash,created_at,updated_at,last_seen_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                mem_id,
                title,
                type_,
                content,
                scope,
                project,
                topic_key,
                session_id,
                source,
                h,
                ts,
                ts,
                ts,
            ),
        )
        self._fts_put(cur.lastrowid, title, content, type_, topic_key)
        self.db.commit()
        return "created", self.mem_dict(self.get_mem(mem_id))


# --------------------------------------------------------------------------
# JSON schemas
# --------------------------------------------------------------------------

NSTR = {"type": ["string", "null"]}
MEMORY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "description": "Memory id, 'obs_' + 12 hex chars."},
        "title": {"type": "string"},
        "type": {"type": "string"},
        "content": {"type": "string"},
        "scope": {"type": "string", "enum": ["project", "personal"]},
        "project": {
            "type": "string",
            "description": "Project it was saved in (origin project for personal).",
        },
        "topic_key": NSTR,
        "session_id": NSTR,
        "source": {"type": "string", "enum": ["manual", "passive", "session"]},
        "revision_count": {"type": "integer"},
        "duplicate_count": {"type": "integer"},
        "created_at": {"type": "string"},
        "updated_at": {"type": "string"},
        "last_seen_at": {"type": "string"},
        "deleted": {"type": "boolean"},
    },
    "required": [
        "id",
        "title",
        "type",
        "content",
        "scope",
        "project",
        "topic_key",
        "session_id",
        "revision_count",
        "duplicate_count",
        "created_at",
        "updated_at",
        "last_seen_at",
        "deleted",
    ],
}
SESSION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {
            "type": "string",
            "description": "Server-generated session id, 'ses_YYYYMMDDHHMMSS_xxxxxx'.",
        },
        "project": {"type": "string"},
        "status": {"type": "string", "enum": ["active", "ended"]},
        "started_at": {"type": "string"},
        "ended_at": NSTR,
        "memory_count": {"type": "integer"},
        "has_summary": {"type": "boolean"},
        "summary_id": NSTR,
    },
    "required": [
        "id",
        "project",
        "status",
        "started_at",
        "ended_at",
        "memory_count",
        "has_summary",
    ],
}
STRLIST = {"type": "array", "items": {"type": "string"}}
SUMMARY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "session_id": {"type": "string"},
        "project": {"type": "string"},
        "memory_id": NSTR,
        "status": {"type": "string"},
        "started_at": {"type": "string"},
        "ended_at": NSTR,
        "summarized_at": NSTR,
        "goal": {"type": "string"},
        "discoveries": STRLIST,
        "accomplished": STRLIST,
        "files": STRLIST,
    },
    "required": ["session_id", "project", "goal", "discoveries", "accomplished", "files"],
}
STR_OR_LIST = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
PROJECT_ARG = {
    "type": "string",
    "minLength": 1,
    "description": "Override the detected current project for this call.",
}
SCOPE_ARG = {"type": "string", "enum": ["project", "personal"]}
ID_ARG = {
    "type": "string",
    "minLength": 1,
    "description": "Memory id as returned by mem_save (e.g. 'obs_1a2b3c4d5e6f').",
}


def obj(props: dict, required: list[str] | None = None, strict: bool = True) -> dict:
    s: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        s["required"] = required
    if strict:
        s["additionalProperties"] = False
    return s


TOOLS: list[dict[str, Any]] = [
    {
        "name": "mem_save",
        "description": (
            "Persist one significant piece of knowledge (bugfix, decision, pattern...). Write `content` in "
            "What/Why/Where/Learned form. With `topic_key`, an existing memory with that key is updated in "
            "place (revision_count++) instead of inserting. Identical title+content+type+project within the "
            "dedupe window is not inserted again: duplicate_count++ and last_seen_at are updated. "
            "Scope 'personal' makes it visible in every project."
        ),
        "input": obj(
            {
                "title": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Short, searchable title.",
                },
                "type": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Category: "
                    + ", ".join(KNOWN_TYPES)
                    + " (other lowercase words accepted).",
                },
                "content": {
                    "type": "string",
                    "minLength": 1,
                    "description": "What/Why/Where/Learned text.",
                },
                "scope": {**SCOPE_ARG, "default": "project"},
                "topic_key": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Stable key (see mem_suggest_topic_key) for upsert.",
                },
                "session_id": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Session to attach to; default: the project's active session.",
                },
                "project": PROJECT_ARG,
            },
            ["title", "type", "content"],
        ),
        "output": obj(
            {
                "action": {"type": "string", "enum": ["created", "revised", "deduplicated"]},
                "memory": MEMORY_SCHEMA,
            },
            ["action", "memory"],
            strict=False,
        ),
    },
    {
        "name": "mem_search",
        "description": (
            "Full-text search (SQLite FTS5, prefix match on each word) over title, content, type "
            "and topic_key of live memories of the current project plus personal memories."
        ),
        "input": obj(
            {
                "query": {"type": "string", "minLength": 1, "description": "Words to search for."},
                "type": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Only memories of this type.",
                },
                "scope": {**SCOPE_ARG, "description": "Only this scope (default both)."},
                "project": PROJECT_ARG,
                "all_projects": {
                    "type": "boolean",
                    "default": False,
                    "description": "Search project memories of every project.",
                },
                "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
            },
            ["query"],
        ),
        "output": obj(
            {
                "query": {"type": "string"},
                "project": {"type": "string"},
                "match_mode": {"type": "string", "enum": ["all_words", "any_word", "substring"]},
                "count": {"type": "integer"},
                "results": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "score": {"type": "number"},
                            "snippet": {"type": "string"},
                            "memory": MEMORY_SCHEMA,
                        },
                        "required": ["score", "snippet", "memory"],
                    },
                },
            },
            ["query", "project", "count", "results"],
            strict=False,
        ),
    },
    {
        "name": "mem_context",
        "description": (
            "Start-of-session context: the latest session summaries (Goal/Discoveries/Accomplished/"
            "Files) of the current project, its most recent memories, and personal memories "
            "(from any project). Soft-deleted memories are excluded."
        ),
        "input": obj(
            {
                "project": PROJECT_ARG,
                "limit": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 100,
                    "default": 10,
                    "description": "Max recent project memories and max personal memories.",
                },
                "summaries": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 20,
                    "default": 3,
                    "description": "Max session summaries.",
                },
            }
        ),
        "output": obj(
            {
                "project": {"type": "string"},
                "last_summary": {"anyOf": [SUMMARY_SCHEMA, {"type": "null"}]},
                "summaries": {"type": "array", "items": SUMMARY_SCHEMA},
                "recent_memories": {"type": "array", "items": MEMORY_SCHEMA},
                "personal_memories": {"type": "array", "items": MEMORY_SCHEMA},
                "active_sessions": {"type": "array", "items": SESSION_SCHEMA},
                "totals": {
                    "type": "object",
                    "properties": {
                        "project_memories": {"type": "integer"},
                        "personal_memories": {"type": "integer"},
                        "sessions": {"type": "integer"},
                    },
                    "required": ["project_memories", "personal_memories", "sessions"],
                },
            },
            [
                "project",
                "last_summary",
                "summaries",
                "recent_memories",
                "personal_memories",
                "active_sessions",
                "totals",
            ],
            strict=False,
        ),
    },
    {
        "name": "mem_suggest_topic_key",
        "description": (
            "Suggest a normalized topic key 'family/slug' for a title (families: architecture, bug, "
            "decision, pattern, config, discovery, learning, session). Reports whether a live memory "
            "already uses it in the current project."
        ),
        "input": obj(
            {
                "title": {"type": "string", "minLength": 1},
                "type": {"type": "string", "minLength": 1},
                "content": {"type": "string", "description": "Optional; used to infer the family."},
                "project": PROJECT_ARG,
            },
            ["title"],
        ),
        "output": obj(
            {
                "topic_key": {"type": "string"},
                "family": {"type": "string"},
                "slug": {"type": "string"},
                "family_reason": {"type": "string"},
                "existing": {"anyOf": [MEMORY_SCHEMA, {"type": "null"}]},
            },
            ["topic_key", "family", "slug", "existing"],
            strict=False,
        ),
    },
    {
        "name": "mem_session_start",
        "description": (
            "Register the start of a work session for the current project. The server generates "
            "and returns the session id; later mem_save calls attach to it automatically."
        ),
        "input": obj(
            {
                "project": PROJECT_ARG,
                "note": {
                    "type": "string",
                    "description": "Optional free note (e.g. agent or task).",
                },
            }
        ),
        "output": obj(
            {
                "session": SESSION_SCHEMA,
                "other_active_sessions": {"type": "array", "items": SESSION_SCHEMA},
                "previous_summary": {"anyOf": [SUMMARY_SCHEMA, {"type": "null"}]},
            },
            ["session", "other_active_sessions", "previous_summary"],
            strict=False,
        ),
    },
    {
        "name": "mem_session_summary",
        "description": (
            "Record the end-of-work summary of a session: Goal, Discoveries, Accomplished, Files. "
            "Stored as a 'session_summary' memory and returned first by mem_context next time. "
            "Calling again for the same session replaces the summary (revision_count++). "
            "Without session_id the project's active session is used (one is created if none)."
        ),
        "input": obj(
            {
                "goal": {
                    "type": "string",
                    "minLength": 1,
                    "description": "What the session tried to achieve.",
                },
                "discoveries": {
                    **STR_OR_LIST,
                    "description": "Findings (bugs, surprises); list or text.",
                },
                "accomplished": {**STR_OR_LIST, "description": "What was completed; list or text."},
                "files": {**STR_OR_LIST, "description": "Main files touched; list or text."},
                "session_id": {"type": "string", "minLength": 1},
                "project": PROJECT_ARG,
            },
            ["goal"],
        ),
        "output": obj(
            {
                "action": {"type": "string", "enum": ["created", "revised", "deduplicated"]},
                "session_created": {"type": "boolean"},
                "summary": SUMMARY_SCHEMA,
                "memory": MEMORY_SCHEMA,
            },
            ["action", "session_created", "summary", "memory"],
            strict=False,
        ),
    },
    {
        "name": "mem_session_end",
        "description": (
            "Mark a session as ended. Without session_id, the project's most recent active session "
            "is ended."
        ),
        "input": obj(
            {
                "session_id": {"type": "string", "minLength": 1},
                "project": PROJECT_ARG,
            }
        ),
        "output": obj(
            {
                "session": SESSION_SCHEMA,
                "already_ended": {"type": "boolean"},
            },
            ["session", "already_ended"],
            strict=False,
        ),
    },
    {
        "name": "mem_update",
        "description": (
            "Update fields of an existing live memory by id (revision_count++). At least one of "
            "title, content, type, scope, topic_key must be given."
        ),
        "input": obj(
            {
                "id": ID_ARG,
                "title": {"type": "string", "minLength": 1},
                "content": {"type": "string", "minLength": 1},
                "type": {"type": "string", "minLength": 1},
                "scope": SCOPE_ARG,
                "topic_key": {
                    "type": "string",
                    "description": "New key; empty string removes the key.",
                },
            },
            ["id"],
        ),
        "output": obj(
            {
                "updated_fields": STRLIST,
                "memory": MEMORY_SCHEMA,
            },
            ["updated_fields", "memory"],
            strict=False,
        ),
    },
    {
        "name": "mem_delete",
        "description": (
            "Delete a memory. Default is a soft delete (kept in the database, hidden from search "
            "and context); hard=true removes it permanently."
        ),
        "input": obj(
            {
                "id": ID_ARG,
                "hard": {"type": "boolean", "default": False},
            },
            ["id"],
        ),
        "output": obj(
            {
                "id": {"type": "string"},
                "mode": {"type": "string", "enum": ["soft", "hard"]},
                "already_deleted": {"type": "boolean"},
                "title": {"type": "string"},
            },
            ["id", "mode", "already_deleted", "title"],
            strict=False,
        ),
    },
    {
        "name": "mem_capture_passive",
        "description": (
            "Extract structured learnings from free text (test output, error logs, notes) and save "
            "them as memories in What/Why/Where/Learned form. Recognizes error/exception/failure "
            "lines (with following key: value facts and file paths), warnings, and explicit "
            "markers such as 'Learned:', 'Lesson:', 'TIL:', 'Root cause:', 'Fix:', 'Decision:' and "
            "bullets under a 'Learnings'/'Takeaways' heading. Normal dedupe applies."
        ),
        "input": obj(
            {
                "content": {"type": "string", "minLength": 1, "description": "The raw text."},
                "session_id": {"type": "string", "minLength": 1},
                "project": PROJECT_ARG,
                "dry_run": {
                    "type": "boolean",
                    "default": False,
                    "description": "Only return what would be saved.",
                },
                "max_items": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
            },
            ["content"],
        ),
        "output": obj(
            {
                "extracted": {"type": "integer"},
                "saved": {"type": "integer"},
                "dry_run": {"type": "boolean"},
                "session_id": NSTR,
                "items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "signal": {"type": "string"},
                            "action": {
                                "type": "string",
                                "enum": ["created", "revised", "deduplicated", "preview"],
                            },
                            "title": {"type": "string"},
                            "type": {"type": "string"},
                            "content": {"type": "string"},
                            "memory": {"anyOf": [MEMORY_SCHEMA, {"type": "null"}]},
                        },
                        "required": ["signal", "action", "title", "type", "content", "memory"],
                    },
                },
            },
            ["extracted", "saved", "dry_run", "items"],
            strict=False,
        ),
    },
    {
        "name": "mem_judge",
        "description": (
            "Compare a list of memory ids pairwise and classify each pair as contradictory, "
            "duplicate, complementary or unrelated; mark the older side of a contradiction or "
            "duplicate as outdated and recommend an action per memory. Read-only."
        ),
        "input": obj(
            {
                "ids": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1},
                    "minItems": 2,
                    "maxItems": 50,
                    "uniqueItems": True,
                },
            },
            ["ids"],
        ),
        "output": obj(
            {
                "pairs": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "a": {"type": "string"},
                            "b": {"type": "string"},
                            "relation": {
                                "type": "string",
                                "enum": [
                                    "contradictory",
                                    "duplicate",
                                    "complementary",
                                    "unrelated",
                                ],
                            },
                            "similarity": {"type": "number"},
                            "reasons": STRLIST,
                            "newer": NSTR,
                        },
                        "required": ["a", "b", "relation", "similarity", "reasons"],
                    },
                },
                "verdicts": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string"},
                            "title": {"type": "string"},
                            "status": {
                                "type": "string",
                                "enum": ["current", "outdated", "independent", "deleted"],
                            },
                            "superseded_by": NSTR,
                            "recommendation": {"type": "string"},
                        },
                        "required": ["id", "title", "status", "superseded_by", "recommendation"],
                    },
                },
                "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
            },
            ["pairs", "verdicts", "counts"],
            strict=False,
        ),
    },
    {
        "name": "mem_current_project",
        "description": (
            "Report the project this server considers current: MEMSERVER_PROJECT env var if set, "
            "else the name of the enclosing git repository root, else the working directory "
            "name (lower-cased). Pass `directory` to detect for another path."
        ),
        "input": obj(
            {
                "directory": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Detect the project for this path instead of the server's cwd.",
                },
            }
        ),
        "output": obj(
            {
                "project": {"type": "string"},
                "source": {"type": "string", "enum": ["env", "git", "cwd"]},
                "directory": {"type": "string"},
                "git_root": NSTR,
                "data_dir": {"type": "string"},
                "memory_count": {"type": "integer"},
                "personal_memory_count": {"type": "integer"},
                "active_session": {"anyOf": [SESSION_SCHEMA, {"type": "null"}]},
            },
            [
                "project",
                "source",
                "directory",
                "git_root",
                "data_dir",
                "memory_count",
                "personal_memory_count",
                "active_session",
            ],
            strict=False,
        ),
    },
]
TOOL_INDEX = {t["name"]: t for t in TOOLS}

READ_ONLY = {
    "mem_search",
    "mem_context",
    "mem_suggest_topic_key",
    "mem_judge",
    "mem_current_project",
}


# --------------------------------------------------------------------------
# text analysis helpers (topic keys, passive capture, judge)
# --------------------------------------------------------------------------

TYPE_FAMILY = {
    "architecture": "architecture",
    "adr": "architecture",
    "design": "architecture",
    "bugfix": "bug",
    "bug": "bug",
    "fix": "bug",
    "regression": "bug",
    "error": "bug",
    "decision": "decision",
    "pattern": "pattern",
    "config": "config",
    "configuration": "config",
    "discovery": "discovery",
    "learning": "learning",
    "session_summary": "session",
}
FAMILY_KEYWORDS = [
    (
        "architecture",
        r"\b(architecture|architectural|adr|design|arquitectura|dise[nñ]o|module boundar\w*)\b",
    ),
    (
        "bug",
        r"\b(bug|bugs|fix|fixed|fixes|regression|regresi[oó]n|error|errors|crash\w*|fallo|exception|broken)\b",
    ),
    (
        "decision",
        r"\b(decision|decided|decide|chose|choose|elegimos|decidimos|decisi[oó]n|tradeoff|trade-off)\b",
    ),
    ("pattern", r"\b(pattern|patterns|patr[oó]n|convention|idiom)\b"),
    ("config", r"\b(config|configuration|configuraci[oó]n|setting|settings|env|yaml|toml|flag)\b"),
    ("discovery", r"\b(discover\w*|found|unexpected|surpris\w*|descubr\w*|inesperad\w*)\b"),
    ("learning", r"\b(learn\w*|til|aprend\w*|lesson)\b"),
]


def suggest_family(type_: str | None, title: str, content: str) -> tuple[str, str]:
    text = strip_accents(f"{title}\n{content}").lower()
    t = (type_ or "").strip().lower()
    if t in TYPE_FAMILY:
        fam = TYPE_FAMILY[t]
        if fam == "decision" and re.search(FAMILY_KEYWORDS[0][1], text):
            return "architecture", f"type '{t}' mentions design/architecture"
        return fam, f"type '{t}'"
    for fam, rx in FAMILY_KEYWORDS:
        if re.search(rx, text):
            return fam, f"keyword match for '{fam}'" + (
                f" (type '{t}' is not a known family)" if t else ""
            )
    if t:
        return slugify(t, 30) or "learning", f"custom type '{t}'"
    return "learning", "default family"


STOP = set(
    """
a an the and or of to in on for with at by from is are was were be been it this that these those as into not no
but if then than so we our you your they their its can will would should could may might do does did done
have has had using use used via per over under after before about what why where learned
el la los las un una unos unas y o de del en con por para que se es son fue al lo como mas más su sus
pero si sin sobre entre ya muy este esta estos estas ese esa eso nos nuestro nuestra usamos
""".split()
)
NEGATIONS = re.compile(
    r"\b(not|never|no|don't|dont|doesn't|avoid|without|nunca|evitar|evita|jam[aá]s|sin)\b", re.I
)
CHANGE_MARKERS = re.compile(
    r"\b(instead of|en lugar de|en vez de|migrat\w+|migramos|replac\w+|reemplaz\w+|no longer|ya no|deprecat\w+|"
    r"obsolet\w+|switch\w*|cambiamos|now use\w*|ahora usamos|dejamos de|supersed\w+|moved from|pasamos de)\b",
    re.I,
)
SECTION_KEYS = {
    "what",
    "why",
    "where",
    "learned",
    "goal",
    "discoveries",
    "accomplished",
    "files",
    "note",
    "que",
    "por que",
    "donde",
    "aprendido",
    "http",
    "https",
}


def tokens(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9][a-z0-9_\-]+", strip_accents(text).lower())
    return {w for w in words if w not in STOP and len(w) >= 3}


def jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def key_values(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = re.sub(
            r"^\s*(?:[-*•]\s*)?(what|why|where|learned|goal|que|por que|donde|aprendido)\s*:\s*",
            "",
            strip_accents(line),
            flags=re.I,
        )
        for part in re.split(r"\.\s+|;\s*", line):
            m = re.match(
                r"^\s*(?:[-*•]\s*)?([A-Za-z][\w .\-/]{0,40}?)\s*[:=]\s*(\S.{0,80})$", part.strip()
            )
            if not m:
                continue
            k = norm_ws(strip_accents(m.group(1)).lower())
            if k in SECTION_KEYS or len(k.split()) > 5:
                continue
            v = norm_ws(m.group(2)).rstrip(".").lower()
            out[k] = v
    return out


ERROR_RX = re.compile(
    r"(\b(ERROR|FATAL|CRITICAL|PANIC|FAILED|FAILURE)\b|^\s*(error|fatal)\s*[:\]]|\b[A-Z]\w*(Error|Exception)\b"
    r"|^\s*FAIL\b|\bpanic:|\bSegmentation fault\b|\bexit code [1-9]\d*|\bexited with code [1-9]\d*)"
)
WARN_RX = re.compile(r"(\b(WARN|WARNING)\b|^\s*warning\s*:|\bDeprecationWarning\b)")
LEARN_RX = re.compile(
    r"^\s*(?:[-*•]\s*)?(?:\*\*)?(learned|learning|lesson(?:s)?(?: learned)?|til|takeaway|insight|note|"
    r"aprendido|aprendizaje|aprend[ií]|lecci[oó]n|nota|conclusi[oó]n|conclusion)(?:\*\*)?\s*[:\-—]\s*(.+)$",
    re.I,
)
FIX_RX = re.compile(
    r"^\s*(?:[-*•]\s*)?(?:\*\*)?(root cause|causa ra[ií]z|fix|fixed|solution|soluci[oó]n|"
    r"workaround)(?:\*\*)?\s*[:\-—]\s*(.+)$",
    re.I,
)
DECISION_RX = re.compile(
    r"^\s*(?:[-*•]\s*)?(?:\*\*)?(decision|decisi[oó]n|decided|decidimos)(?:\*\*)?\s*[:\-—]\s*(.+)$",
    re.I,
)
HEADING_RX = re.compile(
    r"^\s*(?:#+\s*)?(?:\*\*)?(key learnings|learnings|lessons(?: learned)?|takeaways|insights|"
    r"aprendizajes|lecciones(?: aprendidas)?)(?:\*\*)?\s*:?\s*$",
    re.I,
)
BULLET_RX = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(.+)$")
FILE_RX = re.compile(
    r"(?:File \"([^\"]+)\", line (\d+))|((?:[\w.\-]+/)*[\w\-]+\.(?:py|ts|tsx|js|jsx|go|rs|java|kt|rb|php|cs|c|cc|"
    r"cpp|h|hpp|swift|yaml|yml|json|toml|ini|cfg|sql|sh|md|vue|svelte)(?::\d+(?::\d+)?)?)\b"
)


def find_files(text: str) -> list[str]:
    out: list[str] = []
    for m in FILE_RX.finditer(text):
        f = f"{m.group(1)}:{m.group(2)}" if m.group(1) else m.group(3)
        if f and f not in out:
            out.append(f)
    return out


def clean_error_message(line: str) -> str:
    s = line.strip()
    s = re.sub(r"^\d{4}-\d\d-\d\d[T ][\d:.,]+Z?\s*", "", s)  # leading timestamp
    s = re.sub(r"^\[?(ERROR|FATAL|CRITICAL|PANIC|WARNING|WARN)\b\]?\s*[:\-]?\s*", "", s, flags=re.I)
    return norm_ws(s) or norm_ws(line)


def split_facts(lines: list[str]) -> tuple[list[str], list[str]]:
    """Split context lines into key: value facts and other sentences."""
    facts, other = [], []
    for ln in lines:
        for part in re.split(r"\.\s+|;\s+", ln.strip()):
            p = part.strip().rstrip(".").strip()
            if not p:
                continue
            if re.match(r"^[A-Za-z][\w .\-/]{0,40}?\s*[:=]\s*\S", p) and not re.match(
                r"^(https?|File)\b", p
            ):
                facts.append(p)
            else:
                other.append(p)
    return facts, other


def passive_extract(text: str, max_items: int) -> list[dict[str, str]]:
    lines = text.splitlines()
    # group into paragraphs
    paras: list[list[str]] = []
    cur: list[str] = []
    for ln in lines:
        if ln.strip():
            cur.append(ln)
        elif cur:
            paras.append(cur)
            cur = []
    if cur:
        paras.append(cur)

    items: list[dict[str, str]] = []
    seen: dict[str, dict] = {}

    def add(
        signal: str, type_: str, title: str, what: str, why: str, where: list[str], learned: str
    ) -> None:
        key = f"{signal}|{norm_ws(what).lower()}"
        if key in seen:
            seen[key]["occurrences"] += 1
            return
        content = (
            f"What: {what}\nWhy: {why}\nWhere: {', '.join(where) if where else 'not identified in the captured text'}"
            f"\nLearned: {learned}"
        )
        item = {
            "signal": signal,
            "type": type_,
            "title": title[:100],
            "content": content,
            "occurrences": 1,
        }
        seen[key] = item
        items.append(item)

    for para in paras:
        in_learning_list = False
        i = 0
        while i < len(para):
            line = para[i]
            stripped = line.strip()
            if HEADING_RX.match(stripped):
                in_learning_list = True
                i += 1
                continue
            m = LEARN_RX.match(stripped)
            if m:
                body = norm_ws(m.group(2))
                add(
                    "learning_marker",
                    "learning",
                    body,
                    body,
                    "Stated explicitly as a learning in the captured text.",
                    find_files(body),
                    body,
                )
                i += 1
                continue
            m = FIX_RX.match(stripped)
            if m:
                label, body = m.group(1).lower(), norm_ws(m.group(2))
                ctx_err = next((clean_error_message(p) for p in para if ERROR_RX.search(p)), None)
                add(
                    "fix_marker",
                    "bugfix",
                    f"{label.capitalize()}: {body}",
                    body,
                    f"Addresses: {ctx_err}"
                    if ctx_err
                    else f"Reported as {label} in the captured text.",
                    find_files("\n".join(para)),
                    body,
                )
                i += 1
                continue
            m = DECISION_RX.match(stripped)
            if m:
                body = norm_ws(m.group(2))
                add(
                    "decision_marker",
                    "decision",
                    f"Decision: {body}",
                    body,
                    "Recorded as a decision in the captured text.",
                    find_files(body),
                    body,
                )
                i += 1
                continue
            if in_learning_list:
                b = BULLET_RX.match(line)
                if b:
                    body = norm_ws(b.group(1))
                    add(
                        "learning_list",
                        "learning",
                        body,
                        body,
                        "Listed under a learnings heading.",
                        find_files(body),
                        body,
                    )
                    i += 1
                    continue
                in_learning_list = False
            is_err = bool(ERROR_RX.search(line)) and not stripped.startswith("Traceback")
            is_warn = not is_err and bool(WARN_RX.search(line))
            if is_err or is_warn:
                # context: following lines of the paragraph that are not themselves signals
                ctx: list[str] = []
                j = i + 1
                while j < len(para) and not (
                    ERROR_RX.search(para[j])
                    or WARN_RX.search(para[j])
                    or LEARN_RX.match(para[j].strip())
                    or FIX_RX.match(para[j].strip())
                    or DECISION_RX.match(para[j].strip())
                ):
                    ctx.append(para[j])
                    j += 1
                msg = clean_error_message(line)
                # facts may also sit on the error line itself after the first sentence
                head, _, tail = msg.partition(". ")
                facts, other = split_facts(([tail] if tail else []) + ctx)
                head = head.rstrip(".")
                where = find_files(
                    "\n".join([line] + ctx + [p for p in para if p.strip().startswith("File ")])
                )
                if facts:
                    why = (
                        "Observed in captured output under these conditions: "
                        + "; ".join(facts)
                        + "."
                    )
                    learned = (
                        f"'{head}' happens with "
                        + ", ".join(facts)
                        + ". Check these limits/settings first when this reappears."
                    )
                else:
                    extra = (" Context: " + " ".join(other[:3])) if other else ""
                    why = "Observed in captured output." + extra
                    learned = f"Watch for '{head}'; capture its root cause and fix with mem_save once known."
                if is_err:
                    add("error", "discovery", f"Error: {head}", head, why, where, learned)
                else:
                    add(
                        "warning",
                        "discovery",
                        f"Warning: {head}",
                        head,
                        why,
                        where,
                        f"Warning '{head}' is emitted; decide whether it needs action.",
                    )
                i = j
                continue
            i += 1
    for it in items:
        if it["occurrences"] > 1:
            it["content"] = it["content"].replace(
                "\nWhy: ", f"\nWhy: (seen {it['occurrences']} times) ", 1
            )
        it.pop("occurrences", None)
    return items[:max_items]


def judge_pair(a: sqlite3.Row, b: sqlite3.Row) -> dict[str, Any]:
    ta, tb = tokens(a["title"] + " " + a["content"]), tokens(b["title"] + " " + b["content"])
    sim = jaccard(ta, tb)
    title_sim = jaccard(tokens(a["title"]), tokens(b["title"]))
    same_topic = bool(a["topic_key"]) and a["topic_key"] == b["topic_key"]
    related = same_topic or sim >= 0.15 or title_sim >= 0.3
    newer, older = (a, b) if (a["updated_at"], a["seq"]) >= (b["updated_at"], b["seq"]) else (b, a)
    reasons: list[str] = []
    if same_topic:
        reasons.append(f"same topic_key '{a['topic_key']}'")
    contradictory = False
    if related:
        kva, kvb = key_values(a["content"]), key_values(b["content"])
        for k in sorted(set(kva) & set(kvb)):
            if kva[k] != kvb[k]:
                reasons.append(f"different value for '{k}': '{kva[k]}' vs '{kvb[k]}'")
                contradictory = True
        m = CHANGE_MARKERS.search(newer["title"] + "\n" + newer["content"])
        if m and sim < 0.95:
            reasons.append(f"newer memory {newer['id']} describes a change ('{m.group(0)}')")
            contradictory = True
        na = bool(NEGATIONS.search(a["title"] + " " + a["content"]))
        nb = bool(NEGATIONS.search(b["title"] + " " + b["content"]))
        if na != nb and (sim >= 0.3 or title_sim >= 0.4):
            reasons.append("opposite polarity (one negates what the other states)")
            contradictory = True
    if a["content_hash"] == b["content_hash"]:
        relation = "duplicate"
        reasons.append("identical title/content/type")
    elif contradictory:
        relation = "contradictory"
    elif sim >= 0.8:
        relation = "duplicate"
        reasons.append(f"very similar text (jaccard {sim:.2f})")
    elif related:
        relation = "complementary"
        reasons.append(
            f"shared subject (jaccard {sim:.2f}, title {title_sim:.2f}) without conflicting statements"
        )
    else:
        relation = "unrelated"
        reasons.append(f"little overlap (jaccard {sim:.2f})")
    return {
        "a": a["id"],
        "b": b["id"],
        "relation": relation,
        "similarity": round(sim, 3),
        "reasons": reasons,
        "newer": newer["id"] if relation in ("contradictory", "duplicate") else None,
        "_older": older["id"],
    }


# --------------------------------------------------------------------------
# tool implementations
# --------------------------------------------------------------------------


class Tools:
    def __init__(self, store: Store):
        self.s = store

    def _project(self, args: dict) -> str:
        p = args.get("project")
        return normalize_project(p) if p and p.strip() else detect_project()["project"]

    def _resolve_session(self, sid: str | None, project: str) -> str | None:
        if sid:
            self.s.get_session(sid)  # raises if unknown
            return sid
        r = self.s.active_session(project)
        return r["id"] if r else None

    # ---- mem_save ----
    def mem_save(self, a: dict) -> tuple[dict, str]:
        project = self._project(a)
        title, content = a["title"].strip(), a["content"].strip()
        type_ = a["type"].strip().lower()
        if not title or not content or not type_:
            raise ToolError("invalid_argument", "title, type and content must not be blank.")
        scope = a.get("scope") or "project"
        tk = normalize_topic_key(a["topic_key"]) if a.get("topic_key") else None
        sid = self._resolve_session(a.get("session_id"), project)
        action, mem = self.s.save(
            title=title,
            type_=type_,
            content=content,
            scope=scope,
            project=project,
            topic_key=tk,
            session_id=sid,
        )
        verb = {
            "created": "Saved new memory",
            "revised": f"Updated topic '{tk}' (revision {mem['revision_count']})",
            "deduplicated": f"Already stored; duplicate #{mem['duplicate_count']} noted",
        }[action]
        return {
            "action": action,
            "memory": mem,
        }, f"{verb}: {mem['id']} — {mem['title']} [{mem['type']}, {scope}]"

    # ---- mem_search ----
    def mem_search(self, a: dict) -> tuple[dict, str]:
        q = a["query"].strip()
        words = re.findall(r"\w+", q, re.UNICODE)
        if not words:
            raise ToolError("invalid_argument", "query must contain at least one word.")
        project = self._project(a)
        limit = a.get("limit", 10)
        where = ["o.deleted_at IS NULL"]
        params: list[Any] = []
        scope = a.get("scope")
        if a.get("all_projects"):
            if scope:
                where.append("o.scope=?")
                params.append(scope)
        elif scope == "personal":
            where.append("o.scope='personal'")
        elif scope == "project":
            where.append("o.scope='project' AND o.project=?")
            params.append(project)
        else:
            where.append("(o.scope='personal' OR (o.scope='project' AND o.project=?))")
            params.append(project)
        if a.get("type"):
            where.append("o.type=?")
            params.append(a["type"].strip().lower())
        rows: list = []
        mode = "all_words"
        if self.s.fts:
            for mode, joiner in (("all_words", " AND "), ("any_word", " OR ")):  # noqa: B007 (read after)
                expr = joiner.join('"' + w.replace('"', "") + '"*' for w in words)
                sql = (
                    "SELECT o.*, bm25(obs_fts, 5.0, 1.0, 2.0, 2.0) AS rank, "
                    "snippet(obs_fts, 1, '[', ']', '…', 14) AS snip FROM obs_fts JOIN observations o "
                    "ON o.seq = obs_fts.rowid WHERE obs_fts MATCH ? AND "
                    + " AND ".join(where)
                    + " ORDER BY rank, o.updated_at DESC LIMIT ?"
                )
                rows = self.s.db.execute(sql, [expr] + params + [limit]).fetchall()
                if rows or len(words) == 1:
                    break
        if not rows:
            mode = "substring"
            like = f"%{q}%"
            sql = (
                "SELECT o.*, 0.0 AS rank, substr(o.content,1,160) AS snip FROM observations o WHERE "
                "(o.title LIKE ? OR o.content LIKE ?) AND "
                + " AND ".join(where)
                + " ORDER BY o.updated_at DESC LIMIT ?"
            )
            rows = self.s.db.execute(sql, [like, like] + params + [limit]).fetchall()
        results = [
            {
                "score": round(-float(r["rank"]), 4),
                "snippet": norm_ws(r["snip"] or ""),
                "memory": self.s.mem_dict(r),
            }
            for r in rows
        ]
        if results:
            lines = [f"{len(results)} match(es) for '{q}' in {project}:"]
            lines += [
                f"- {x['memory']['id']} [{x['memory']['type']}] {x['memory']['title']}"
                for x in results
            ]
            text = "\n".join(lines)
        else:
            text = f"No memories match '{q}' in {project}."
        return {
            "query": q,
            "project": project,
            "match_mode": mode,
            "count": len(results),
            "results": results,
        }, text

    # ---- mem_context ----
    def mem_context(self, a: dict) -> tuple[dict, str]:
        project = self._project(a)
        limit = a.get("limit", 10)
        nsum = a.get("summaries", 3)
        db = self.s.db
        srows = db.execute(
            "SELECT * FROM sessions WHERE project=? AND summary_id IS NOT NULL "
            "ORDER BY summarized_at DESC LIMIT ?",
            (project, nsum),
        ).fetchall()
        summaries = []
        for r in srows:
            live = db.execute(
                "SELECT 1 FROM observations WHERE id=? AND deleted_at IS NULL", (r["summary_id"],)
            ).fetchone()
            if live:
                summaries.append(self.s.summary_dict(r))
        recent = [
            self.s.mem_dict(r)
            for r in db.execute(
                "SELECT * FROM observations WHERE project=? AND scope='project' AND deleted_at IS NULL "
                "AND type!='session_summary' ORDER BY updated_at DESC, seq DESC LIMIT ?",
                (project, limit),
            )
        ]
        personal = [
            self.s.mem_dict(r)
            for r in db.execute(
                "SELECT * FROM observations WHERE scope='personal' AND deleted_at IS NULL "
                "ORDER BY updated_at DESC, seq DESC LIMIT ?",
                (limit,),
            )
        ]
        active = [
            self.s.session_dict(r)
            for r in db.execute(
                "SELECT * FROM sessions WHERE project=? AND status='active' ORDER BY started_at DESC",
                (project,),
            )
        ]
        totals = {
            "project_memories": db.execute(
                "SELECT COUNT(*) FROM observations WHERE project=? AND scope='project' "
                "AND deleted_at IS NULL",
                (project,),
            ).fetchone()[0],
            "personal_memories": db.execute(
                "SELECT COUNT(*) FROM observations WHERE scope='personal' AND deleted_at IS NULL"
            ).fetchone()[0],
            "sessions": db.execute(
                "SELECT COUNT(*) FROM sessions WHERE project=?", (project,)
            ).fetchone()[0],
        }
        out = {
            "project": project,
            "last_summary": summaries[0] if summaries else None,
            "summaries": summaries,
            "recent_memories": recent,
            "personal_memories": personal,
            "active_sessions": active,
            "totals": totals,
        }
        lines = [f"Context for project '{project}':"]
        if summaries:
            s = summaries[0]
            lines.append(f"Last session ({s['session_id']}) goal: {s['goal']}")
            if s["accomplished"]:
                lines.append("  Accomplished: " + "; ".join(s["accomplished"]))
            if s["discoveries"]:
                lines.append("  Discoveries: " + "; ".join(s["discoveries"]))
            if s["files"]:
                lines.append("  Files: " + ", ".join(s["files"]))
        else:
            lines.append("No session summary yet.")
        lines.append(f"Recent memories ({len(recent)} of {totals['project_memories']}):")
        lines += [f"- {m['id']} [{m['type']}] {m['title']}" for m in recent]
        lines.append(f"Personal memories ({len(personal)}):")
        lines += [f"- {m['id']} [{m['type']}] {m['title']}" for m in personal]
        return out, "\n".join(lines)

    # ---- mem_suggest_topic_key ----
    def mem_suggest_topic_key(self, a: dict) -> tuple[dict, str]:
        title = a["title"].strip()
        fam, reason = suggest_family(a.get("type"), title, a.get("content") or "")
        slug = slugify(title)
        for prefix in {fam, (a.get("type") or "").lower(), "bug", "bugfix", "adr"}:
            if prefix and slug.startswith(prefix + "-") and len(slug) > len(prefix) + 1:
                slug = slug[len(prefix) + 1 :]
                break
        if not slug:
            raise ToolError("invalid_argument", "title has no usable characters for a key.")
        key = f"{fam}/{slug}"
        project = self._project(a)
        r = self.s.db.execute(
            "SELECT * FROM observations WHERE topic_key=? AND deleted_at IS NULL AND "
            "(scope='personal' OR project=?) ORDER BY updated_at DESC LIMIT 1",
            (key, project),
        ).fetchone()
        existing = self.s.mem_dict(r) if r else None
        text = f"Suggested topic key: {key}"
        if existing:
            text += f" (already used by {existing['id']}; saving with it will update that memory)"
        return {
            "topic_key": key,
            "family": fam,
            "slug": slug,
            "family_reason": reason,
            "existing": existing,
        }, text

    # ---- sessions ----
    def mem_session_start(self, a: dict) -> tuple[dict, str]:
        project = self._project(a)
        ts = now_iso()
        sid = (
            "ses_"
            + datetime.now(timezone.utc).strftime("%Y%m%d%H%M%S")
            + "_"
            + secrets.token_hex(3)
        )
        self.s.db.execute(
            "INSERT INTO sessions(id,project,status,started_at,note) VALUES (?,?,?,?,?)",
            (sid, project, "active", ts, a.get("note")),
        )
        self.s.db.commit()
        others = [
            self.s.session_dict(r)
            for r in self.s.db.execute(
                "SELECT * FROM sessions WHERE project=? AND status='active' AND id!=? ORDER BY started_at DESC",
                (project, sid),
            )
        ]
        prev = self.s.db.execute(
            "SELECT * FROM sessions WHERE project=? AND summary_id IS NOT NULL "
            "ORDER BY summarized_at DESC LIMIT 1",
            (project,),
        ).fetchone()
        prev_d = self.s.summary_dict(prev) if prev else None
        sess = self.s.session_dict(self.s.get_session(sid))
        text = f"Session {sid} started for project '{project}'."
        if prev_d:
            text += f" Previous session goal: {prev_d['goal']}"
        if others:
            text += f" ({len(others)} other session(s) still active.)"
        return {"session": sess, "other_active_sessions": others, "previous_summary": prev_d}, text

    def mem_session_summary(self, a: dict) -> tuple[dict, str]:
        project = self._project(a)
        created = False
        if a.get("session_id"):
            srow = self.s.get_session(a["session_id"])
            project = srow["project"]
        else:
            srow = self.s.active_session(project)
            if srow is None:
                st, _ = self.mem_session_start(
                    {"project": project, "note": "implicit (created by summary)"}
                )
                srow = self.s.get_session(st["session"]["id"])
                created = True
        goal = norm_ws(a["goal"])
        if not goal:
            raise ToolError("invalid_argument", "goal must not be blank.")
        disc, acc, files = (
            as_list(a.get("discoveries")),
            as_list(a.get("accomplished")),
            as_list(a.get("files")),
        )

        def section(name: str, items: list[str]) -> str:
            return f"## {name}\n" + ("\n".join(f"- {x}" for x in items) if items else "- (none)")

        content = "\n\n".join(
            [
                f"## Goal\n{goal}",
                section("Discoveries", disc),
                section("Accomplished", acc),
                section("Files", files),
            ]
        )
        title = f"Session summary: {goal}"[:120]
        action, mem = self.s.save(
            title=title,
            type_="session_summary",
            content=content,
            scope="project",
            project=project,
            topic_key=f"session/{srow['id']}",
            session_id=srow["id"],
            source="session",
        )
        ts = now_iso()
        self.s.db.execute(
            "UPDATE sessions SET summary_id=?, goal=?, discoveries=?, accomplished=?, files=?, "
            "summarized_at=? WHERE id=?",
            (mem["id"], goal, json.dumps(disc), json.dumps(acc), json.dumps(files), ts, srow["id"]),
        )
        self.s.db.commit()
        summary = self.s.summary_dict(self.s.get_session(srow["id"]))
        verb = (
            "recorded"
            if action == "created"
            else ("replaced" if action == "revised" else "unchanged")
        )
        text = (
            f"Summary {verb} for session {srow['id']} ({project}): {len(disc)} discoveries, "
            f"{len(acc)} accomplished, {len(files)} files."
            + (" Session was created implicitly." if created else "")
        )
        return {
            "action": action,
            "session_created": created,
            "summary": summary,
            "memory": mem,
        }, text

    def mem_session_end(self, a: dict) -> tuple[dict, str]:
        if a.get("session_id"):
            srow = self.s.get_session(a["session_id"])
        else:
            project = self._project(a)
            srow = self.s.active_session(project)
            if srow is None:
                raise ToolError("no_active_session", f"No active session for project '{project}'.")
        already = srow["status"] == "ended"
        if not already:
            self.s.db.execute(
                "UPDATE sessions SET status='ended', ended_at=? WHERE id=?", (now_iso(), srow["id"])
            )
            self.s.db.commit()
        sess = self.s.session_dict(self.s.get_session(srow["id"]))
        text = (
            f"Session {sess['id']} was already ended."
            if already
            else f"Session {sess['id']} ended ({sess['memory_count']} memories"
            f"{', with summary' if sess['has_summary'] else ', no summary'})."
        )
        return {"session": sess, "already_ended": already}, text

    # ---- update / delete ----
    def mem_update(self, a: dict) -> tuple[dict, str]:
        r = self.s.get_mem(a["id"])
        if r["deleted_at"] is not None:
            raise ToolError("deleted", f"Memory '{a['id']}' is deleted and cannot be updated.")
        fields = [f for f in ("title", "content", "type", "scope", "topic_key") if f in a]
        if not fields:
            raise ToolError(
                "invalid_argument",
                "Nothing to update: give title, content, type, scope or topic_key.",
            )
        new = {k: r[k] for k in ("title", "content", "type", "scope", "topic_key")}
        for f in fields:
            v = a[f]
            if f == "topic_key":
                new[f] = normalize_topic_key(v) if v and v.strip() else None
            elif f == "type":
                new[f] = v.strip().lower()
            else:
                new[f] = v.strip() if isinstance(v, str) else v
            if f in ("title", "content", "type") and not new[f]:
                raise ToolError("invalid_argument", f"{f} must not be blank.")
        if new["topic_key"] and (new["topic_key"] != r["topic_key"] or new["scope"] != r["scope"]):
            clash = self.s.db.execute(
                "SELECT id FROM observations WHERE topic_key=? AND scope=? AND deleted_at IS NULL AND id!=? "
                "AND (scope='personal' OR project=?)",
                (new["topic_key"], new["scope"], r["id"], r["project"]),
            ).fetchone()
            if clash:
                raise ToolError(
                    "topic_key_conflict",
                    f"topic_key '{new['topic_key']}' is already used by {clash['id']}.",
                )
        ts = now_iso()
        h = Store.content_hash(
            new["title"], new["content"], new["type"], r["project"], new["scope"]
        )
        self.s.db.execute(
            "UPDATE observations SET title=?, content=?, type=?, scope=?, topic_key=?, content_hash=?, "
            "revision_count=revision_count+1, updated_at=?, last_seen_at=? WHERE seq=?",
            (
                new["title"],
                new["content"],
                new["type"],
                new["scope"],
                new["topic_key"],
                h,
                ts,
                ts,
                r["seq"],
            ),
        )
        self.s._fts_put(r["seq"], new["title"], new["content"], new["type"], new["topic_key"])
        self.s.db.commit()
        mem = self.s.mem_dict(self.s.get_mem(r["id"]))
        return (
            {"updated_fields": fields, "memory": mem},
            f"Updated {mem['id']} ({', '.join(fields)}); now at revision {mem['revision_count']}.",
        )

    def mem_delete(self, a: dict) -> tuple[dict, str]:
        r = self.s.get_mem(a["id"])
        hard = bool(a.get("hard", False))
        already = r["deleted_at"] is not None
        if hard:
            self.s.db.execute("DELETE FROM observations WHERE seq=?", (r["seq"],))
            self.s._fts_del(r["seq"])
            self.s.db.execute("UPDATE sessions SET summary_id=NULL WHERE summary_id=?", (r["id"],))
            text = f"Permanently deleted {r['id']} — {r['title']}."
            already = False
        else:
            if not already:
                self.s.db.execute(
                    "UPDATE observations SET deleted_at=? WHERE seq=?", (now_iso(), r["seq"])
                )
                text = f"Soft-deleted {r['id']} — {r['title']} (hidden from search and context)."
            else:
                text = f"{r['id']} was already soft-deleted."
        self.s.db.commit()
        return {
            "id": r["id"],
            "mode": "hard" if hard else "soft",
            "already_deleted": already,
            "title": r["title"],
        }, text

    # ---- passive capture ----
    def mem_capture_passive(self, a: dict) -> tuple[dict, str]:
        project = self._project(a)
        if a.get("session_id"):
            srow = self.s.get_session(a["session_id"])
            project = srow["project"] if not a.get("project") else project
        sid = self._resolve_session(a.get("session_id"), project)
        extracted = passive_extract(a["content"], a.get("max_items", 10))
        dry = bool(a.get("dry_run", False))
        items, saved = [], 0
        for it in extracted:
            if dry:
                items.append({**it, "action": "preview", "memory": None})
                continue
            action, mem = self.s.save(
                title=it["title"],
                type_=it["type"],
                content=it["content"],
                scope="project",
                project=project,
                topic_key=None,
                session_id=sid,
                source="passive",
            )
            if action == "created":
                saved += 1
            items.append({**it, "action": action, "memory": mem})
        if not extracted:
            text = "No learnings recognized in the text (no errors, warnings or learning markers); nothing saved."
        else:
            head = (
                f"Would save {len(items)} item(s):"
                if dry
                else f"Extracted {len(items)} item(s), {saved} new memory(ies) saved:"
            )
            text = "\n".join(
                [head]
                + [
                    f"- [{x['type']}] {x['title']} ({x['action']}"
                    + (f", {x['memory']['id']})" if x["memory"] else ")")
                    for x in items
                ]
            )
        return {
            "extracted": len(extracted),
            "saved": saved,
            "dry_run": dry,
            "session_id": sid,
            "items": items,
        }, text

    # ---- judge ----
    def mem_judge(self, a: dict) -> tuple[dict, str]:
        rows = [self.s.get_mem(i) for i in a["ids"]]
        live = [r for r in rows if r["deleted_at"] is None]
        pairs = []
        for i in range(len(live)):
            for j in range(i + 1, len(live)):
                pairs.append(judge_pair(live[i], live[j]))
        superseded: dict[str, str] = {}
        for p in pairs:
            if p["relation"] in ("contradictory", "duplicate"):
                superseded.setdefault(p["_older"], p["newer"])
        # follow chains to the newest survivor
        for k in list(superseded):
            seen, target = {k}, superseded[k]
            while target in superseded and target not in seen:
                seen.add(target)
                target = superseded[target]
            superseded[k] = target
        verdicts = []
        for r in rows:
            if r["deleted_at"] is not None:
                verdicts.append(
                    {
                        "id": r["id"],
                        "title": r["title"],
                        "status": "deleted",
                        "superseded_by": None,
                        "recommendation": "already soft-deleted; ignored",
                    }
                )
                continue
            rels = [p for p in pairs if r["id"] in (p["a"], p["b"])]
            if r["id"] in superseded:
                by = superseded[r["id"]]
                dup = any(
                    p["relation"] == "duplicate"
                    and r["id"] in (p["a"], p["b"])
                    and by in (p["a"], p["b"])
                    for p in pairs
                )
                rec = (
                    f"redundant with {by}: merge anything unique into it, then mem_delete this one"
                    if dup
                    else f"outdated by {by}: mem_delete it, or mem_update it to match the current state"
                )
                verdicts.append(
                    {
                        "id": r["id"],
                        "title": r["title"],
                        "status": "outdated",
                        "superseded_by": by,
                        "recommendation": rec,
                    }
                )
            elif any(p["relation"] != "unrelated" for p in rels):
                verdicts.append(
                    {
                        "id": r["id"],
                        "title": r["title"],
                        "status": "current",
                        "superseded_by": None,
                        "recommendation": "keep (most recent statement on its subject)",
                    }
                )
            else:
                verdicts.append(
                    {
                        "id": r["id"],
                        "title": r["title"],
                        "status": "independent",
                        "superseded_by": None,
                        "recommendation": "keep (no relation to the others)",
                    }
                )
        counts: dict[str, int] = dict.fromkeys(
            ("contradictory", "duplicate", "complementary", "unrelated"), 0
        )
        for p in pairs:
            counts[p["relation"]] += 1
            p.pop("_older", None)
        counts["outdated"] = sum(1 for v in verdicts if v["status"] == "outdated")
        lines = [
            f"Judged {len(rows)} memories ({len(pairs)} pairs): "
            + ", ".join(f"{v} {k}" for k, v in counts.items() if k != "outdated" and v)
        ]
        for v in verdicts:
            if v["status"] == "outdated":
                lines.append(f"- {v['id']} is outdated -> {v['superseded_by']}")
        if counts["outdated"] == 0:
            lines.append("No memory is outdated.")
        return {"pairs": pairs, "verdicts": verdicts, "counts": counts}, "\n".join(lines)

    # ---- project ----
    def mem_current_project(self, a: dict) -> tuple[dict, str]:
        d = a.get("directory")
        if d and not os.path.isdir(d):
            raise ToolError("invalid_argument", f"'{d}' is not a directory.")
        info = detect_project(d)
        p = info["project"]
        db = self.s.db
        count = db.execute(
            "SELECT COUNT(*) FROM observations WHERE project=? AND scope='project' "
            "AND deleted_at IS NULL",
            (p,),
        ).fetchone()[0]
        pcount = db.execute(
            "SELECT COUNT(*) FROM observations WHERE scope='personal' AND deleted_at IS NULL"
        ).fetchone()[0]
        act = self.s.active_session(p)
        out = {
            **info,
            "data_dir": self.s.data_dir,
            "memory_count": count,
            "personal_memory_count": pcount,
            "active_session": self.s.session_dict(act) if act else None,
        }
        text = (
            f"Current project: {p} (from {info['source']}, {info['directory']}); {count} memories"
            + (f"; active session {act['id']}" if act else "; no active session")
            + "."
        )
        return out, text


# --------------------------------------------------------------------------
# MCP wiring
# --------------------------------------------------------------------------


def validate_args(name: str, args: dict) -> None:
    schema = TOOL_INDEX[name]["input"]
    if jsonschema is not None:
        v = jsonschema.Draft202012Validator(schema)
        errs = sorted(v.iter_errors(args), key=lambda e: list(e.path))
        if errs:
            e = errs[0]
            where = ".".join(str(p) for p in e.path) or "arguments"
            allowed = ", ".join(schema["properties"])
            raise ToolError(
                "invalid_argument", f"{where}: {e.message} (accepted arguments: {allowed})"
            )
    else:  # minimal fallback
        for r in schema.get("required", []):
            if r not in args:
                raise ToolError("invalid_argument", f"missing required argument '{r}'")


def build_server(store: Store) -> Server:
    tools = Tools(store)

    async def list_tools(ctx, params) -> types.ListToolsResult:
        out = []
        for t in TOOLS:
            ann = types.ToolAnnotations(
                read_only_hint=t["name"] in READ_ONLY,
                destructive_hint=t["name"] == "mem_delete",
                idempotent_hint=t["name"] in READ_ONLY,
                open_world_hint=False,
            )
            out.append(
                types.Tool(
                    name=t["name"],
                    description=t["description"],
                    input_schema=t["input"],
                    output_schema=t["output"],
                    annotations=ann,
                )
            )
        return types.ListToolsResult(tools=out)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        args = dict(params.arguments or {})
        if name not in TOOL_INDEX:
            return types.CallToolResult(
                content=[types.TextContent(text=f"Unknown tool '{name}'.")],
                structured_content={
                    "error": {"code": "unknown_tool", "message": f"Unknown tool '{name}'."}
                },
                is_error=True,
            )
        try:
            validate_args(name, args)
            data, text = getattr(tools, name)(args)
            return types.CallToolResult(
                content=[types.TextContent(text=text)], structured_content=data
            )
        except ToolError as e:
            return types.CallToolResult(
                content=[types.TextContent(text=f"{name} failed: {e.message}")],
                structured_content={"error": {"code": e.code, "message": e.message}},
                is_error=True,
            )
        except Exception as e:  # unexpected: still a tool-level error
            try:
                store.db.rollback()
            except Exception:
                pass
            return types.CallToolResult(
                content=[types.TextContent(text=f"{name} failed: internal error: {e}")],
                structured_content={"error": {"code": "internal", "message": str(e)}},
                is_error=True,
            )

    return Server(
        SERVER_NAME,
        version=SERVER_VERSION,
        instructions=(
            "Agent memory. Call mem_session_start and mem_context at the beginning, mem_save for "
            "each significant result (What/Why/Where/Learned), mem_session_summary and mem_session_end "
            "at the end."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def main() -> None:
    store = Store(os.environ.get("MEMSERVER_DATA") or "./memdata")
    server = build_server(store)
    async with stdio_server() as (r, w):
        await server.run(r, w, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
