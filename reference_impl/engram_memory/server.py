"""The MCP wiring of the reference server, on the SDK's low-level ``Server``.

``tools/list`` and ``tools/call`` only. A call passes the host binding's protocol checks (a
refusal is a JSON-RPC error), then ``MemoryService.call`` answers its envelope, carried as
``structuredContent`` with the same JSON as text and ``isError == not ok``. The low-level API is
used on purpose: the high-level one validates arguments with pydantic before any handler runs,
and the contract's own ``INVALID_SCHEMA`` envelope must answer them instead.
"""

from __future__ import annotations

import json
import logging
import traceback
from importlib.metadata import version
from typing import Any, Protocol

import mcp_types as types
from engram_conformance.spec.engram_memory import Spec
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from ..calls import Calls
from ..wire import sent_arguments
from .binding import HostBinding, ProtocolRefusal
from .context import InvocationContext
from .envelope import failure

logger = logging.getLogger(__name__)

SERVER_NAME = "engram-reference"
INSTRUCTIONS = (
    "Engram memory (contract 1.0.0). Every call needs the host's signed invocation context in "
    'params._meta["engram/invocation"]; act on error code and retriable, never on message.'
)


class Service(Protocol):
    """What the wiring needs of ``MemoryService``."""

    def call(self, tool: str, arguments: Any, context: InvocationContext) -> dict[str, Any]: ...


def build_server(
    service: Service,
    binding: HostBinding,
    *,
    handlers: type[Handlers] | None = None,
    on_loop: bool = False,
) -> Server[Any]:
    """The MCP server answering ``tools/list`` and ``tools/call`` for one memory service.

    ``handlers``: a subclass of ``Handlers`` to answer them instead, as the kit's wiring mutants
    do (each alters one step of the reference's). ``on_loop``: the server has a process of its
    own, so each call runs on its event loop (``calls.Calls``)."""
    answering = (handlers or Handlers)(service, binding)
    answering.calls = Calls(on_loop=on_loop)
    return Server(
        SERVER_NAME,
        version=version("engram-conformance"),
        instructions=INSTRUCTIONS,
        on_list_tools=answering.list_tools,
        on_call_tool=answering.call_tool,
    )


class Handlers:
    """The ``tools/list`` and ``tools/call`` handlers of one server."""

    def __init__(self, service: Service, binding: HostBinding) -> None:
        self.service = service
        self.binding = binding
        self.spec = binding.spec
        self.tools = {name: published_tool(self.spec, name) for name in self.spec.tools}
        # in a worker thread unless the server has a process of its own (``build_server``)
        self.calls = Calls(on_loop=False)

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        try:
            names = self.binding.listed_tools(params.meta if params else None)
        except ProtocolRefusal as refusal:
            raise self._protocol_error("tools/list", refusal) from None
        return types.ListToolsResult(tools=[self.tools[name] for name in names])

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = sent_arguments(ctx, params)
        try:
            context = self.binding.admit_call(params.name, arguments, params.meta)
        except ProtocolRefusal as refusal:
            raise self._protocol_error("tools/call", refusal) from None
        envelope = await self.calls.run(self._envelope, params.name, arguments, context)
        logger.debug("%s %s: %s", params.name, context.audit_id, _outcome(envelope))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(envelope, ensure_ascii=False))],
            structured_content=envelope,
            is_error=not envelope["ok"],
        )

    def _envelope(self, tool: str, arguments: Any, context: InvocationContext) -> dict[str, Any]:
        """The service's envelope; a failure of the service itself is answered, never raised,
        as an unavailable store (a read) or an unknown outcome (a mutation: its transaction
        rolled back, and a retry with the same key gets one definite outcome)."""
        try:
            return self.service.call(tool, arguments, context)
        except Exception as error:
            # The exception's message may quote arguments: log its type and frames only.
            frames = "".join(traceback.format_tb(error.__traceback__))
            logger.error("%s failed with %s\n%s", tool, type(error).__name__, frames)
            read = self.spec.tools[tool].kind == "read"
            code = "STORE_UNAVAILABLE" if read else "MUTATION_OUTCOME_UNKNOWN"
            return failure(self.spec, code, context.audit_id)

    def _protocol_error(self, method: str, refusal: ProtocolRefusal) -> MCPError:
        logger.debug("%s refused (%d): %s", method, refusal.code, refusal.reason)
        return MCPError(refusal.code, self.spec.protocol_errors[refusal.code].message)


def published_tool(spec: Spec, name: str) -> types.Tool:
    """A tool as ``tools/list`` shows it. No ``outputSchema``: the 2.3 client would check the
    whole envelope, which ``structuredContent`` carries, against a schema of its ``value``."""
    tool = spec.tools[name]
    return types.Tool(
        name=name,
        description=tool.summary,
        input_schema=bundled_schema(spec, tool.input_schema),
        annotations=types.ToolAnnotations(
            read_only_hint=tool.kind == "read",
            destructive_hint=tool.confirmation == "always",
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )


def bundled_schema(spec: Spec, schema_id: str) -> dict[str, Any]:
    """The spec's schema as is, with every schema it references embedded under ``$defs`` by its
    ``$id`` (a JSON Schema 2020-12 compound document), so a client resolves it offline."""
    root = spec.schema(schema_id)
    embedded: dict[str, Any] = {}
    pending = [root]
    while pending:
        for ref in _external_refs(pending.pop()):
            if ref != schema_id and ref not in embedded:
                embedded[ref] = spec.schema(ref)
                pending.append(embedded[ref])
    if not embedded:
        return root
    return {**root, "$defs": {**root.get("$defs", {}), **embedded}}


def _external_refs(schema: Any) -> set[str]:
    if isinstance(schema, list):
        return set().union(*map(_external_refs, schema))
    if not isinstance(schema, dict):
        return set()
    found = set().union(*map(_external_refs, schema.values()))
    ref = schema.get("$ref")
    if isinstance(ref, str) and not ref.startswith("#"):
        found.add(ref.partition("#")[0])
    return found


def _outcome(envelope: dict[str, Any]) -> str:
    return "ok" if envelope["ok"] else envelope["error"]["code"]
