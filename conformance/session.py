"""A connection to the server under test: calls with per-call timeouts, faults, a transcript.

Every observation is appended to the transcript and shown to the observers (the per-call
checks). A broken connection or a timeout becomes an observation with ``outcome == "fault"``
and raises ``ServerFault`` so that the check stops; the runner then reconnects.

A call whose arguments the SDK cannot write as JSON text (an unpaired surrogate, a non-finite
number) goes over the connection's raw channel instead, byte-exact (``targets.raw_channel``),
and is observed and recorded like any other.

A check may send calls over a client of its own (``extra_client`` and ``over``), recorded in the
same transcript, and close that client's transport while calls are in flight (``lose_answers``):
their answers are then lost on purpose, which is recorded and is no fault of the server.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

import anyio
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import CONNECTION_CLOSED, REQUEST_TIMEOUT

from .exceptions import ServerFault, StartupFailed
from .observation import Observation
from .targets.connection import Connection
from .targets.json_text import sdk_writes
from .targets.launch import describe
from .targets.raw_channel import Channel

Observer = Callable[[Observation], None]
Send = Callable[[], Awaitable[Any]]
#: Errors the SDK client raises itself when the transport breaks or a request times out: faults
#: of the server, not answers from it.
TRANSPORT_CODES = {CONNECTION_CLOSED: "the connection closed", REQUEST_TIMEOUT: "no answer in time"}
#: The client the calls of this task go over instead of the connection's (``Session.over``).
_OVER: ContextVar[Client | None] = ContextVar("conformance_over", default=None)
LOST = "no answer: the harness closed the transport after sending the request"


class Session:
    def __init__(self, connection: Connection, call_timeout_s: float) -> None:
        self.connection = connection
        self.call_timeout_s = call_timeout_s
        self.transcript: list[Observation] = []
        self.observers: list[Observer] = []
        #: ids of the extra clients whose transport the harness is closing (``lose_answers``)
        self._closing: set[int] = set()

    def _record(self, observation: Observation, *, lost: bool = False) -> Observation:
        # numbered as recorded: calls in flight together end in any order
        observation = replace(observation, index=len(self.transcript))
        self.transcript.append(observation)
        for observer in self.observers:
            observer(observation)
        if observation.outcome == "fault" and not lost:
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
        client: Client | Channel | None = _OVER.get()
        try:
            # opened outside the time limit: a client's task groups must not live in its scope
            client = await self._carrier(client, arguments, meta, claims)
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
        lost = observed.outcome == "fault" and id(client) in self._closing
        if lost:
            observed = replace(observed, fault=f"{LOST} ({observed.fault})")
        return self._record(_with_latency(observed, elapsed), lost=lost)

    async def _carrier(
        self,
        over: Client | None,
        arguments: Any,
        meta: dict[str, Any] | None,
        claims: dict[str, Any] | None,
    ) -> Client | Channel:
        """What the call goes over: the connection's raw channel for ``claims`` when the SDK
        cannot write ``arguments`` or ``meta``, else the task's client (``over``) or the
        connection's client for ``claims``."""
        if not sdk_writes([arguments, meta]):
            raw = await self.connection.raw_for(claims)
            if raw is not None:
                return raw
        return over or await self.connection.client_for(claims)

    @asynccontextmanager
    async def extra_client(self, claims: dict[str, Any] | None) -> AsyncIterator[Client]:
        """A client of its own for ``claims``' identity (``Connection.extra_client``), closed
        when the block ends. Failing to open it is a ``ServerFault``, as a failing call is."""
        async with AsyncExitStack() as stack:
            try:
                client = await stack.enter_async_context(self.connection.extra_client(claims))
            except StartupFailed as error:  # the runner adds the tail of the server's stderr
                raise ServerFault(f"an extra client could not be opened: {error.problem}") from None
            yield client

    @contextmanager
    def over(self, client: Client) -> Iterator[None]:
        """Send the calls of this task, and of the tasks it starts, over ``client``."""
        token = _OVER.set(client)
        try:
            yield
        finally:
            _OVER.reset(token)

    async def lose_answers(
        self, claims: dict[str, Any] | None, calls: Iterable[Send], after_s: float
    ) -> None:
        """Send ``calls`` at once over an extra client for ``claims``, and ``after_s`` later
        close its transport without cancelling them: the answers that have not come by then
        are lost, each recorded as such. A fault before the close is a ``ServerFault``."""
        faults: list[ServerFault] = []
        closing: set[int] = set()
        async with anyio.create_task_group() as group:
            try:
                async with self.extra_client(claims) as client:
                    with self.over(client):
                        for call in calls:
                            group.start_soon(_kept, call, [], faults)
                    await anyio.sleep(after_s)
                    closing.add(id(client))
                    self._closing |= closing
            except ServerFault as fault:  # the extra client could not be opened
                faults.append(fault)
        self._closing -= closing
        if faults:
            raise faults[0]

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


async def at_once(calls: Iterable[Send]) -> list[Any]:
    """The answers of ``calls`` sent at once, each in a task of its own, in the order they
    came. A ``ServerFault`` of one is raised as itself (not in an exception group) once all end."""
    answers: list[Any] = []
    faults: list[ServerFault] = []
    async with anyio.create_task_group() as group:
        for call in calls:
            group.start_soon(_kept, call, answers, faults)
    if faults:
        raise faults[0]
    return answers


async def _kept(call: Send, answers: list[Any], faults: list[ServerFault]) -> None:
    """``call``'s answer, or its ``ServerFault``, kept in a list: a task group would raise it
    in an exception group, which the runner would take for an error of the harness."""
    try:
        answers.append(await call())
    except ServerFault as fault:
        faults.append(fault)


def _answered_error(base: dict[str, Any], error: MCPError) -> Observation:
    """A JSON-RPC error the server sent, or a transport fault the SDK reports as one."""
    if error.code in TRANSPORT_CODES:
        problem = f"{TRANSPORT_CODES[error.code]} ({error.error.message})"
        return Observation(**base, outcome="fault", fault=problem)
    return Observation(
        **base,
        outcome="protocol_error",
        error_code=error.code,
        error_message=error.error.message,
        error_data=error.error.data,
    )


def _with_latency(observation: Observation, latency_ms: float) -> Observation:
    return replace(observation, latency_ms=latency_ms)
