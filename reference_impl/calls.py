"""How a reference server runs the synchronous work of its tool calls: one at a time, since its
store is one SQLite connection.

A server in a process of its own (``engram-reference serve``) runs each call on its event loop.
A call is short (the bounded-cost rules time the worst), and handing each to a worker thread
cost more than the call once calls came side by side: the loop and the thread took the GIL from
each other at every call, so that eight calls at a time went no faster than one
(benchmarks/README.md, "Calls on the server's event loop"). A server that shares its event loop
with its client (in process, as the kit's own tests run it) runs each call in a worker thread
instead, so that a slow call never holds the client up: its time limits must still fire.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio

T = TypeVar("T")


class Calls:
    def __init__(self, *, on_loop: bool) -> None:
        self.on_loop = on_loop
        self._one_at_a_time = anyio.CapacityLimiter(1)

    async def run(self, work: Callable[..., T], *arguments: object) -> T:
        """``work(*arguments)``, on the loop or in a worker thread, after the calls before it."""
        if self.on_loop:  # nothing else runs on the loop meanwhile
            return work(*arguments)
        return await anyio.to_thread.run_sync(work, *arguments, limiter=self._one_at_a_time)
