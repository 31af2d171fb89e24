"""mem servers that publish their tools wrong (DISC), the way real servers drift: a tool
dropped, a schema narrowed or made stricter, a hint flipped, a title lost, a save that insists on
an optional argument, no instructions, an outputSchema never kept.

Each is the reference's handlers (``WiringMutant``) with its tools/list (or one call) altered;
``Caught`` says which DISC rules it breaks, every other one keeping its verdict.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

import mcp_types as types
from engram_conformance.reference_impl.mem.server import Handlers

from ...caught import Caught
from ..seams import mem_caught


class WiringMutant(Handlers):
    """The mem reference's handlers, with ``altered`` changing the tools it lists."""

    async def list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        listed = await super().list_tools(ctx, params)
        tools = {tool.name: tool.model_dump(by_alias=True) for tool in listed.tools}
        self.altered(tools)
        return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in tools.values()])

    def altered(self, tools: dict[str, dict[str, Any]]) -> None:
        """Change ``tools`` (name -> tool as JSON) in place."""


class Drops(WiringMutant):
    dropped: ClassVar[str]

    def altered(self, tools: dict[str, dict[str, Any]]) -> None:
        del tools[self.dropped]


class DropsJudge(Drops):
    """mem_judge, a tool seed 003 names, is not listed."""

    dropped = "mem_judge"


class DropsTimeline(Drops):
    """mem_timeline, a tool of every upstream line (none seed 003 names), is not listed."""

    dropped = "mem_timeline"


class NarrowsSaveScope(WiringMutant):
    """mem_save's scope takes only "project" (an enum where upstream has none)."""

    def altered(self, tools: dict[str, dict[str, Any]]) -> None:
        tools["mem_save"]["inputSchema"]["properties"]["scope"]["enum"] = ["project"]


class RequiresSearchProject(WiringMutant):
    """mem_search requires a project (a property upstream leaves optional)."""

    def altered(self, tools: dict[str, dict[str, Any]]) -> None:
        tools["mem_search"]["inputSchema"]["required"].append("project")


class SaveTypeIsANumber(WiringMutant):
    """mem_save's type is published as a number."""

    def altered(self, tools: dict[str, dict[str, Any]]) -> None:
        tools["mem_save"]["inputSchema"]["properties"]["type"] = {"type": "number"}


class DeleteNotDestructive(WiringMutant):
    """mem_delete is annotated not destructive."""

    def altered(self, tools: dict[str, dict[str, Any]]) -> None:
        tools["mem_delete"]["annotations"]["destructiveHint"] = False


class SearchNotReadOnly(WiringMutant):
    """mem_search is annotated not read-only."""

    def altered(self, tools: dict[str, dict[str, Any]]) -> None:
        tools["mem_search"]["annotations"]["readOnlyHint"] = False


class UntitledSave(WiringMutant):
    """mem_save's annotations have no title."""

    def altered(self, tools: dict[str, dict[str, Any]]) -> None:
        tools["mem_save"]["annotations"]["title"] = None


class JudgeSchemaInvalid(WiringMutant):
    """mem_judge's schema names a type JSON Schema does not have ("text")."""

    def altered(self, tools: dict[str, dict[str, Any]]) -> None:
        schema = copy.deepcopy(tools["mem_judge"]["inputSchema"])
        schema["properties"]["reason"]["type"] = "text"
        tools["mem_judge"]["inputSchema"] = schema


class SaveInsistsOnScope(Handlers):
    """mem_save refuses a call without scope (a tool error), though its schema says optional."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        if params.name == "mem_save" and "scope" not in (params.arguments or {}):
            text = types.TextContent(type="text", text="scope is required")
            return types.CallToolResult(content=[text], is_error=True)
        return await super().call_tool(ctx, params)


class PromisesStructuredProjects(WiringMutant):
    """mem_current_project publishes an outputSchema (an object with a ``project``) yet answers
    text alone, as a server that declared structured answers and never made them."""

    def altered(self, tools: dict[str, dict[str, Any]]) -> None:
        schema = {"type": "object", "properties": {"project": {"type": "string"}}}
        tools["mem_current_project"]["outputSchema"] = schema | {"required": ["project"]}


class NamesNoTools(Handlers):
    """The initialize instructions name no tool."""

    instructions = "Engram memory for coding agents."


#: each mutant and what it breaks
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (DropsJudge, mem_caught("DISC-002", "DISC-003")),
    (DropsTimeline, mem_caught("DISC-004")),
    (NarrowsSaveScope, mem_caught("DISC-004")),
    (RequiresSearchProject, mem_caught("DISC-004")),
    (SaveTypeIsANumber, mem_caught("DISC-001", "DISC-004")),
    (DeleteNotDestructive, mem_caught("DISC-007")),
    (SearchNotReadOnly, mem_caught("DISC-006")),
    (UntitledSave, mem_caught("DISC-005")),
    (JudgeSchemaInvalid, mem_caught("DISC-008")),
    (SaveInsistsOnScope, mem_caught("DISC-001")),
    (NamesNoTools, mem_caught("DISC-009")),
    (PromisesStructuredProjects, mem_caught("DISC-010")),
]
