"""The streamable HTTP transport: the SDK's app at ``/mcp``, served by uvicorn on a bound socket.

One ASGI middleware (``Gate``) sits in front of the SDK's app. Before it reads a byte of a body
it checks the ``Host`` and ``Origin`` headers (DNS-rebinding protection, on whatever address is
bound: 421, 403), the bearer token (401, see ``http_token``), a POST's content type (415) and
declared length (413). Then it reads the body
within a deadline (408) and a size limit (413, a chunked body cut at the limit), and reads the
JSON-RPC message leniently (see ``wire``): a ``tools/call``'s arguments reach the handler in the
ASGI scope, and what is no JSON-RPC message is answered -32700 or -32600 (400) without the SDK.
The SDK's app keeps its own checks, given the same allowed hosts, and caps and expires sessions;
in front of it ``http_sessions.SessionKeeper`` makes an idle session give way to a new client
and caps one client's sessions.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import anyio
import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from . import wire
from .http_sessions import SessionKeeper, Sessions
from .http_token import BearerToken

logger = logging.getLogger(__name__)

ENDPOINT = "/mcp"
MAX_BODY_BYTES = wire.MAX_MESSAGE_BYTES
#: Bodies over this size are parsed one at a time: a flood of small JSON values costs about 50
#: times its size in memory while it is built (attack round 5: eight 8 MiB bodies at once held
#: 3.5 GB; round 6: forty bodies just under 1 MiB, then the bound, held 2 GB and stalled every
#: other client for 16 s), so parallel large bodies wait for each other rather than add up.
#: Below it, the worker threads (40) parsing at once hold at most about 40 * 50 * 64 KiB, 128 MB.
LARGE_BODY_BYTES = 64 * 1024
_LOCAL_NAMES = ("localhost", "127.0.0.1", "[::1]")


@dataclass(frozen=True)
class HttpLimits:
    """What one client may hold of the server: bytes, time and sessions."""

    max_body_bytes: int = MAX_BODY_BYTES
    #: The most a request's head, or its body, may take to arrive; also the keep-alive time.
    read_timeout_s: float = 10.0
    max_sessions: int = 64
    #: sessions of one client (one address) at once
    max_client_sessions: int = 16
    session_idle_s: float = 300.0
    #: how long a session may stay unused after the request that opened it
    session_unused_s: float = 30.0
    #: connections open without a request under way (never used, or idle between requests);
    #: beyond, the one that has waited longest is closed to make room
    max_waiting_connections: int = 256


@dataclass(frozen=True)
class Origins:
    """The ``Host`` values served (``name:port``) and the origins allowed (``http://`` those)."""

    hosts: frozenset[str]

    @classmethod
    def of(cls, addresses: Iterable[str], port: int) -> Origins:
        """The bound address and the names it is reached by, with the local names, at ``port``;
        a wildcard address is no name (a page at http://0.0.0.0 is the local machine)."""
        names = {_bracketed(name) for name in (*addresses, *_LOCAL_NAMES) if _named(name)}
        hosts = {f"{name}:{port}" for name in names}
        return cls(frozenset(hosts | (names if port == 80 else set())))

    @property
    def origins(self) -> frozenset[str]:
        return frozenset(f"http://{host}" for host in self.hosts)

    def settings(self) -> TransportSecuritySettings:
        """The same protection for the SDK's own checks (it turns them off for any address but
        three literals unless given settings)."""
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=sorted(self.hosts),
            allowed_origins=sorted(self.origins),
        )

    def refusal(self, headers: Headers) -> Response | None:
        """421 for a ``Host`` not served, 403 for an ``Origin`` of another host (none is fine:
        not a browser, or a same-origin request)."""
        if headers.get("host") not in self.hosts:
            return _refusal("Invalid Host header", 421)
        origin = headers.get("origin")
        if origin is not None and origin not in self.origins:
            return _refusal("Invalid Origin header", 403)
        return None


def _named(name: str) -> bool:
    try:
        return not ipaddress.ip_address(name.strip("[]")).is_unspecified
    except ValueError:
        return bool(name)


def _bracketed(name: str) -> str:
    return f"[{name}]" if ":" in name and not name.startswith("[") else name


def _refusal(text: str, status: int) -> Response:
    """A refusal; uvicorn drops what comes of the body after it, unbuffered (closing at once
    would reset a connection whose client is still sending: it might never see the answer)."""
    return Response(text, status_code=status)


async def _cut_off(scope: Scope, receive: Receive, send: Send) -> None:
    """408, and the connection closed: the client is too slow to wait for the rest."""
    too_slow = Response("Request body too slow", 408, headers={"connection": "close"})
    await too_slow(scope, receive, send)


def _json_rpc_error(code: int, message: str, request_id: str | int | None) -> Response:
    error = JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message))
    body = error.model_dump_json(by_alias=True, exclude_unset=True)
    return Response(body, status_code=400, media_type="application/json")


def _read_or_refuse(body: bytes) -> wire.Reading | Response:
    """The message of ``body``, or the JSON-RPC error that answers it. No exception leaves the
    worker thread: raised across it, its traceback forms a cycle with anyio's frames and keeps
    the whole message read alive until the cyclic collector runs, which the parses keep paused
    (attack round 6: eight refused bodies of 1 MiB at once held 450 MB, forty 2 GB)."""
    try:
        return wire.read(body)
    except wire.NotJson:
        return _json_rpc_error(PARSE_ERROR, "Parse error", None)
    except wire.InvalidRequest as invalid:
        return _json_rpc_error(INVALID_REQUEST, "Invalid Request", invalid.request_id)


class _TooLarge(Exception):
    pass


class _Disconnected(Exception):
    pass


class Gate:
    """ASGI middleware: refuse what may be refused unread, then read the body within bounds."""

    def __init__(
        self, app: ASGIApp, origins: Origins, limits: HttpLimits, token: BearerToken | None
    ) -> None:
        """``token``: the one every request must carry; None lets every request in."""
        self.app = app
        self.origins = origins
        self.limits = limits
        self.token = token
        #: the one worker thread that parses large bodies (``LARGE_BODY_BYTES``)
        self.large_bodies = anyio.CapacityLimiter(1)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        post = scope["method"] == "POST"
        refusal = (
            self.origins.refusal(headers)
            or (self.token.refusal(headers) if self.token is not None else None)
            or (self._unread_refusal(headers) if post else None)
        )
        if refusal is not None:
            await refusal(scope, receive, send)
        elif post:
            await self._post(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def _unread_refusal(self, headers: Headers) -> Response | None:
        media_type = headers.get("content-type", "").partition(";")[0].strip().lower()
        if media_type != "application/json":
            return _refusal("Content-Type must be application/json", 415)
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > self.limits.max_body_bytes:
            return _refusal("Request body too large", 413)
        return None

    async def _post(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            with anyio.fail_after(self.limits.read_timeout_s):
                body = await _read_body(receive, self.limits.max_body_bytes)
        except TimeoutError:
            logger.info("cut off a client that sent its body too slowly")
            await _cut_off(scope, receive, send)
            return
        except _TooLarge:
            await _refusal("Request body too large", 413)(scope, receive, send)
            return
        except _Disconnected:
            logger.info("a client disconnected before it sent its whole request")
            return
        limiter = self.large_bodies if len(body) > LARGE_BODY_BYTES else None
        reading = await anyio.to_thread.run_sync(_read_or_refuse, body, limiter=limiter)
        if isinstance(reading, Response):
            await reading(scope, receive, send)
            return
        await self._forward(scope, reading, receive, send)

    async def _forward(
        self, scope: Scope, reading: wire.Reading, receive: Receive, send: Send
    ) -> None:
        """Hand the SDK the message as it may see it; the body is read once, so after it the
        SDK's ``receive`` is the client's own (a disconnect, seen while it answers)."""
        body = wire.encode(reading.forwarded)
        forwarded = {**scope, "headers": _with_length(scope, body)}
        if reading.sent is not None:
            forwarded[wire.SCOPE_KEY] = reading.sent
        pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

        async def replay() -> Message:
            return pending.pop() if pending else await receive()

        await self.app(forwarded, replay, send)


async def _read_body(receive: Receive, limit: int) -> bytes:
    """The whole body; ``_TooLarge`` once it exceeds ``limit``, ``_Disconnected`` if the
    client goes first."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise _Disconnected
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _TooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _with_length(scope: Scope, body: bytes) -> list[tuple[bytes, bytes]]:
    headers = [(name, value) for name, value in scope["headers"] if name != b"content-length"]
    return [*headers, (b"content-length", str(len(body)).encode("ascii"))]


class _HeadDeadline(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's head (its keep-alive time), and
    a cap on the connections that wait for one: uvicorn has neither, so a client sending its
    headers a byte at a time held a connection, and a thousand idle connections ran the
    process out of file descriptors (a new client then waited 20 s). Connections waiting for a
    head are kept oldest first; past the cap, the oldest is closed, so an honest client, which
    sends its head at once, is served whatever others leave open."""

    #: this server's connections waiting for a request head, oldest first (see ``for_server``)
    waiting: dict[_HeadDeadline, None]
    most_waiting: int

    @classmethod
    def for_server(cls, most_waiting: int) -> type[_HeadDeadline]:
        """The protocol class of one server: its own register of waiting connections."""
        return type(cls.__name__, (cls,), {"waiting": {}, "most_waiting": most_waiting})

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.cycle is None or self.cycle.response_complete:  # no pipelined request began
            self._arm()

    def handle_events(self) -> None:
        super().handle_events()
        if self.cycle is not self._awaited_after:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._awaited_after = self.cycle
        self._deadline = self.loop.call_later(self.timeout_keep_alive, self._late)
        self.waiting[self] = None
        while len(self.waiting) > self.most_waiting:
            oldest = next(iter(self.waiting))
            oldest._disarm()
            logger.info("closed the longest-waiting idle connection to make room")
            oldest.transport.close()

    def _disarm(self) -> None:
        self._deadline.cancel()
        self.waiting.pop(self, None)

    def _late(self) -> None:
        self.waiting.pop(self, None)
        if not self.transport.is_closing():
            logger.info("cut off a client that sent its request head too slowly")
            self.transport.close()


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket (port 0: any free port); OSError when the address is unusable.

    Its protocol is named, not left 0: the sockets it accepts inherit it, and asyncio turns
    Nagle's algorithm off (``TCP_NODELAY``) only on sockets whose protocol says TCP. Left on,
    an answer written as a head and a body waited for the client's delayed acknowledgement of
    the head: 40 ms on every request after a connection's first (issue 25: the new era's
    self-contained POSTs ran at 48 ms a call, the handshake era's at 4)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(socket.SOMAXCONN)
    except OSError:
        sock.close()
        raise
    return sock


async def serve_http(
    server: Server[Any],
    sock: socket.socket,
    token: BearerToken | None,
    names: Iterable[str] = (),
    limits: HttpLimits = HttpLimits(),
) -> None:
    """Serve streamable HTTP at ``/mcp`` on ``sock`` until interrupted, to clients that send
    ``token`` (None: to any client); ``names`` are the host names clients reach it by, beyond
    its address and the local names."""
    address, port = sock.getsockname()[:2]
    origins = Origins.of((address, *names), port)
    app = server.streamable_http_app(
        streamable_http_path=ENDPOINT,
        host=address,
        transport_security=origins.settings(),
        max_request_body_size=limits.max_body_bytes,
        max_sessions=limits.max_sessions,
        session_idle_timeout=limits.session_idle_s,
    )
    sessions = Sessions(
        limits.max_sessions,
        limits.max_client_sessions,
        limits.session_idle_s,
        limits.session_unused_s,
    )
    config = uvicorn.Config(
        Gate(SessionKeeper(app, sessions), origins, limits, token),
        http=_HeadDeadline.for_server(limits.max_waiting_connections),
        timeout_keep_alive=limits.read_timeout_s,  # type: ignore[arg-type]
        log_config=None,
        access_log=False,
        lifespan="on",
    )
    await uvicorn.Server(config).serve(sockets=[sock])
