"""mem servers that get the current project wrong (PROJ): a blank name, saves without a project
filed elsewhere, a project named after its folder's whole path, an answer that does not say how
the project was found, an explicit new project refused.

The in-process reference runs with a configured project (``process_override``), which leaves
PROJ-003 not applicable; ``InEmptyFolder`` serves as the reference does when started in an empty
folder outside git with no project configured, the setting PROJ-003 judges.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import mcp_types as types
from engram_conformance.reference_impl.mem.project import (
    CurrentProject,
    current_project,
    normalized,
)
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.reference_impl.mem.service import MemService

from ...caught import Caught
from ..seams import CallMutant, ServiceMutant, answering, mem_caught, text_of

CURRENT = "mem_current_project"


class InEmptyFolder(ServiceMutant):
    """The reference with its current project detected in an empty folder (in its state folder,
    so outside git), no project configured: not a mutant."""

    def patch(self, service: MemService) -> None:
        (_, _, database), *_ = service.store.connection.execute("PRAGMA database_list")
        folder = Path(database).parent / "empty-working-folder"
        folder.mkdir(exist_ok=True)
        service.current = self.detected(folder)

    def detected(self, folder: Path) -> CurrentProject:
        return current_project(None, folder)


class NamesProjectByPath(InEmptyFolder):
    """The current project is named after the working folder's whole path, not its base name."""

    def detected(self, folder: Path) -> CurrentProject:
        return replace(current_project(None, folder), name=normalized(str(folder)))


class BlanksCurrentProjectField(CallMutant):
    """mem_current_project's JSON answer with its ``blanked`` field empty."""

    blanked: ClassVar[str]

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        if tool != CURRENT:
            return result
        return answering(result, json.dumps(json.loads(text_of(result)) | {self.blanked: ""}))


class CurrentProjectBlank(BlanksCurrentProjectField):
    """mem_current_project names no project (an empty name) outside a git repository."""

    blanked = "project"


class ProjectSourceBlank(BlanksCurrentProjectField):
    """mem_current_project does not say how it found the project (project_source empty)."""

    blanked = "project_source"


class SaveWithoutProjectGoesToDefault(CallMutant):
    """mem_save without a project files the memory under "default", not the current project."""

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if tool == "mem_save" and not arguments.get("project"):
            return arguments | {"project": "default"}
        return arguments


#: each mutant and what it breaks (PROJ-002 needs a current project's name to search it)
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (CurrentProjectBlank, mem_caught("PROJ-001", undecided=("PROJ-002",))),
    (SaveWithoutProjectGoesToDefault, mem_caught("PROJ-002")),
    (NamesProjectByPath, mem_caught("PROJ-003")),
    (ProjectSourceBlank, mem_caught("PROJ-004")),
]
