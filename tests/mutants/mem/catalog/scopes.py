"""mem servers that get scopes wrong (SCOPE), as real ones do: the wrong default, a scope shown
wrong, a project filter dropped, personal memories kept to their project (upstream's context),
a scope filter ignored, an unknown scope stored as project (upstream's normalisation).

Each rewrites the reference's calls (``CallMutant``) or replaces a store method of its service
(``ServiceMutant``, ``ListsRecent``); ``Caught`` says which SCOPE rules it breaks.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.reference_impl.mem.service import Answer, MemService
from engram_conformance.reference_impl.mem.store import Observation

from ...caught import Caught
from ..seams import (
    CallMutant,
    Ignores,
    ListsRecent,
    ServiceMutant,
    ServingMutant,
    answering,
    mem_caught,
    text_of,
)

SCOPES = ("project", "personal")


class DefaultScopePersonal(CallMutant):
    """A mem_save without scope stores a personal memory."""

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if tool == "mem_save" and "scope" not in arguments:
            return arguments | {"scope": "personal"}
        return arguments


class ObservationShowsProjectScope(CallMutant):
    """mem_get_observation shows every memory's scope as project."""

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        if tool != "mem_get_observation" or result.is_error:
            return result
        shown = text_of(result).replace("\nScope: personal\n", "\nScope: project\n")
        return answering(result, shown)


class SearchIgnoresProject(CallMutant):
    """mem_search ignores its project argument: it searches every project."""

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if tool == "mem_search" and "project" in arguments:
            return {k: v for k, v in arguments.items() if k != "project"} | {"all_projects": True}
        return arguments


class ScopeFilterIgnored(Ignores):
    """mem_search and mem_context ignore their scope argument."""

    tools, ignored = ("mem_search", "mem_context"), "scope"


class UnknownScopeStoredAsProject(CallMutant):
    """A mem_save with a scope other than project or personal stores a project memory
    (upstream's normalisation)."""

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if tool == "mem_save" and arguments.get("scope", "project") not in SCOPES:
            return arguments | {"scope": "project"}
        return arguments


class ContextShowsEveryProject(ListsRecent):
    """mem_context lists the recent memories of every project, not only its own."""

    where = "deleted_at IS NULL AND ?1 IS NOT NULL"


class ContextPersonalOnlyOfItsProject(ListsRecent):
    """mem_context shows other projects' personal memories only with scope personal
    (upstream's rule)."""

    where = "deleted_at IS NULL AND (project = ?1 OR (?2 = 'personal' AND scope = 'personal'))"


class PersonalSearchStaysInProject(ServiceMutant):
    """mem_search without a project finds only the current project's personal memories."""

    def patch(self, service: MemService) -> None:
        search = service.store.search

        def confined(*arguments: Any, personal_everywhere: bool) -> list[Observation]:
            return search(*arguments, personal_everywhere=False)

        service.store.search = confined  # type: ignore[method-assign]


class PersonalContextStaysInProject(ServingMutant):
    """mem_context without a project shows only the current project's personal memories; told
    a project, it shows every project's (mem_search is left as the reference has it)."""

    def serve(self, tool: str, sent: Any) -> Answer:
        if tool != "mem_context" or sent.get("project") is not None:
            return self.reference(tool, sent)
        recent = self.store.recent

        def confined(
            project: str, scope: str | None, limit: int, *, besides: int | None = None
        ) -> list[Observation]:
            rows = recent(project, scope, _EVERY_ROW, besides=besides)
            return [row for row in rows if row.project == project][:limit]

        self.store.recent = confined  # type: ignore[method-assign]
        try:
            return self.reference(tool, sent)
        finally:
            del self.store.recent


#: more rows than any run saves: ``recent`` then lists them all, to be filtered
_EVERY_ROW = 1_000_000


#: each mutant and what it breaks
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (DefaultScopePersonal, mem_caught("SCOPE-001")),
    (ObservationShowsProjectScope, mem_caught("SCOPE-002")),
    (SearchIgnoresProject, mem_caught("SCOPE-003")),
    (ContextShowsEveryProject, mem_caught("SCOPE-003")),
    (ContextPersonalOnlyOfItsProject, mem_caught("SCOPE-004")),
    (PersonalSearchStaysInProject, mem_caught("SCOPE-005", about={"SCOPE-005": "mem_search"})),
    (
        PersonalContextStaysInProject,
        mem_caught("SCOPE-005", about={"SCOPE-005": "mem_context"}),
    ),
    (ScopeFilterIgnored, mem_caught("SCOPE-006")),
    (UnknownScopeStoredAsProject, mem_caught("SCOPE-007")),
]
