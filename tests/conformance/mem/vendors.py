"""Fixture mem servers that keep seed 003's protocol but differ from the reference as vendors'
servers do: the kit must read each of them without a ``fail`` or an ``error``.

Each is the reference's store and behaviour behind other MCP wiring (a ``Handlers`` of its own,
the seam the mutant tests use):

- ``StructuredAnswers`` answers every success as ``structuredContent`` only (no text block),
  its keys in camelCase;
- ``OwnNamesAndIds`` publishes its own argument names (``needle``, ``memory_id``,
  ``project_name``, ``permanent``, ``session_id``), takes a folder and no id to start a session
  and generates the id, drops ``mem_context``'s scope, and answers ``mem_save`` and
  ``mem_session_start`` in a text of its own, which its descriptor declares (``ANSWERS``);
- ``SeedToolsOnly`` lists the twelve tools seed 003 names and nothing else.
"""

from __future__ import annotations

import dataclasses
import re
import secrets
from copy import deepcopy
from pathlib import Path
from typing import Any, ClassVar

import mcp_types as types
from engram_conformance.conformance.mem import answers
from engram_conformance.conformance.mem.answer_text import Answer
from engram_conformance.conformance.mem.facts import SessionEnded, SessionStarted
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.spec.mem import load
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from ...mutants.mem.seams import text_of

SEED_TOOLS = load().seed_tools


class Vendor(Handlers):
    """The reference's service under this vendor's tools, argument names and answer forms."""

    #: the tools it lists (``None``: the reference's)
    listed: ClassVar[tuple[str, ...] | None] = None
    #: tool -> {its own argument name: the reference's}
    renamed: ClassVar[dict[str, dict[str, str]]] = {}
    #: tool -> the reference's arguments it does not publish
    hidden: ClassVar[dict[str, tuple[str, ...]]] = {}

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = (await super().list_tools(ctx, params)).tools
        kept = [tool for tool in tools if self.listed is None or tool.name in self.listed]
        return types.ListToolsResult(tools=[self.published(tool) for tool in kept])

    def published(self, tool: types.Tool) -> types.Tool:
        schema = deepcopy(tool.input_schema)
        own = {reference: mine for mine, reference in self.renamed.get(tool.name, {}).items()}
        hidden = self.hidden.get(tool.name, ())
        properties = schema.get("properties", {})
        schema["properties"] = {
            own.get(name, name): value for name, value in properties.items() if name not in hidden
        }
        required = [name for name in schema.get("required", []) if name not in hidden]
        schema["required"] = [own.get(name, name) for name in required]
        return tool.model_copy(update={"input_schema": schema})

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if self.listed is not None and params.name not in self.listed:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name[:100]}")
        sent = params.arguments if isinstance(params.arguments, dict) else {}
        unpublished = [name for name in sent if name in self.hidden.get(params.name, ())]
        if unpublished:
            return refused(f"{params.name} takes no {', '.join(unpublished)}")
        mine = self.renamed.get(params.name, {})
        arguments = self.prepared(params.name, {mine.get(k, k): v for k, v in sent.items()})
        result = await super().call_tool(ctx, params.model_copy(update={"arguments": arguments}))
        return result if result.is_error else self.rendered(params.name, text_of(result))

    def prepared(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The reference's arguments for this vendor's call."""
        return arguments

    def rendered(self, tool: str, text: str) -> types.CallToolResult:
        """This vendor's answer to a successful call the reference answered ``text``."""
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def refused(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def camel_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {camel(key): camel_keys(item) for key, item in value.items() if item is not None}
    if isinstance(value, list | tuple):
        return [camel_keys(item) for item in value]
    return value


class StructuredAnswers(Vendor):
    """Every success as ``structuredContent`` only: the facts of the reference's answer, camelCase
    keys, a session's id as ``sessionId``."""

    def published(self, tool: types.Tool) -> types.Tool:
        """Each tool's answers are objects, and its listing says so (an ``outputSchema``)."""
        return super().published(tool).model_copy(update={"output_schema": {"type": "object"}})

    def rendered(self, tool: str, text: str) -> types.CallToolResult:
        fact = answers.read(tool, Answer(text))
        data = {k: v for k, v in dataclasses.asdict(fact).items() if k != "envelope"}
        if isinstance(fact, SessionStarted | SessionEnded):
            data["session_id"] = data.pop("id")
        return types.CallToolResult(content=[], structured_content=camel_keys(data))


class OwnNamesAndIds(Vendor):
    """Its own argument names and session ids, and two answers in a text of its own."""

    renamed: ClassVar[dict[str, dict[str, str]]] = {
        "mem_save": {"project_name": "project"},
        "mem_search": {"needle": "query", "project_name": "project"},
        "mem_get_observation": {"memory_id": "id"},
        "mem_update": {"memory_id": "id"},
        "mem_delete": {"memory_id": "id", "permanent": "hard_delete"},
        "mem_session_end": {"session_id": "id"},
        "mem_context": {"project_name": "project"},
    }
    hidden: ClassVar[dict[str, tuple[str, ...]]] = {
        "mem_session_start": ("id", "project"),
        "mem_delete": ("hard",),
        "mem_context": ("scope",),
    }

    def published(self, tool: types.Tool) -> types.Tool:
        shown = super().published(tool)
        if tool.name == "mem_search":  # the query is required: the kit finds it by that
            schema = shown.input_schema | {"required": ["needle"]}
            return shown.model_copy(update={"input_schema": schema})
        return shown

    def prepared(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if tool != "mem_session_start":
            return arguments
        folder = arguments.get("directory")
        named = {"project": Path(folder).name} if isinstance(folder, str) and folder else {}
        return arguments | named | {"id": f"vendor-{secrets.token_hex(6)}"}

    def rendered(self, tool: str, text: str) -> types.CallToolResult:
        if tool == "mem_save":
            stored = re.search(r"^ID: (\d+)$", text, re.M)
            text = f"Stored as memory {stored[1]}." if stored else "Stored."
        elif tool == "mem_session_start":
            started = answers.read(tool, Answer(text))
            assert isinstance(started, SessionStarted)
            text = f"Working session {started.id} opened in {started.project}"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


#: how ``OwnNamesAndIds``' descriptor declares its own answer texts (tool, field, where)
ANSWERS = (
    ("mem_save", "id", r"re:memory (\d+)"),
    ("mem_session_start", "id", r"re:session (\S+) opened"),
    ("mem_session_start", "project", r"re:opened in (\S+)$"),
)


class SessionsRequired(Vendor):
    """A passive capture only inside a session the call names (its schema requires
    ``session_id``, as seed 003's example gives one), and the session's id generated
    (``mem_session_start`` takes none). (A save that requires one breaks the seed's signature
    of ``mem_save``: DISC-001.)"""

    hidden: ClassVar[dict[str, tuple[str, ...]]] = {"mem_session_start": ("id",)}
    bound: ClassVar[tuple[str, ...]] = ("mem_capture_passive",)

    def published(self, tool: types.Tool) -> types.Tool:
        shown = super().published(tool)
        if tool.name not in self.bound:
            return shown
        schema = shown.input_schema
        required = [*schema.get("required", []), "session_id"]
        return shown.model_copy(update={"input_schema": schema | {"required": required}})

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        sent = params.arguments if isinstance(params.arguments, dict) else {}
        if params.name in self.bound and not sent.get("session_id"):
            return refused(f"{params.name} needs the session_id of a started session")
        return await super().call_tool(ctx, params)

    def prepared(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if tool != "mem_session_start":
            return arguments
        return arguments | {"id": f"required-{secrets.token_hex(6)}"}


class SeedToolsOnly(Vendor):
    """The twelve tools seed 003 names, no other."""

    listed: ClassVar[tuple[str, ...] | None] = SEED_TOOLS
