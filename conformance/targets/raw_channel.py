"""Byte-exact calls beside the SDK client, for arguments its JSON writer cannot write.

The MCP SDK's JSON writer cannot write an unpaired surrogate (it fails, and the session with it)
and writes an infinite number as ``null``; rule SCHEMA-032 wants both sent and answered
INVALID_SCHEMA. So a raw channel writes each message itself (``json_text``).

Over stdio it is a server process of its own (the SDK owns the pipes of the others), over streamable
HTTP an MCP session of its own. It speaks the protocol version the run negotiated (``eras``): in the
handshake era it makes the MCP handshake in raw text first; in the new era it asks
``server/discover`` first, and frames every request itself, the envelope in ``params._meta`` and,
over HTTP, the era's headers and no session id. It sends one call at a time, and reads messages
until the response with the call's id: notifications and requests from the server are skipped. It
answers as the SDK client does, a ``CallToolResult`` or an ``MCPError`` for a JSON-RPC error; output
that is no JSON-RPC answer raises ``NotAnswered`` with its first bytes, escaped. Unlike the SDK it
does not check ``structuredContent`` against the tool's output schema: the checks judge what the
server sent.

A message no client writes (an id that is a fraction, a repeated key) is sent as a ``Probe``,
which a server may leave unanswered. Over stdio a ping follows it on the same pipe: a server
reads its input in order, so the ping's answer coming first shows that the server read the
probe and answers later requests. That alone cannot tell "never" from "later" (a server may
answer the ping while it still works on the probe, as the reference does for a call), so the
channel goes on with other requests and keeps the probe's answer if it comes, until the probe's
own deadline; ``settle`` then waits once for every probe still unanswered. A server that leaves
several unanswered costs one time-out, not one each, and one that answers late but within the
time-out is judged on its answer. Over HTTP a POST's own response tells: a JSON answer, a 202 or
a stream that ends unanswered is known at once; a stream held open is waited for until the
time-out.

A target in process has no text, but the SDK's client dumps the params in JSON mode before it
hands them over, which makes an infinite number ``None``: its channel (``ObjectChannel``) hands
them over as they are.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from . import eras, processes
from .json_text import json_text
from .server_log import ServerLog
from .stdio_transport import MAX_MESSAGE_BYTES, evidence


class NotAnswered(Exception):
    """The server's output is not the JSON-RPC answer to the request in flight."""


#: What shows that the channel's server stopped talking (closed its pipe, wrote garbage).
CHANNEL_FAULTS = (NotAnswered, OSError, anyio.BrokenResourceError, anyio.ClosedResourceError)


@dataclass
class Probe:
    """A request written whole, and what came of it: its ``answer``, or a ``fault`` (why none
    came). Neither while it is outstanding (over stdio only, until ``settle``)."""

    request_id: int
    timeout_s: float
    #: when its time-out ends (``time.monotonic()``)
    deadline: float
    answer: dict[str, Any] | None = None
    fault: str | None = None
    #: over stdio, how long a ping sent right after it took to be answered, when that answer
    #: came before the probe's
    ping_ms: float | None = None

    @property
    def settled(self) -> bool:
        return self.answer is not None or self.fault is not None

    def time_out(self) -> None:
        """No answer came within its time-out."""
        self.fault = f"no answer within {self.timeout_s} s"
        if self.ping_ms is not None:
            self.fault += (
                f", while a ping sent right after it was answered in {self.ping_ms:.0f} ms"
                " (the server read it and went on serving)"
            )


def _parsed(data: bytes | str) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        raise NotAnswered(f"the server wrote what is not JSON: {evidence(data)}") from None


def _answers(message: Any, request_id: int) -> bool:
    """Whether ``message`` is the response to ``request_id``; an error with a null id answers
    the request in flight too (the server could not read its id, and only one is in flight)."""
    if not isinstance(message, dict) or "method" in message:
        return False
    if "error" in message:
        return message.get("id") in (request_id, None)
    return "result" in message and message.get("id") == request_id


def _call_params(name: str, arguments: Any, meta: dict[str, Any] | None) -> dict[str, Any]:
    """A ``tools/call``'s params as the SDK writes them (``_meta`` first, when given)."""
    params = {"_meta": meta} if meta else {}
    return {**params, "name": name, "arguments": arguments}


class RawChannel:
    """One MCP session spoken in raw text; a transport sends a request and reads its answer.

    ``protocol_version``: the version the run negotiated, which frames every request (None
    until a handshake-era channel has made its handshake)."""

    def __init__(self, protocol_version: str | None = None) -> None:
        self._ids = itertools.count(1)
        self._one_at_a_time = anyio.Lock()
        self.protocol_version = protocol_version

    @property
    def envelope(self) -> dict[str, Any]:
        """The ``_meta`` keys each request of this channel's era carries (none in the
        handshake era): a check that writes a request's text whole puts them in."""
        return eras.envelope(self.protocol_version)

    def framed_meta(self, meta: dict[str, Any] | None) -> dict[str, Any]:
        """``meta`` (the host's keys) with the era's envelope keys."""
        return {**(meta or {}), **self.envelope}

    async def _request(
        self, request_id: int, text: str, method: str, name: str | None
    ) -> dict[str, Any]:
        """Send the request ``text`` (of ``method``, naming ``name``) and return the response
        to ``request_id``."""
        raise NotImplementedError

    async def _notify(self, text: str) -> None:
        raise NotImplementedError

    async def exchange(
        self, text_of: Callable[[int], str], method: str, name: str | None = None
    ) -> dict[str, Any]:
        """The response to a request written whole as ``text_of(request_id)`` (a message no
        client writes is sent as a ``probe``): the id is the channel's next, and an error with a
        null id answers too. ``method`` and ``name`` are what the text
        asks for, which the new era's HTTP headers repeat. It waits as long as the server is
        silent."""
        async with self._one_at_a_time:
            request_id = next(self._ids)
            return await self._request(request_id, text_of(request_id), method, name)

    async def probe(
        self, text_of: Callable[[int], str], method: str, name: str | None, timeout_s: float
    ) -> Probe:
        """Send a request written whole as ``text_of(request_id)`` (as ``exchange``) and wait
        for its answer, at most ``timeout_s``. Over HTTP the probe comes back settled."""
        async with self._one_at_a_time:
            request_id = next(self._ids)
            probe = Probe(request_id, timeout_s, time.monotonic() + timeout_s)
            try:
                with anyio.fail_after(timeout_s):
                    probe.answer = await self._request(
                        request_id, text_of(request_id), method, name
                    )
            except TimeoutError:
                probe.time_out()
            except CHANNEL_FAULTS as error:
                probe.fault = f"no answer: {str(error) or type(error).__name__}"
            return probe

    async def settle(self, probes: list[Probe]) -> None:
        """Wait until each of ``probes`` has its answer or its time-out has ended, then stop
        listening for them. Over HTTP there is nothing left to wait for."""

    async def _ask(self, method: str, params: dict[str, Any], name: str | None = None) -> Any:
        """The result of a request, framed in the channel's era; a JSON-RPC error raises
        ``MCPError``."""
        meta = self.framed_meta(params.get("_meta"))
        if meta:
            params = {**params, "_meta": meta}

        def text_of(request_id: int) -> str:
            return json_text(
                {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
            )

        response = await self.exchange(text_of, method, name)
        if "error" not in response:
            return response["result"]
        error = response["error"]
        if not isinstance(error, dict) or not isinstance(error.get("code"), int):
            raise NotAnswered(f"a malformed JSON-RPC error: {evidence(repr(error))}")
        raise MCPError(error["code"], str(error.get("message", "")), error.get("data"))

    async def handshake(self, timeout_s: float) -> None:
        """``initialize`` with the SDK's protocol version, then ``notifications/initialized``;
        in the new era, which has no handshake, ``server/discover`` in the channel's version,
        so that the channel is open once the server answers, as in the handshake era (a
        server process still starting would otherwise spend a call's time-out of the first
        request sent)."""
        if eras.is_modern(self.protocol_version):
            try:
                with anyio.fail_after(timeout_s):
                    await self._ask("server/discover", {})
            except TimeoutError:
                raise TimeoutError(f"no answer to server/discover within {timeout_s} s") from None
            return
        offer = {
            "protocolVersion": LATEST_HANDSHAKE_VERSION,
            "capabilities": {},
            "clientInfo": eras.RAW_CLIENT_INFO,
        }
        try:
            with anyio.fail_after(timeout_s):
                result = await self._ask("initialize", offer)
                version = result.get("protocolVersion") if isinstance(result, dict) else None
                if not isinstance(version, str):
                    raise NotAnswered(f"initialize answered no protocolVersion: {result!r}")
                self.protocol_version = version
                await self._notify(
                    json_text({"jsonrpc": "2.0", "method": "notifications/initialized"})
                )
        except TimeoutError:
            raise TimeoutError(f"no answer to initialize within {timeout_s} s") from None

    async def call_tool(
        self, name: str, arguments: Any, *, meta: dict[str, Any] | None = None
    ) -> CallToolResult:
        result = await self._ask("tools/call", _call_params(name, arguments, meta), name)
        return CallToolResult.model_validate(result)


class _Stdio(RawChannel):
    """Newline-delimited JSON-RPC on a server process's stdin and stdout."""

    def __init__(self, process: Process, protocol_version: str | None) -> None:
        super().__init__(protocol_version)
        assert process.stdin is not None and process.stdout is not None
        self._input = process.stdin
        self._lines = BufferedByteReceiveStream(process.stdout)
        #: probes sent whose answer may still come, oldest first, and the one being sent
        self._outstanding: list[Probe] = []
        self._in_flight: Probe | None = None

    async def _notify(self, text: str) -> None:
        await self._input.send(text.encode("ascii") + b"\n")

    async def _read(self) -> Any:
        """The next message the server writes; one answering an outstanding probe is kept in
        it and read as nothing (None)."""
        while True:
            try:
                line = await self._lines.receive_until(b"\n", MAX_MESSAGE_BYTES)
            except anyio.IncompleteRead:
                raise NotAnswered("the server closed its output before answering") from None
            except anyio.DelimiterNotFound:
                raise NotAnswered(f"a line longer than {MAX_MESSAGE_BYTES} bytes") from None
            if line.strip():
                message = _parsed(line)
                return None if self._kept(message) else message

    def _kept(self, message: Any) -> bool:
        """Whether ``message`` answers an outstanding probe, which then keeps it. An error with
        a null id (the server could not read the id) answers the probe in flight, else the
        oldest outstanding: every probe takes -32600 there, so which one matters little."""
        waiting = [probe for probe in self._outstanding if not probe.settled]
        waiting.sort(key=lambda probe: probe is not self._in_flight)  # stable: oldest next
        for probe in waiting:
            if _answers(message, probe.request_id):
                probe.answer = message
                return True
        return False

    async def _request(
        self, request_id: int, text: str, method: str, name: str | None
    ) -> dict[str, Any]:
        await self._notify(text)
        while True:
            message = await self._read()
            if _answers(message, request_id):
                return message

    def _ping(self, request_id: int) -> str:
        params = {"params": {"_meta": self.envelope}} if self.envelope else {}
        return json_text({"jsonrpc": "2.0", "id": request_id, "method": "ping", **params})

    async def probe(
        self, text_of: Callable[[int], str], method: str, name: str | None, timeout_s: float
    ) -> Probe:
        """Send the probe, then a ping; wait for the probe's answer until the ping's comes
        first (the probe is then outstanding: ``settle``) or ``timeout_s`` has passed."""
        async with self._one_at_a_time:
            request_id, ping_id = next(self._ids), next(self._ids)
            started = time.monotonic()
            probe = Probe(request_id, timeout_s, started + timeout_s)
            self._outstanding.append(probe)
            self._in_flight = probe
            try:
                with anyio.move_on_after(timeout_s):
                    await self._notify(f"{text_of(request_id)}\n{self._ping(ping_id)}")
                    while not probe.settled:
                        if _answers(await self._read(), ping_id):
                            probe.ping_ms = (time.monotonic() - started) * 1000
                            break
            except CHANNEL_FAULTS as error:
                probe.fault = f"no answer: {str(error) or type(error).__name__}"
            finally:
                self._in_flight = None
            return probe

    async def settle(self, probes: list[Probe]) -> None:
        """Read on until every probe of ``probes`` is answered or past its deadline, all at
        once; those still unanswered then time out, and their answers are no longer kept."""
        async with self._one_at_a_time:
            try:
                for probe in sorted(probes, key=lambda probe: probe.deadline):
                    with anyio.move_on_after(probe.deadline - time.monotonic()):
                        while not probe.settled:
                            await self._read()
            except CHANNEL_FAULTS as error:
                for probe in probes:
                    if not probe.settled:
                        probe.fault = f"no answer: {str(error) or type(error).__name__}"
            finally:
                self._outstanding = [p for p in self._outstanding if p not in probes]
            for probe in probes:
                if not probe.settled:
                    probe.time_out()


@asynccontextmanager
async def over_stdio(
    command: list[str],
    env: dict[str, str],
    log: ServerLog,
    timeout_s: float,
    cwd: str | None = None,
    protocol_version: str | None = None,
) -> AsyncIterator[RawChannel]:
    """A raw channel to a server process started as ``command`` with ``env`` in the folder
    ``cwd`` (its stderr kept in ``log``), initialized within ``timeout_s`` in the handshake
    era, speaking ``protocol_version`` in the new one."""
    process = await processes.spawn(command, env, log, cwd)
    try:
        channel = _Stdio(process, protocol_version)
        await channel.handshake(timeout_s)
        yield channel
    finally:
        await processes.stop(process)


class _Http(RawChannel):
    """Streamable HTTP: each message a POST, the answer a JSON body or an event stream."""

    def __init__(self, client: httpx2.AsyncClient, url: str, protocol_version: str | None) -> None:
        super().__init__(protocol_version)
        self._client = client
        self._url = url
        self.session_id: str | None = None

    def _headers(self, method: str, name: str | None = None) -> dict[str, str]:
        """A POST's headers: its kinds, the session's id (handshake era) and the era's own."""
        headers = {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
        }
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        return headers | eras.http_headers(self.protocol_version, method, name)

    async def _notify(self, text: str) -> None:
        headers = self._headers("notifications/initialized")
        response = await self._client.post(self._url, content=text, headers=headers)
        if response.status_code >= 400:
            raise NotAnswered(
                f"HTTP {response.status_code} to a notification: {evidence(response.content)}"
            )

    async def _request(
        self, request_id: int, text: str, method: str, name: str | None
    ) -> dict[str, Any]:
        headers = self._headers(method, name)
        post = self._client.stream("POST", self._url, content=text, headers=headers)
        async with post as response:
            if not eras.is_modern(self.protocol_version):  # the new era has no session
                self.session_id = response.headers.get("mcp-session-id", self.session_id)
            kind = response.headers.get("content-type", "").partition(";")[0].strip().lower()
            if kind == "text/event-stream":
                source = httpx2.EventSource(response, max_event_size=MAX_MESSAGE_BYTES)
                async for event in source:
                    if event.data.strip():
                        message = _parsed(event.data)
                        if _answers(message, request_id):
                            return message
                raise NotAnswered(f"HTTP {response.status_code}: the event stream ended unanswered")
            body = await response.aread()
            message = _parsed(body) if kind == "application/json" else None
            if _answers(message, request_id):
                return message  # type: ignore[return-value]
            status = f"HTTP {response.status_code} ({kind or 'no content type'})"
            raise NotAnswered(f"{status} with no answer: {evidence(body)}")

    async def end_session(self) -> None:
        if self.session_id is not None:  # the handshake era's: its headers name no method
            await self._client.delete(self._url, headers=self._headers("DELETE"))


@asynccontextmanager
async def over_http(
    url: str, headers: dict[str, str], timeout_s: float, protocol_version: str | None = None
) -> AsyncIterator[RawChannel]:
    """A raw channel at ``url``, each request carrying ``headers`` (the identity's): in the
    handshake era an MCP session of its own, initialized within ``timeout_s`` and ended with
    it; in the new era, speaking ``protocol_version``, one self-contained POST per request."""
    async with httpx2.AsyncClient(headers=headers, timeout=timeout_s) as client:
        channel = _Http(client, url, protocol_version)
        try:
            await channel.handshake(timeout_s)
            yield channel
        finally:
            with (
                anyio.CancelScope(shield=True),
                anyio.move_on_after(timeout_s),
                contextlib.suppress(httpx2.HTTPError),
            ):
                await channel.end_session()


class ObjectChannel:
    """The raw channel of a target in process, where no text travels: the SDK's client would
    hand the server the objects, but dumped in JSON mode first, which makes an infinite number
    ``None``. This hands the client's JSON-RPC dispatcher the params as they are (the SDK has
    no public call for it), framed in the client's era; lone surrogates and infinite numbers
    reach the server unchanged."""

    def __init__(self, client: Client) -> None:
        self._client = client

    async def call_tool(
        self, name: str, arguments: Any, *, meta: dict[str, Any] | None = None
    ) -> CallToolResult:
        framed = {**(meta or {}), **eras.envelope(self._client.protocol_version)}
        params = _call_params(name, arguments, framed)
        result = await self._client.session._dispatcher.send_raw_request("tools/call", params)
        return CallToolResult.model_validate(result)


#: What carries the calls the SDK cannot write: a raw channel, or a target in process's.
Channel = RawChannel | ObjectChannel
