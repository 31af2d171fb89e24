"""mem servers whose sessions go wrong (SESS), the way real servers drift: a session started
for the wrong project or only with a caller's id, memories cut off from their session, summaries
stored as something else or left out of the context, sessions that never stop being active.

Besides ``mem_calls.CallMutant`` (a call's arguments or answer changed), two seams used by the
other mem catalogues too: ``ServiceMutant`` serves each call through ``serve`` (in the service's
worker thread, before the reference or instead of it), ``StoreMutant`` patches the service's
store in place (``patch``). Each changes one service, so nothing leaks into the next run.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.reference_impl.mem.service import Answer, MemService
from engram_conformance.reference_impl.mem.store import Observation, Store

from ..caught import Caught
from ..mem_calls import CallMutant, answering

SUMMARY_TYPE = "session_summary"


class ServiceMutant(Handlers):
    """The reference's handlers, every call served by ``serve`` (by default the reference's)."""

    def __init__(self, service: MemService) -> None:
        super().__init__(service)
        self.reference = service.call
        service.call = self.serve  # type: ignore[method-assign]

    def serve(self, tool: str, sent: Any) -> Answer:
        return self.reference(tool, sent)

    @property
    def store(self) -> Store:
        return self.service.store


class StoreMutant(Handlers):
    """The reference's handlers over a store that ``patch`` changed."""

    def __init__(self, service: MemService) -> None:
        super().__init__(service)
        self.patch(service.store)

    def patch(self, store: Store) -> None:
        """Replace some of ``store``'s methods (on the instance)."""


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


class StartNeedsAnId(ServiceMutant):
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
class TimelineWithoutNeighbours(StoreMutant):
    """mem_timeline shows the focus alone, never the other memories of its session."""

    def patch(self, store: Store) -> None:
        store.neighbours = lambda focus, before, after: ([], [])  # type: ignore[method-assign]


class SavesIgnoreTheActiveSession(StoreMutant):
    """A save without session_id always goes to the project's default session
    (manual-save-<project>), whatever session is active (upstream issue #386)."""

    def patch(self, store: Store) -> None:
        store.active_session = lambda project, implicit: None  # type: ignore[method-assign]


class EndedSessionStaysActive(StoreMutant):
    """A save without session_id goes to the project's most recent session even once it has
    ended."""

    def patch(self, store: Store) -> None:
        def active_session(project: str, implicit: str) -> str | None:
            row = store.connection.execute(
                "SELECT id FROM sessions WHERE project = ? AND id != ? "
                "ORDER BY started_at DESC, rowid DESC LIMIT 1",
                (project, implicit),
            ).fetchone()
            return None if row is None else str(row[0])

        store.active_session = active_session  # type: ignore[method-assign]


class UnknownSessionCreated(ServiceMutant):
    """mem_save with a session_id no session has creates that session (v1.7.0's upsert)
    instead of refusing the call."""

    def serve(self, tool: str, sent: Any) -> Answer:
        session = sent.get("session_id") if tool == "mem_save" else None
        if isinstance(session, str) and session and self.store.session(session) is None:
            with self.store.transaction():
                self.store.ensure_session(session, project_of(self.service, sent))
        return self.reference(tool, sent)


# SESS-004, SESS-005, SESS-010, SESS-012 ---------------------------------------------------------
class ContextLeavesOutSummaries(StoreMutant):
    """mem_context shows no session summary: neither the latest one nor any in the list."""

    def patch(self, store: Store) -> None:
        recent = store.recent

        def without_summaries(*args: Any, **kwargs: Any) -> list[Observation]:
            return [o for o in recent(*args, **kwargs) if o.type != SUMMARY_TYPE]

        store.latest_of_type = lambda project, memory_type: None  # type: ignore[method-assign]
        store.recent = without_summaries  # type: ignore[method-assign]


class SummaryStoredAsNote(ServiceMutant):
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


class ContextShowsTheOldestSummary(StoreMutant):
    """mem_context shows a project's oldest session summary as its latest."""

    def patch(self, store: Store) -> None:
        def oldest_of_type(project: str, memory_type: str) -> Observation | None:
            row = store.connection.execute(
                "SELECT * FROM observations WHERE project = ? AND type = ? "
                "AND deleted_at IS NULL ORDER BY updated_at, id LIMIT 1",
                (project, memory_type),
            ).fetchone()
            return None if row is None else Observation(*row)

        store.latest_of_type = oldest_of_type  # type: ignore[method-assign]


# SESS-007, SESS-008 -----------------------------------------------------------------------------
class EmptyContextIsAnError(ServiceMutant):
    """mem_context of a project that has no memories yet answers isError."""

    def serve(self, tool: str, sent: Any) -> Answer:
        project = project_of(self.service, sent)
        if tool == "mem_context" and live_count(self.store, project) == 0:
            return Answer(f"no memories for project {project}", is_error=True)
        return self.reference(tool, sent)


class EndingHidesTheSessionsMemories(ServiceMutant):
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


def _caught(*rules: str) -> Caught:
    return Caught(rules, contract="mem")


#: each mutant and what it breaks
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (StartsInTheDefaultProject, _caught("SESS-001")),
    (StartNeedsAnId, _caught("SESS-002")),
    (TimelineWithoutNeighbours, _caught("SESS-003")),
    (ContextLeavesOutSummaries, _caught("SESS-004", "SESS-008", "SESS-012")),
    (SummaryStoredAsNote, _caught("SESS-005")),
    (EndNamesNoSession, _caught("SESS-006")),
    (EmptyContextIsAnError, _caught("SESS-007")),
    (EndingHidesTheSessionsMemories, _caught("SESS-008")),
    (SavesIgnoreTheActiveSession, _caught("SESS-009")),
    (EndedSessionStaysActive, _caught("SESS-009")),
    (BlankSummaryStored, _caught("SESS-010")),
    (UnknownSessionCreated, _caught("SESS-011")),
    (ContextShowsTheOldestSummary, _caught("SESS-012")),
]
