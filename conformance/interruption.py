"""A run that SIGTERM or Ctrl-C stops cleanly: the checks are cancelled, the servers stopped by
their pid, the scratch folder removed, then ``Interrupted`` says which signal it was.

Without this, SIGTERM ends the harness at once: no cleanup runs, and a server that ignores the
end of its input keeps running with its scratch folder.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

from .exceptions import Interrupted

T = TypeVar("T")
STOPPING_SIGNALS = (signal.SIGTERM, signal.SIGINT)


async def until_interrupted(work: Callable[[], Awaitable[T]]) -> T:
    """``work``'s result; SIGTERM or SIGINT cancels it and raises ``Interrupted``. Signals
    reach only the main thread: elsewhere ``work`` runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        return await work()
    caught: list[int] = []
    result: list[T] = []
    raised: list[Exception] = []
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            with anyio.open_signal_receiver(*STOPPING_SIGNALS) as signals:
                async for number in signals:
                    caught.append(number)
                    group.cancel_scope.cancel()
                    return

        async def do() -> None:
            try:
                result.append(await work())
            except Exception as error:  # raised as itself below, not in an exception group
                raised.append(error)
            finally:
                group.cancel_scope.cancel()

        group.start_soon(watch)
        group.start_soon(do)
    if caught:
        raise Interrupted(caught[0])
    if raised:
        raise raised[0]
    return result[0]
