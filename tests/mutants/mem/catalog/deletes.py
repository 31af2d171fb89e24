"""mem servers whose deletes go wrong (DEL), as real ones do: a soft-deleted memory still
searched, listed, read or shown in a timeline; a hard delete that keeps the row; the seed's
``hard`` ignored (upstream's) or unlisted; a soft-deleted memory that cannot be hard-deleted
(upstream v1.20.0); deletes of nothing answered as successes (upstream v1.7.0).

Each rewrites the reference's calls (``CallMutant``), its tools/list, or a method of its service
(``ServiceMutant``); ``Caught`` says which DEL rules it breaks.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.reference_impl.mem.service import Answer, MemService
from engram_conformance.reference_impl.mem.store import Observation, Store

from ...caught import Caught
from ..seams import (
    PROJECT_AND_PERSONAL,
    Ignores,
    ListsRecent,
    ServiceMutant,
    ServingMutant,
    mem_caught,
)


class SoftDeletedStillSearchable(ServiceMutant):
    """mem_search finds soft-deleted memories."""

    def patch(self, service: MemService) -> None:
        connection = service.store.connection

        def search(
            match: str,
            project: str | None,
            memory_type: str | None,
            scope: str | None,
            limit: int,
            *,
            personal_everywhere: bool,
        ) -> list[Observation]:
            rows = connection.execute(
                "SELECT o.* FROM observations_fts f JOIN observations o ON o.id = f.rowid "
                "WHERE observations_fts MATCH ?1 "
                "AND (?2 IS NULL OR o.project = ?2 OR (?6 AND o.scope = 'personal')) "
                "AND (?3 IS NULL OR o.scope = ?3) AND (?4 IS NULL OR o.type = ?4) "
                "ORDER BY f.rank, o.id DESC LIMIT ?5",
                (match, project, scope, memory_type, limit, personal_everywhere),
            )
            return [Observation(*row) for row in rows]

        service.store.search = search  # type: ignore[method-assign]


class SoftDeletedInContext(ListsRecent):
    """mem_context lists soft-deleted memories."""

    where = PROJECT_AND_PERSONAL


class TimelineShowsSoftDeleted(ServiceMutant):
    """mem_timeline lists soft-deleted memories among a memory's neighbours."""

    def patch(self, service: MemService) -> None:
        connection = service.store.connection

        def neighbours(
            focus: Observation, before: int, after: int
        ) -> tuple[list[Observation], list[Observation]]:
            session, around = focus.session_id, focus.id
            earlier = connection.execute(
                "SELECT * FROM observations WHERE session_id = ? AND id < ? "
                "ORDER BY id DESC LIMIT ?",
                (session, around, before),
            )
            later = connection.execute(
                "SELECT * FROM observations WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?",
                (session, around, after),
            )
            return [Observation(*r) for r in earlier][::-1], [Observation(*r) for r in later]

        service.store.neighbours = neighbours  # type: ignore[method-assign]


class GetShowsSoftDeleted(ServingMutant):
    """mem_get_observation reads a soft-deleted memory as if it were live."""

    def serve(self, tool: str, sent: Any) -> Answer:
        if tool != "mem_get_observation":
            return self.reference(tool, sent)
        store = self.store
        read = store.observation

        def any_row(observation_id: int, *, deleted: bool = False) -> Observation | None:
            return read(observation_id, deleted=True)

        store.observation = any_row  # type: ignore[method-assign]
        try:
            return self.reference(tool, sent)
        finally:
            del store.observation  # the store's own method again


class HardDeleteKeepsTheRow(ServiceMutant):
    """A hard delete answers success but leaves the memory as it was."""

    def patch(self, service: MemService) -> None:
        service.store.hard_delete = lambda observation_id: None  # type: ignore[method-assign]


class IgnoresHard(Ignores):
    """mem_delete ignores the seed's hard (upstream's): hard=true soft-deletes."""

    tools, ignored = ("mem_delete",), "hard"


class UnlistsHard(Handlers):
    """mem_delete's schema lists hard_delete only (hard still works)."""

    async def list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        listed = await super().list_tools(ctx, params)
        tools = [tool.model_dump(by_alias=True) for tool in listed.tools]
        for tool in tools:
            if tool["name"] == "mem_delete":
                del tool["inputSchema"]["properties"]["hard"]
        return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in tools])


class DeletesFinding(ServiceMutant):
    """A delete goes ahead when ``goes_ahead`` says so of the id's row (soft-deleted or not;
    ``None`` when no row has the id), and answers success when it does."""

    def goes_ahead(self, memory: Observation | None, hard: bool) -> bool:
        raise NotImplementedError

    def patch(self, service: MemService) -> None:
        store = service.store

        def delete(observation_id: int, *, hard: bool) -> bool:
            with store.transaction():
                memory = store.observation(observation_id, deleted=True)
                if not self.goes_ahead(memory, hard):
                    return False
                if memory is not None:
                    (store.hard_delete if hard else store.soft_delete)(observation_id)
                return True

        service.memories.delete = delete  # type: ignore[method-assign]


class HardDeleteSkipsSoftDeleted(DeletesFinding):
    """A hard delete of a soft-deleted memory answers not found (upstream v1.20.0)."""

    def goes_ahead(self, memory: Observation | None, hard: bool) -> bool:
        return memory is not None and memory.deleted_at is None


class SoftDeleteAlwaysSucceeds(DeletesFinding):
    """A soft delete succeeds whatever the id, unknown or already deleted (upstream v1.7.0)."""

    def goes_ahead(self, memory: Observation | None, hard: bool) -> bool:
        return not hard or memory is not None


class SoftDeletesTwice(DeletesFinding):
    """A soft delete of an already soft-deleted memory succeeds again."""

    def goes_ahead(self, memory: Observation | None, hard: bool) -> bool:
        return memory is not None


class DeletesBeyondItsCounter(ServiceMutant):
    """A delete of an id the store never issued (beyond its id counter) answers success: the
    server asks its counter whether an id exists, not its rows (an id it issued, hard-deleted
    since or not, is looked up as the reference does)."""

    def patch(self, service: MemService) -> None:
        store, delete = service.store, service.memories.delete

        def deleting(observation_id: int, *, hard: bool) -> bool:
            issued = store.connection.execute(
                "SELECT seq FROM sqlite_sequence WHERE name = 'observations'"
            ).fetchone()
            return observation_id > (issued[0] if issued else 0) or delete(
                observation_id, hard=hard
            )

        service.memories.delete = deleting  # type: ignore[method-assign]


#: each mutant and what it breaks
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (SoftDeletedStillSearchable, mem_caught("DEL-001")),
    (SoftDeletedInContext, mem_caught("DEL-001")),
    (TimelineShowsSoftDeleted, mem_caught("DEL-002")),
    (GetShowsSoftDeleted, mem_caught("DEL-002")),
    (HardDeleteKeepsTheRow, mem_caught("DEL-003", "DEL-004", "DEL-006")),
    (IgnoresHard, mem_caught("DEL-004")),
    (UnlistsHard, mem_caught("DEL-004")),
    (HardDeleteSkipsSoftDeleted, mem_caught("DEL-006")),
    (SoftDeleteAlwaysSucceeds, mem_caught("DEL-006", "DEL-007")),
    (SoftDeletesTwice, mem_caught("DEL-007", about={"DEL-007": "of soft-deleted"})),
    (DeletesBeyondItsCounter, mem_caught("DEL-007", about={"DEL-007": "of unknown"})),
]


def leaves_the_text() -> None:
    """A hard delete removes the row and nothing more: freed pages are not zeroed, the search
    index keeps the memory's terms in its segments and the WAL is never checkpointed."""

    def hard_delete(self: Store, observation_id: int) -> None:
        self.connection.execute("PRAGMA secure_delete=OFF")
        self.connection.execute("DELETE FROM observations WHERE id = ?", (observation_id,))

    Store.hard_delete = hard_delete  # type: ignore[method-assign]
    Store.checkpoint = lambda self: True  # type: ignore[method-assign]


#: mutants a server over stdio must have (``stdio_server.py``): the harness stops it to judge
STDIO = {"hard-delete-leaves-text": (leaves_the_text, mem_caught("DEL-008"))}
