"""A connection to the server under test: calls with per-call timeouts, faults, a transcript.

Every observation is appended to the transcript and shown to the observers (the per-call
checks). A broken connection or a timeout becomes an observation with ``outcome == "fault"``
and raises ``ServerFault`` so that the check stops; the runner then reconnects.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import anyio
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import CONNECTION_CLOSED, REQUEST_TIMEOUT

from .exceptions import ServerFault, StartupFailed
from .observation import Observation
from .targets.connection import Connection
from .targets.launch import describe

Observer = Callable[[Observation], None]
#: Errors the SDK client raises itself when the transport breaks or a request times out: faults
#: of the server, not answers from it.
TRANSPORT_CODES = {CONNECTION_CLOSED: "the connection closed", REQUEST_TIMEOUT: "no answer in time"}


class Session:
    def __init__(self, connection: Connection, call_timeout_s: float) -> None:
        self.connection = connection
        self.call_timeout_s = call_timeout_s
        self.transcript: list[Observation] = []
        self.observers: list[Observer] = []

    def _record(self, observation: Observation) -> Observation:
        self.transcript.append(observation)
        for observer in self.observers:
            observer(observation)
        if observation.outcome == "fault":
            raise ServerFault(observation.fault or "the connection failed")
        return observation

    async def call(
        self, tool: str, arguments: Any, meta: dict[str, Any] | None, claims: dict[str, Any] | None
    ) -> Observation:
        started = time.perf_counter()
        base = {
            "index": len(self.transcript),
            "method": "tools/call",
            "tool": tool,
            "arguments": arguments,
            "claims": claims,
            "meta": meta,
        }
        try:
            # opened outside the time limit: a client's task groups must not live in its scope
            client = await self.connection.client_for(claims)
            with anyio.fail_after(self.call_timeout_s):
                result = await client.call_tool(tool, arguments, meta=meta)
        except StartupFailed as error:
            observed = Observation(**base, outcome="fault", fault=str(error))
        except MCPError as error:
            observed = _answered_error(base, error)
        except TimeoutError:
            observed = Observation(
                **base, outcome="fault", fault=f"no answer within {self.call_timeout_s} s"
            )
        except Exception as error:  # the transport broke or the answer was not MCP
            observed = Observation(**base, outcome="fault", fault=describe(error))
        else:
            text = next((c.text for c in result.content if getattr(c, "type", "") == "text"), None)
            observed = Observation(
                **base,
                outcome="result",
                structured=result.structured_content,
                text=text,
                is_error=bool(result.is_error),
            )
        elapsed = (time.perf_counter() - started) * 1000
        return self._record(_with_latency(observed, elapsed))

    async def list_tools(self, meta: dict[str, Any] | None = None) -> tuple[Observation, list[Any]]:
        """The tools the server lists (with this ``_meta``), and the observation of the call."""
        started = time.perf_counter()
        base = {
            "index": len(self.transcript),
            "method": "tools/list",
            "tool": None,
            "arguments": None,
            "claims": None,
            "meta": meta,
        }
        tools: list[Any] = []
        try:
            with anyio.fail_after(self.call_timeout_s):
                client = self.connection.default
                listed = await client.list_tools(meta=meta, cache_mode="bypass")
        except MCPError as error:
            observed = _answered_error(base, error)
        except TimeoutError:
            observed = Observation(**base, outcome="fault", fault="tools/list timed out")
        except Exception as error:
            observed = Observation(**base, outcome="fault", fault=describe(error))
        else:
            tools = list(listed.tools)
            names = [tool.name for tool in tools]
            observed = Observation(**base, outcome="result", structured={"tools": names})
        elapsed = (time.perf_counter() - started) * 1000
        return self._record(_with_latency(observed, elapsed)), tools


def _answered_error(base: dict[str, Any], error: MCPError) -> Observation:
    """A JSON-RPC error the server sent, or a transport fault the SDK reports as one."""
    if error.code in TRANSPORT_CODES:
        problem = f"{TRANSPORT_CODES[error.code]} ({error.error.message})"
        return Observation(**base, outcome="fault", fault=problem)
    return Observation(
        **base, outcome="protocol_error", error_code=error.code, error_message=error.error.message
    )


def _with_latency(observation: Observation, latency_ms: float) -> Observation:
    return replace(observation, latency_ms=latency_ms)
