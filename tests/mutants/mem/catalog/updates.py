"""mem servers whose mem_update goes wrong (UPD), as real ones do: a change applied but answered
as an error, the search index left with the old text, the fields not given reset to their
defaults (a replace, not a patch), an update of no field answered as a success, a soft-deleted
memory updated.

Each rewrites the reference's answers (``CallMutant``) or a method of its service
(``ServiceMutant``); ``Caught`` says which UPD rules it breaks.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from engram_conformance.reference_impl.mem.arguments import ToolError
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.reference_impl.mem.service import MemService
from engram_conformance.reference_impl.mem.store import Observation
from engram_conformance.reference_impl.mem.text import quoted

from ...caught import Caught
from ..seams import CallMutant, ServiceMutant, answering, mem_caught, text_of

Given = dict[str, str | None]
#: what the reference answers an update of no field
NO_FIELD = "provide at least one field to update"


class UpdateAnswersError(ServiceMutant):
    """mem_update applies the change, then answers isError (its read-back fails)."""

    def patch(self, service: MemService) -> None:
        update = service.memories.update

        def failing(observation_id: int, given: Given) -> Observation | None:
            if update(observation_id, given) is None:
                return None
            raise ToolError(f"could not read memory #{observation_id} back")

        service.memories.update = failing  # type: ignore[method-assign]


class UpdateLeavesIndexStale(ServiceMutant):
    """mem_update leaves the search index with the memory's old title and content."""

    def patch(self, service: MemService) -> None:
        service.store.connection.execute("DROP TRIGGER observations_reindexed")


class UpdateResetsUnsetFields(ServiceMutant):
    """mem_update replaces the memory: the type, scope and topic key not given go back to
    their defaults."""

    def patch(self, service: MemService) -> None:
        update = service.memories.update
        defaults: Given = {"type": "manual", "scope": "project", "topic_key": None}

        def replacing(observation_id: int, given: Given) -> Observation | None:
            return update(observation_id, defaults | given)

        service.memories.update = replacing  # type: ignore[method-assign]


class UpdateWithoutFieldsSucceeds(CallMutant):
    """mem_update with no field to change answers success (and changes nothing)."""

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        if tool != "mem_update" or text_of(result) != NO_FIELD:
            return result
        memory = self.service.store.observation(arguments["id"])
        if memory is None:
            return result
        told = f"{quoted(memory.title)} ({memory.type}, scope={memory.scope})"
        return answering(result, f"Memory updated: #{memory.id} {told}", is_error=False)


class UpdateReachesSoftDeleted(ServiceMutant):
    """mem_update changes a soft-deleted memory (which stays deleted) and answers success."""

    def patch(self, service: MemService) -> None:
        store, update = service.store, service.memories.update

        def reaching(observation_id: int, given: Given) -> Observation | None:
            memory = store.observation(observation_id, deleted=True)
            if memory is None or memory.deleted_at is None:
                return update(observation_id, given)
            with store.transaction():
                store.revise(observation_id, dict(given), seen=False)
            return store.observation(observation_id, deleted=True)

        service.memories.update = reaching  # type: ignore[method-assign]


#: each mutant and what it breaks
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (UpdateAnswersError, mem_caught("UPD-001")),
    (UpdateLeavesIndexStale, mem_caught("UPD-002")),
    (UpdateResetsUnsetFields, mem_caught("UPD-003")),
    (UpdateWithoutFieldsSucceeds, mem_caught("UPD-004")),
    (UpdateReachesSoftDeleted, mem_caught("UPD-004")),
]
