"""mem servers whose sessions go wrong (SESS), the way real servers drift: a session started
for the wrong project or only with a caller's id, memories cut off from their session, summaries
stored as something else or left out of the context, sessions that never stop being active.

Each changes a call (``seams.CallMutant``), serves it (``ServingMutant``) or patches the
service's store (``ServiceMutant``).
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.reference_impl.mem.service import Answer, MemService
from engram_conformance.reference_impl.mem.store import Observation, Store

from ...caught import Caught
from ..seams import CallMutant, ServiceMutant, ServingMutant, answering, mem_caught

SUMMARY_TYPE = "session_summary"


def live_count(store: Store, project: str) -> int:
    """How many live memories ``project`` has."""
    (count,) = store.connection.execute(
        "SELECT count(*) FROM observations WHERE project = ? AND deleted_at IS NULL", (project,)
    ).fetchone()
    return int(count)


def project_of(service: MemService, sent: dict[str, Any]) -> str:
    """The project a call works in: its ``project``, else the current one."""
    given = sent.get("project")
    return given.strip() if isinstance(given, str) and given.strip() else service.current.name


# SESS-001, SESS-002, SESS-006 -------------------------------------------------------------------
class StartsInTheDefaultProject(CallMutant):
    """mem_session_start without a project registers the session under "default", not the
    current project."""

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if tool == "mem_session_start" and not arguments.get("project"):
            return arguments | {"project": "default"}
        return arguments


class StartNeedsAnId(ServingMutant):
    """mem_session_start refuses a call without id (upstream's schema), generating none."""

    def serve(self, tool: str, sent: Any) -> Answer:
        if tool == "mem_session_start" and not sent.get("id"):
            return Answer("id is required", is_error=True)
        return self.reference(tool, sent)


class EndNamesNoSession(CallMutant):
    """mem_session_end answers `Session "" completed`: it names a field it never set."""

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        if tool == "mem_session_end" and not result.is_error:
            return answering(result, 'Session "" completed')
        return result


# SESS-003, SESS-009, SESS-011 -------------------------------------------------------------------
class TimelineWithoutNeighbours(ServiceMutant):
    """mem_timeline shows the focus alone, never the other memories of its session."""

    def patch(self, service: MemService) -> None:
        store = service.store
        store.neighbours = lambda focus, before, after: ([], [])  # type: ignore[method-assign]


class SavesIgnoreTheActiveSession(ServiceMutant):
    """A save without session_id always goes to the project's default session
    (manual-save-<project>), whatever session is active (upstream issue #386)."""

    def patch(self, service: MemService) -> None:
        store = service.store
        store.active_session = lambda project, implicit: None  # type: ignore[method-assign]


class EndedSessionStaysActive(ServiceMutant):
    """A save without session_id goes to the project's most recent session even once it has
    ended."""

    def patch(self, service: MemService) -> None:
        store = service.store

        def active_session(project: str, implicit: str) -> str | None:
            row = store.connection.execute(
                "SELECT id FROM sessions WHERE project = ? AND id != ? "
                "ORDER BY started_at DESC, rowid DESC LIMIT 1",
                (project, implicit),
            ).fetchone()
            return None if row is None else str(row[0])

        store.active_session = active_session  # type: ignore[method-assign]


class UnknownSessionCreated(ServingMutant):
    """mem_save with a session_id no session has creates that session (v1.7.0's upsert)
    instead of refusing the call."""

    def serve(self, tool: str, sent: Any) -> Answer:
        session = sent.get("session_id") if tool == "mem_save" else None
        if isinstance(session, str) and session and self.store.session(session) is None:
            with self.store.transaction():
                self.store.ensure_session(session, project_of(self.service, sent))
        return self.reference(tool, sent)


# SESS-004, SESS-005, SESS-010, SESS-012 ---------------------------------------------------------
class ContextLeavesOutSummaries(ServiceMutant):
    """mem_context shows no session summary: neither the latest one nor any in the list."""

    def patch(self, service: MemService) -> None:
        store = service.store
        recent = store.recent

        def without_summaries(*args: Any, **kwargs: Any) -> list[Observation]:
            return [o for o in recent(*args, **kwargs) if o.type != SUMMARY_TYPE]

        store.latest_of_type = lambda project, memory_type: None  # type: ignore[method-assign]
        store.recent = without_summaries  # type: ignore[method-assign]


class SummaryStoredAsNote(ServingMutant):
    """mem_session_summary saves an ordinary memory of type "note", not a session_summary."""

    def serve(self, tool: str, sent: Any) -> Answer:
        if tool != "mem_session_summary":
            return self.reference(tool, sent)
        project = project_of(self.service, sent)
        note = sent | {"title": f"Session summary: {project}", "type": "note"}
        saved = self.reference("mem_save", note)
        if saved.is_error:
            return saved
        return Answer(f'Session summary saved for project "{project}"', is_error=False)


class BlankSummaryStored(CallMutant):
    """mem_session_summary of a blank content stores a placeholder summary."""

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        content = arguments.get("content")
        if tool == "mem_session_summary" and isinstance(content, str) and not content.strip():
            return arguments | {"content": "(no summary given)"}
        return arguments


class ContextShowsTheOldestSummary(ServiceMutant):
    """mem_context shows a project's oldest session summary as its latest."""

    def patch(self, service: MemService) -> None:
        store = service.store

        def oldest_of_type(project: str, memory_type: str) -> Observation | None:
            row = store.connection.execute(
                "SELECT * FROM observations WHERE project = ? AND type = ? "
                "AND deleted_at IS NULL ORDER BY updated_at, id LIMIT 1",
                (project, memory_type),
            ).fetchone()
            return None if row is None else Observation(*row)

        store.latest_of_type = oldest_of_type  # type: ignore[method-assign]


# SESS-007, SESS-008 -----------------------------------------------------------------------------
class EmptyContextIsAnError(ServingMutant):
    """mem_context of a project that has no memories yet answers isError."""

    def serve(self, tool: str, sent: Any) -> Answer:
        project = project_of(self.service, sent)
        if tool == "mem_context" and live_count(self.store, project) == 0:
            return Answer(f"no memories for project {project}", is_error=True)
        return self.reference(tool, sent)


class EndingHidesTheSessionsMemories(ServingMutant):
    """mem_session_end soft-deletes the memories of the session it ends."""

    def serve(self, tool: str, sent: Any) -> Answer:
        answer = self.reference(tool, sent)
        if tool == "mem_session_end" and not answer.is_error:
            with self.store.transaction():
                self.store.connection.execute(
                    "UPDATE observations SET deleted_at = ? WHERE session_id = ?",
                    (self.store.now(), sent["id"]),
                )
        return answer


#: each mutant and what it breaks
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (StartsInTheDefaultProject, mem_caught("SESS-001")),
    (StartNeedsAnId, mem_caught("SESS-002")),
    (TimelineWithoutNeighbours, mem_caught("SESS-003")),
    (ContextLeavesOutSummaries, mem_caught("SESS-004", "SESS-008", "SESS-012")),
    (SummaryStoredAsNote, mem_caught("SESS-005")),
    (EndNamesNoSession, mem_caught("SESS-006")),
    (EmptyContextIsAnError, mem_caught("SESS-007")),
    (EndingHidesTheSessionsMemories, mem_caught("SESS-008")),
    (SavesIgnoreTheActiveSession, mem_caught("SESS-009")),
    (EndedSessionStaysActive, mem_caught("SESS-009")),
    (BlankSummaryStored, mem_caught("SESS-010")),
    (UnknownSessionCreated, mem_caught("SESS-011")),
    (ContextShowsTheOldestSummary, mem_caught("SESS-012")),
]
