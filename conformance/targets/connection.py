"""The clients of one launch of a server: one for every call, or one per identity.

When a call carries its caller's identity itself, every call travels on one client. When the
identity travels outside the call (a process started with templated environment, or templated
HTTP headers: ``identities.Identities.per_client``), each identity gets its own client, opened
on first use and closed with the connection or once it is the least recently used of more than
``KEPT_IDENTITY_CLIENTS``.

A check may also need a client of its own (``extra_client``), which it closes itself: to lose an
answer by closing a transport, or to send identical calls over several sessions at once.

Calls whose arguments the SDK cannot write go over a raw channel (``raw_for``, see
``raw_channel``): one per identity (one in all when calls carry it), opened on first use and
closed with the connection or once it is the least recently used of more than
``KEPT_RAW_CHANNELS``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any

import anyio
from anyio.abc import TaskGroup, TaskStatus
from mcp import Client

from .identities import IN_THE_CALL, Identities
from .raw_channel import Channel

OpenClient = Callable[[dict[str, str]], AbstractAsyncContextManager[Client]]
OpenRaw = Callable[[dict[str, str]], AbstractAsyncContextManager[Channel]]
#: Per-identity clients kept open at once (over stdio, each is a process).
KEPT_IDENTITY_CLIENTS = 8
#: Raw channels kept open at once (over stdio, each is a process).
KEPT_RAW_CHANNELS = 2


async def _unexplained(client: Any) -> None:
    """A transport that knows no more than the SDK of why a connection ended."""


class Connection:
    def __init__(
        self,
        default: Client,
        stack: AsyncExitStack,
        open_for: OpenClient | None = None,
        *,
        open_extra: OpenClient | None = None,
        open_raw: OpenRaw | None = None,
        group: TaskGroup | None = None,
        explain: Callable[[Any], Awaitable[str | None]] | None = None,
        extra_is_a_process: bool = False,
        identities: Identities = IN_THE_CALL,
    ):
        """``open_for`` (a client per identity) needs ``group``, a task group of the task
        that closes ``stack``: each identity's client lives in a task of its own there.
        ``explain`` tells why a client's connection ended, when its transport knows.
        ``extra_is_a_process``: each extra client is a server process of its own, started
        when it opens and stopped when it closes (stdio), so that closing one and opening
        another restarts the server on the same state. ``identities`` tells the identity a
        call's claims name (``Identities.of``)."""
        self.default = default
        self.identities = identities
        self.extra_is_a_process = extra_is_a_process
        self.explain = explain or _unexplained
        self._open_for = open_for
        self._open_extra = open_extra
        self._open_raw = open_raw
        self._group = group
        self._opening = anyio.Lock()
        self._clients: OrderedDict[tuple[str, ...], tuple[Client, anyio.Event]] = OrderedDict()
        self._raw: OrderedDict[tuple[str, ...], tuple[Channel, AsyncExitStack]] = OrderedDict()
        if open_for is not None:
            if group is None:
                raise ValueError("per-identity clients need a task group")
            stack.push_async_callback(self._close_identity_clients)
        if open_raw is not None:
            stack.push_async_callback(self._close_raw_channels)

    async def client_for(self, claims: dict[str, Any] | None) -> Client:
        """The client that carries ``claims``' identity (the default one when calls carry it).
        At most ``KEPT_IDENTITY_CLIENTS`` stay open: opening one more closes the least
        recently used."""
        open_for, group = self._open_for, self._group
        if open_for is None or group is None or not claims:
            return self.default
        identity = self.identities.of(claims)
        key = tuple(identity.values())
        async with self._opening:
            if key not in self._clients:
                while len(self._clients) >= KEPT_IDENTITY_CLIENTS:
                    _, (_, done) = self._clients.popitem(last=False)
                    done.set()
                done = anyio.Event()
                client = await group.start(self._hold, open_for, identity, done)
                self._clients[key] = (client, done)
            self._clients.move_to_end(key)
            return self._clients[key][0]

    @staticmethod
    async def _hold(
        open_for: OpenClient,
        identity: dict[str, str],
        done: anyio.Event,
        *,
        task_status: TaskStatus[Client] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Open ``identity``'s client, hand it out, and close it once ``done`` is set, all in
        this task: an MCP client must be closed by the task that opened it, and a check may
        open one from a task that ends before the connection does (the lifecycle machine's
        calls each run in a task of their own). A failure to open is raised to the caller of
        ``client_for``; a client that breaks later has shown it to its calls already."""
        handed_out = False
        try:
            async with open_for(identity) as client:
                task_status.started(client)
                handed_out = True
                await done.wait()
        except Exception:
            if not handed_out:
                raise

    async def _close_identity_clients(self) -> None:
        for _, done in self._clients.values():
            done.set()
        self._clients.clear()

    async def raw_for(self, claims: dict[str, Any] | None) -> Channel | None:
        """The raw channel that carries ``claims``' identity (None if the target has none).
        Unlike an MCP client it holds no task group, so any task may open and close it."""
        if self._open_raw is None:
            return None
        identity = self.identities.of(claims)
        key = tuple(identity.values()) if self._open_for is not None else ()
        async with self._opening:
            if key not in self._raw:
                while len(self._raw) >= KEPT_RAW_CHANNELS:
                    _, (_, held) = self._raw.popitem(last=False)
                    await held.aclose()
                held = AsyncExitStack()
                channel = await held.enter_async_context(self._open_raw(identity))
                self._raw[key] = (channel, held)
            self._raw.move_to_end(key)
            return self._raw[key][0]

    async def _close_raw_channels(self) -> None:
        while self._raw:
            _, (_, held) = self._raw.popitem()
            await held.aclose()

    def extra_client(self, claims: dict[str, Any] | None) -> AbstractAsyncContextManager[Client]:
        """A new initialized client that reaches the same server state, closed when the caller's
        block ends, carrying ``claims``' identity where each identity has a client of its own
        (when calls carry the identity themselves, any client serves it).
        Opening it may raise ``StartupFailed``: over stdio it starts another server process on
        the same state, over HTTP it opens another session with the same server."""
        if self._open_extra is None:
            raise NotImplementedError("this target opens no extra client")
        return self._open_extra(self.identities.of(claims))
