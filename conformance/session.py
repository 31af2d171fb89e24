"""A connection to the server under test: calls with per-call timeouts, faults, a transcript.

Every observation is appended to the transcript and shown to the observers (the per-call
checks). A broken connection or a timeout becomes an observation with ``outcome == "fault"``
and raises ``ServerFault`` so that the check stops; the runner then reconnects.

After a call that went unanswered, ``still_answers`` asks the server for its tools: a check
with several cases goes on with the next one while the server answers (``BaseContext.case``).

A call whose arguments the SDK cannot write as JSON text (an unpaired surrogate, a non-finite
number) goes over the connection's raw channel instead, byte-exact (``targets.raw_channel``),
and is observed and recorded like any other.

A check may send calls over a client of its own (``extra_client`` and ``over``), recorded in the
same transcript, and close that client's transport while calls are in flight (``lose_answers``):
their answers are then lost on purpose, which is recorded and is no fault of the server.

``tools/list`` follows ``nextCursor`` (at most ``MAX_LIST_PAGES`` pages), and reads a listing the
SDK refuses as the server sent it, so that the checks can judge it. The SDK client also lists
tools on its own (before it judges the answer of a tool it has not seen listed): those requests
are recorded too, ``sent_by: "sdk"``. The transcript keeps long answers cut (``Observation.kept``).
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

import anyio
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import ListToolsResult, PaginatedRequestParams, TextContent, Tool
from mcp_types.jsonrpc import CONNECTION_CLOSED, REQUEST_TIMEOUT
from pydantic import ValidationError

from .exceptions import NoAnswerInTime, ServerFault, StartupFailed
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
#: The client (or raw channel) the calls of this task go over instead of the connection's
#: (``Session.over``).
_OVER: ContextVar[Client | Channel | None] = ContextVar("conformance_over", default=None)
#: What the SDK client's check of this task's call's structured content found (``Session.call``).
_OUTPUT_CHECK: ContextVar[OutputCheck | None] = ContextVar("output_check", default=None)
#: The session whose call this task makes: the tools/list requests the SDK client sends on
#: its own for that call are recorded there (``_record_sdk_listings``). Several sessions (the
#: checks of a run side by side) share one client.
_CALLER: ContextVar[Session | None] = ContextVar("conformance_caller", default=None)
#: A time limit shorter than the call time-out for the calls of this task (``Session.within``).
_WITHIN_S: ContextVar[float | None] = ContextVar("conformance_within_s", default=None)
LOST = "no answer: the harness closed the transport after sending the request"
#: The most pages of a tools/list read (a server may hand out cursors without end).
MAX_LIST_PAGES = 20


@dataclass
class OutputCheck:
    """Whether the SDK client checked a result against its tool's published outputSchema, and
    why it refused it (``None``: it did not)."""

    checked: bool = False
    refused: str | None = None


@dataclass(frozen=True)
class ListedTool:
    """A tool of a listing the SDK refuses, as the server sent it (its input schema not
    necessarily an object): the checks judge it. A name that is no string is its JSON text."""

    name: str
    input_schema: Any
    output_schema: Any = None
    annotations: Any = None
    description: Any = None


class Session:
    def __init__(self, connection: Connection, call_timeout_s: float) -> None:
        self.connection = connection
        self.call_timeout_s = call_timeout_s
        #: the calls since the current check began (``begin_check``), long answers cut
        self.transcript: list[Observation] = []
        self._recorded = 0
        self.observers: list[Observer] = []
        #: ids of the extra clients whose transport the harness is closing (``lose_answers``)
        self._closing: set[int] = set()

    def _record(
        self, observation: Observation, latency_ms: float, *, raises: bool = True
    ) -> Observation:
        """Number, time, keep and show ``observation``; a fault raises ``ServerFault`` (unless
        ``raises`` is false: an answer lost on purpose, a request the SDK made itself)."""
        # numbered as recorded: calls in flight together end in any order
        observation, kept = observation.recorded(self._recorded, latency_ms)
        self._recorded += 1
        self.transcript.append(kept)
        for observer in self.observers:
            observer(observation)
        if observation.outcome == "fault" and raises:
            fault = NoAnswerInTime if observation.timed_out else ServerFault
            raise fault(observation.fault or "the connection failed")
        return observation

    def begin_check(self) -> None:
        """Forget the calls of the checks before (each check's were taken when it ended), so
        that a long run keeps only the current check's calls in memory."""
        self.transcript.clear()

    async def _why(self, client: Any, observed: Observation) -> Observation:
        """The fault ``observed`` told by what the transport of ``client`` saw, when it saw
        why (then it is no time-out, whichever the SDK noticed first)."""
        told = await self.connection.explain(client)
        return replace(observed, fault=told, timed_out=False) if told else observed

    async def call(
        self, tool: str, arguments: Any, meta: dict[str, Any] | None, claims: dict[str, Any] | None
    ) -> Observation:
        started = time.perf_counter()
        base = _request("tools/call", meta, tool=tool, arguments=arguments, claims=claims)
        client: Client | Channel | None = _OVER.get()
        within = _WITHIN_S.get()
        limit_s = self.call_timeout_s if within is None else min(within, self.call_timeout_s)
        try:
            # opened outside the time limit: a client's task groups must not live in its scope
            client = await self._carrier(client, arguments, meta, claims)
            if isinstance(client, Client):
                _record_sdk_listings(client)
                _keep_refused_output(client)
            output = OutputCheck()
            keeping, calling = _OUTPUT_CHECK.set(output), _CALLER.set(self)
            try:
                with anyio.fail_after(limit_s):
                    # the SDK's _meta is a TypedDict of optional keys and extra items of any
                    # type, which any JSON object is, but mypy lets no dict[str, Any] be one
                    result = await client.call_tool(tool, arguments, meta=meta)  # type: ignore[arg-type]
            finally:
                _OUTPUT_CHECK.reset(keeping)
                _CALLER.reset(calling)
        except Exception as error:  # the transport broke or the answer was not MCP
            observed = _failed(base, error, _no_answer(limit_s, self.call_timeout_s))
        else:
            texts = [c.text for c in result.content if isinstance(c, TextContent)]
            observed = Observation(
                **base,
                outcome="result",
                structured=result.structured_content,
                text=texts[0] if texts else None,
                more_texts=tuple(texts[1:]),
                is_error=bool(result.is_error),
                output_checked=output.checked,
                output_refused=output.refused,
            )
        elapsed = (time.perf_counter() - started) * 1000
        lost = observed.outcome == "fault" and id(client) in self._closing
        if lost:
            observed = replace(observed, fault=f"{LOST} ({observed.fault})")
        elif observed.outcome == "fault":
            observed = await self._why(client, observed)
        return self._record(observed, elapsed, raises=not lost)

    async def still_answers(self) -> bool:
        """Whether the server still answers: a tools/list (a request of both protocol eras)
        answered within the call timeout, in any form, recorded. After one call went
        unanswered, a check may go on with its next case (``BaseContext.case``)."""
        base = _request("tools/list", None)
        started = time.perf_counter()
        client = self.connection.default
        try:
            with anyio.fail_after(self.call_timeout_s):
                await client.list_tools(cache_mode="bypass")
        except ValidationError:  # a listing the SDK refuses is still an answer
            observed = Observation(**base, outcome="result")
        except Exception as error:
            timed_out = f"no answer to tools/list within {self.call_timeout_s} s"
            observed = _failed(base, error, timed_out)
        else:
            observed = Observation(**base, outcome="result")
        elapsed = (time.perf_counter() - started) * 1000
        return self._record(observed, elapsed, raises=False).outcome != "fault"

    async def _carrier(
        self,
        over: Client | Channel | None,
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
    def within(self, seconds: float) -> Iterator[None]:
        """Give up the calls of this task, and of the tasks it starts, after ``seconds`` when
        that is sooner than the call time-out: a timing rule has its verdict once its bound
        has passed unanswered, and waiting on for the rest of the time-out would tell it
        nothing more (``BaseContext.timed``)."""
        token = _WITHIN_S.set(seconds)
        try:
            yield
        finally:
            _WITHIN_S.reset(token)

    @contextmanager
    def over(self, client: Client | Channel) -> Iterator[None]:
        """Send the calls of this task, and of the tasks it starts, over ``client`` (an SDK
        client, or a raw channel, which calls tools as a client does)."""
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
        """The tools the server lists (with this ``_meta``), every page, and the observation of
        the last page read (of the first that did not answer, if one did not)."""
        tools: list[Any] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_LIST_PAGES):
            observed, page, cursor = await self._list_page(meta, cursor)
            tools += page
            if observed.outcome != "result" or cursor is None or cursor in seen:
                break
            seen.add(cursor)
        return observed, tools

    async def _list_page(
        self, meta: dict[str, Any] | None, cursor: str | None
    ) -> tuple[Observation, list[Any], str | None]:
        """One page of tools/list: its observation, its tools and the next cursor. A listing
        the SDK refuses is read again as the server sent it (``_listed_as_sent``)."""
        started = time.perf_counter()
        base = _request("tools/list", meta)
        client = self.connection.default
        _record_sdk_listings(client)
        tools: list[Any] = []
        next_cursor = None
        try:
            with anyio.fail_after(self.call_timeout_s):
                try:
                    # any JSON object is the SDK's _meta (see ``call``)
                    listed = await client.list_tools(
                        cursor=cursor,
                        meta=meta,  # type: ignore[arg-type]
                        cache_mode="bypass",
                    )
                    tools, next_cursor = list(listed.tools), listed.next_cursor
                except ValidationError as refused:
                    tools, next_cursor = await _listed_as_sent(client, cursor, meta, refused)
        except Exception as error:
            timed_out = f"no answer to tools/list within {self.call_timeout_s} s"
            observed = _failed(base, error, timed_out)
        else:
            names = [tool.name for tool in tools]
            structured: dict[str, Any] = {"tools": names}
            if next_cursor is not None:
                structured["nextCursor"] = next_cursor
            observed = Observation(**base, outcome="result", structured=structured)
        if observed.outcome == "fault":
            observed = await self._why(client, observed)
        elapsed = (time.perf_counter() - started) * 1000
        return self._record(observed, elapsed), tools, next_cursor


class UnreadableListing(Exception):
    """A tools/list result that is no listing at all (no list of tools)."""


async def _listed_as_sent(
    client: Client, cursor: str | None, meta: dict[str, Any] | None, refused: ValidationError
) -> tuple[list[Any], str | None]:
    """The tools of a tools/list result the SDK refused, read from the result as the server
    sent it: each tool the SDK can read as a ``Tool``, the others as ``ListedTool``. The SDK
    has no public call for a raw result; its dispatcher has. A result with no list of tools
    raises ``UnreadableListing`` with the SDK's reason."""
    params: dict[str, Any] = {}
    if cursor is not None:
        params["cursor"] = cursor
    if meta is not None:
        params["_meta"] = meta
    result = await client.session._dispatcher.send_raw_request("tools/list", params or None)
    listed = result.get("tools") if isinstance(result, dict) else None
    if not isinstance(listed, list):
        reason = str(refused).splitlines()[1:3] or [str(refused)]
        raise UnreadableListing(
            f"tools/list answered no list of tools ({' '.join(r.strip() for r in reason)}): "
            f"{json.dumps(result, default=str)[:200]}"
        )
    next_cursor = result.get("nextCursor")
    return [_tool(item) for item in listed], next_cursor if isinstance(next_cursor, str) else None


def _tool(item: Any) -> Any:
    try:
        return Tool.model_validate(item)
    except ValidationError:
        fields = item if isinstance(item, dict) else {}
        name = fields.get("name")
        return ListedTool(
            name=name if isinstance(name, str) else json.dumps(name, default=str),
            input_schema=fields.get("inputSchema"),
            output_schema=fields.get("outputSchema"),
            annotations=fields.get("annotations"),
            description=fields.get("description"),
        )


def _request(
    method: str,
    meta: dict[str, Any] | None,
    *,
    tool: str | None = None,
    arguments: Any = None,
    claims: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What an observation records of a request (its index is given when it is recorded)."""
    return {
        "index": 0,
        "method": method,
        "tool": tool,
        "arguments": arguments,
        "claims": claims,
        "meta": meta,
    }


def _no_answer(limit_s: float, call_timeout_s: float) -> str:
    """How a call unanswered within ``limit_s`` is told: at the call time-out, or given up
    sooner at a timing rule's bound (``Session.within``)."""
    if limit_s < call_timeout_s:
        return (
            f"no answer within {limit_s} s, the bound of its timing rule (the harness stopped "
            f"waiting there; the call time-out is {call_timeout_s} s)"
        )
    return f"no answer within {limit_s} s"


def _failed(base: dict[str, Any], error: Exception, timed_out: str | None = None) -> Observation:
    """The observation of a request that raised ``error``: a JSON-RPC error the server sent,
    or a fault (``timed_out`` for the harness's time-out, the start-up's or the listing's own
    account, or the exception's)."""
    if isinstance(error, MCPError):
        return _answered_error(base, error)
    if isinstance(error, TimeoutError) and timed_out is not None:
        return Observation(**base, outcome="fault", fault=timed_out, timed_out=True)
    told = isinstance(error, StartupFailed | UnreadableListing)
    return Observation(**base, outcome="fault", fault=str(error) if told else describe(error))


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


def _record_sdk_listings(client: Client) -> None:
    """Record the tools/list requests ``client``'s SDK session sends on its own, in the session
    whose call it sends them for (``_CALLER``): it lists tools (no params) before it judges the
    answer of a tool it has not seen listed. The session has no hook for it, so its
    ``list_tools`` is wrapped, once per client."""
    sdk_session = client.session
    listed_by_sdk = sdk_session.list_tools
    if getattr(listed_by_sdk, "records_listings", False):
        return

    async def list_tools(*, params: PaginatedRequestParams | None = None) -> Any:
        caller = _CALLER.get()
        if params is not None or caller is None:  # the harness's own listing (Session.list_tools)
            return await listed_by_sdk(params=params)
        base = {**_request("tools/list", None), "sent_by": "sdk"}
        started = time.perf_counter()
        observed: Observation | None = None
        try:
            listed = await listed_by_sdk()
        except ValidationError as refused:
            # Judged by the harness's own listing (HOST-021 and others); without a
            # listing the SDK judges no answer against an output schema: the checks do.
            fault = f"the SDK client refused the listing: {describe(refused)}"
            observed = Observation(**base, outcome="fault", fault=fault)
            return ListToolsResult(tools=[])
        except Exception as error:
            observed = _failed(base, error)
            raise
        else:
            names = [tool.name for tool in listed.tools]
            observed = Observation(**base, outcome="result", structured={"tools": names})
            return listed
        finally:
            if observed is not None:  # None when the call was cancelled
                elapsed = (time.perf_counter() - started) * 1000
                caller._record(observed, elapsed, raises=False)

    list_tools.records_listings = True  # type: ignore[attr-defined]
    sdk_session.list_tools = list_tools  # type: ignore[method-assign]


def _keep_refused_output(client: Client) -> None:
    """Make ``client``'s SDK session keep a result whose structuredContent its check against the
    tool's outputSchema refuses (it raises, and the answer would be lost, a fault of every rule
    of the check): the refusal is noted for the call (``Observation.output_refused``), for a
    contract's rule to judge and its answer readers to read around. Once per client."""
    sdk_session = client.session
    validate = sdk_session.validate_tool_result
    if getattr(validate, "keeps_refused", False):
        return

    async def validate_keeping(name: str, result: Any) -> None:
        output = _OUTPUT_CHECK.get()
        try:
            await validate(name, result)
        except RuntimeError as refused:
            if output is None:  # not a call of the harness's
                raise
            output.refused = str(refused)
        if output is not None:
            # the SDK keeps no public record of the schemas it checks against
            schemas = getattr(sdk_session, "_tool_output_schemas", {})
            output.checked = output.refused is not None or schemas.get(name) is not None

    validate_keeping.keeps_refused = True  # type: ignore[attr-defined]
    sdk_session.validate_tool_result = validate_keeping  # type: ignore[method-assign]
