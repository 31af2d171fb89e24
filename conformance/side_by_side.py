"""Checks side by side: a run's checks that may share the server run a few at a time, so that
what they wait for (an expiry, a window, a server process starting) overlaps instead of adding
up, and the harness works while the server does.

Each check already works in scopes of its own (fresh identities, fresh names), so the checks
of a run do not see each other's records. What needs the server to itself says so in the
registry (``Check.alone``) and is not run here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import anyio

T = TypeVar("T")

#: How many checks a run makes at once unless told (``RunOptions.width``; ``--width 1``: one
#: after another). A server's bugs that follow the order of its calls (a search filled with
#: the records of the scope that wrote last) show only when no other check's calls come in
#: between: the checks that look for them say ``alone`` in the registry and run so. A full run
#: of the kill matrix side by side kills every mutant with the rules it kills one at a time
#: (issue 25).
WIDTH = 8


async def side_by_side(items: Sequence[T], width: int, run: Callable[[T], Awaitable[bool]]) -> None:
    """``run(item)`` for each of ``items`` in their order, at most ``width`` at once. Once a run
    returns False (the connection they share must be renewed), no other is started, and the
    runs started are waited for (the runner keeps the checks not begun pending)."""
    slots = anyio.Semaphore(width)
    stop = anyio.Event()
    left = list(items)

    async def one(item: T) -> None:
        try:
            if not await run(item):
                stop.set()
        finally:
            slots.release()

    async with anyio.create_task_group() as group:
        while left:
            await slots.acquire()
            if stop.is_set():
                slots.release()
                break
            group.start_soon(one, left.pop(0))
