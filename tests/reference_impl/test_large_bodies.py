"""Large HTTP bodies are parsed one at a time (attack round 5): a flood of small JSON values costs
about 50 times its size in memory while it is built, so eight 8 MiB bodies at once held 3.5 GB.
Small bodies are not held up by them."""

from __future__ import annotations

import threading
import time
from typing import Any

import anyio
import pytest
from engram_conformance.reference_impl import streamable_http, wire
from engram_conformance.reference_impl.streamable_http import (
    LARGE_BODY_BYTES,
    Gate,
    HttpLimits,
    Origins,
)

pytestmark = pytest.mark.anyio


_READ = wire.read


class _Parses:
    """``wire.read`` watched: how many parses of large bodies ran at once, at most."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.large_now = self.large_most = 0

    def read(self, data: bytes) -> Any:
        large = len(data) > LARGE_BODY_BYTES
        with self.lock:
            self.large_now += large
            self.large_most = max(self.large_most, self.large_now)
        try:
            time.sleep(0.05)  # long enough for the others to start, if nothing held them
            return _READ(data)
        finally:
            with self.lock:
                self.large_now -= large


async def _post(gate: Gate, body: bytes) -> int:
    sent: list[dict[str, Any]] = []
    chunks = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        return chunks.pop(0) if chunks else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json")]
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}
    await gate(scope, receive, send)
    return next(message["status"] for message in sent if message["type"] == "http.response.start")


async def test_large_bodies_wait_for_each_other(monkeypatch: pytest.MonkeyPatch) -> None:
    parses = _Parses()
    monkeypatch.setattr(streamable_http.wire, "read", parses.read)
    gate = Gate(lambda *_: None, Origins.of(("127.0.0.1",), 8000), HttpLimits(), None)  # type: ignore[arg-type]
    large = b"[" + b"[]," * (LARGE_BODY_BYTES // 3 + 1) + b"x"  # not JSON: answered -32700
    statuses: list[int] = []

    async def post(body: bytes) -> None:
        statuses.append(await _post(gate, body))

    async with anyio.create_task_group() as group:
        for _ in range(4):
            group.start_soon(post, large)
        group.start_soon(post, b"{")
    assert statuses == [400] * 5
    assert parses.large_most == 1
