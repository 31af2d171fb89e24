"""The MCP wiring of the mem reference, on the SDK's low-level ``Server``.

``tools/list`` lists the catalogue; ``tools/call`` answers one ``TextContent`` and ``isError``
(no ``structuredContent``: upstream has none). An unknown tool is JSON-RPC ``-32602``, as
upstream's library answers it; the low-level ``Server`` leaves unknown names to the handler.
The low-level API, not the high-level one, because the latter validates arguments with pydantic
before any handler runs, and the mem tools answer bad arguments themselves, as tool errors.
"""

from __future__ import annotations

import logging
from importlib.metadata import version
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from ..calls import Calls
from ..wire import sent_arguments
from .catalogue import TOOLS
from .service import MemService

logger = logging.getLogger(__name__)

SERVER_NAME = "engram-reference"
_NAME_ECHOED = 100  # characters of an unknown tool's name the error repeats
INSTRUCTIONS = (
    "Engram memory for coding agents (mem contract). Call mem_current_project and mem_context "
    "when a session starts; mem_save each significant bugfix, decision or pattern "
    "(What/Why/Where/Learned; mem_suggest_topic_key for topics that evolve); mem_search to "
    "recall past work and mem_get_observation to read a memory in full; mem_session_summary "
    "before the session ends."
)


def build_server(
    service: MemService, handlers: type[Handlers] | None = None, *, on_loop: bool = False
) -> Server[Any]:
    """The server of ``service``'s tools; ``handlers`` answers in the reference's stead (the
    seam of the mutant tests, as the first contract's ``build_server`` has). ``on_loop``: the
    server has a process of its own, so each call runs on its event loop (``calls.Calls``)."""
    answering = (handlers or Handlers)(service)
    answering.calls = Calls(on_loop=on_loop)
    return Server(
        SERVER_NAME,
        version=version("engram-conformance"),
        instructions=answering.instructions,
        on_list_tools=answering.list_tools,
        on_call_tool=answering.call_tool,
    )


class Handlers:
    #: what the initialize answer tells the agent
    instructions = INSTRUCTIONS

    def __init__(self, service: MemService) -> None:
        self.service = service
        # in a worker thread unless the server has a process of its own (``build_server``)
        self.calls = Calls(on_loop=False)

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(TOOLS.values()))

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in TOOLS:
            logger.debug("unknown tool refused (-32602)")
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name[:_NAME_ECHOED]}")
        sent = sent_arguments(ctx, params)
        answer = await self.calls.run(self.service.call, params.name, sent)
        logger.debug("%s: %s", params.name, "error" if answer.is_error else "ok")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=answer.text)], is_error=answer.is_error
        )
