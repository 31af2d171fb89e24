"""The streamable HTTP transport: the SDK's app at ``/mcp``, served by uvicorn on a bound socket.

One ASGI middleware sits in front of the SDK's app: it reads a POST's JSON-RPC message
leniently and passes a ``tools/call``'s arguments to the handler in the ASGI scope (see
``wire``). Bodies it cannot read go to the SDK untouched, which answers them (400 with -32700,
or 413 beyond the body limit).
"""

from __future__ import annotations

import socket
from collections import deque
from typing import Any

import uvicorn
from mcp.server.lowlevel import Server
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import wire

ENDPOINT = "/mcp"
#: A 1 MiB argument object sent with every character \\u-escaped is up to 6 MiB of JSON text.
MAX_BODY_BYTES = 8 * 1024 * 1024


class SetAsideArguments:
    """ASGI middleware: a ``tools/call``'s arguments travel beside the message, as sent."""

    def __init__(self, app: ASGIApp, max_body_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        received, body = await _read_body(receive, self.max_body_bytes)
        if body is not None:
            try:
                forwarded, sent = wire.set_aside(wire.parse(body))
            except (wire.NotJson, RecursionError):
                sent = None
            if sent is not None:
                body = wire.encode(forwarded)
                scope = {**scope, wire.SCOPE_KEY: sent, "headers": _with_length(scope, body)}
                received = deque([{"type": "http.request", "body": body, "more_body": False}])

        async def replay() -> Message:
            return received.popleft() if received else await receive()

        await self.app(scope, replay, send)


async def _read_body(receive: Receive, limit: int) -> tuple[deque[Message], bytes | None]:
    """The messages read, and the whole body (None when it exceeds ``limit`` or never ends)."""
    received: deque[Message] = deque()
    size = 0
    while True:
        message = await receive()
        received.append(message)
        if message["type"] != "http.request":
            return received, None
        size += len(message.get("body", b""))
        if size > limit:
            return received, None
        if not message.get("more_body", False):
            return received, b"".join(m.get("body", b"") for m in received)


def _with_length(scope: Scope, body: bytes) -> list[tuple[bytes, bytes]]:
    headers = [(name, value) for name, value in scope["headers"] if name != b"content-length"]
    return [*headers, (b"content-length", str(len(body)).encode("ascii"))]


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket (port 0: any free port); OSError when the address is unusable."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


async def serve_http(server: Server[Any], sock: socket.socket) -> None:
    """Serve streamable HTTP at ``/mcp`` on ``sock`` until interrupted."""
    host = sock.getsockname()[0]
    app = server.streamable_http_app(
        streamable_http_path=ENDPOINT, host=host, max_request_body_size=MAX_BODY_BYTES
    )
    config = uvicorn.Config(
        SetAsideArguments(app), log_config=None, access_log=False, lifespan="on"
    )
    await uvicorn.Server(config).serve(sockets=[sock])
