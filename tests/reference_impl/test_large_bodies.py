"""Large HTTP bodies are parsed one at a time (attack round 5): a flood of small JSON values costs
about 50 times its size in memory while it is built, so eight 8 MiB bodies at once held 3.5 GB.
Small bodies are not held up by them, and a refused body's message is freed as soon as it is
answered."""

from __future__ import annotations

import gc
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


@pytest.mark.parametrize(
    "size",
    [LARGE_BODY_BYTES + 1, 1024 * 1024 - 28],
    ids=["just over the bound", "just under 1 MiB (attack round 6: forty at once held 2 GB)"],
)
async def test_large_bodies_wait_for_each_other(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    parses = _Parses()
    monkeypatch.setattr(streamable_http.wire, "read", parses.read)
    gate = Gate(lambda *_: None, Origins.of(("127.0.0.1",), 8000), HttpLimits(), None)  # type: ignore[arg-type]
    large = (b"[" + b"[]," * (size // 3))[: size - 1] + b"x"  # not JSON: answered -32700
    assert len(large) == size
    statuses: list[int] = []

    async def post(body: bytes) -> None:
        statuses.append(await _post(gate, body))

    async with anyio.create_task_group() as group:
        for _ in range(4):
            group.start_soon(post, large)
        group.start_soon(post, b"{")
    assert statuses == [400] * 5
    assert parses.large_most == 1


async def test_a_refused_body_leaves_nothing_read_for_the_collector() -> None:
    """Attack round 6: a refusal raised across the worker thread made a cycle that kept each
    message read (50 times its body) until the cyclic collector ran, which the parses keep
    paused: forty refused bodies of 1 MiB at once held 2 GB."""
    gate = Gate(lambda *_: None, Origins.of(("127.0.0.1",), 8000), HttpLimits(), None)  # type: ignore[arg-type]
    refused = b'[{"a": 1, "a": 2},' + b"{}," * 5_000 + b"{}]"  # a batch: -32600
    assert await _post(gate, refused) == 400
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds unreachable is kept to be seen
    try:
        for body in (refused, b"{", refused + b"x"):
            assert await _post(gate, body) == 400
        gc.collect()
        kept = [found for found in gc.garbage if isinstance(found, list) and len(found) > 5_000]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert kept == []
