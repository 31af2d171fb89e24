"""The clients of one launch of a server: one for every call, or one per bound identity.

With the signed-meta binding every call travels on one client and carries its context in
``_meta``. With the process-env and http-headers bindings the identity travels outside the call
(a process started with templated environment, or templated HTTP headers), so each identity
gets its own client, opened on first use and closed with the connection.

A check may also need a client of its own (``extra_client``), which it closes itself: to lose an
answer by closing a transport, or to send identical calls over several sessions at once.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any

from mcp import Client

IDENTITY_CLAIMS = ("tenant", "workspace", "principal", "agent_id", "session", "purpose_ref")
OpenClient = Callable[[dict[str, str]], AbstractAsyncContextManager[Client]]


def identity_of(claims: dict[str, Any] | None) -> dict[str, str]:
    return {name: str((claims or {}).get(name, "")) for name in IDENTITY_CLAIMS}


class Connection:
    def __init__(
        self,
        default: Client,
        stack: AsyncExitStack,
        open_for: OpenClient | None = None,
        *,
        open_extra: OpenClient | None = None,
    ):
        self.default = default
        self._stack = stack
        self._open_for = open_for
        self._open_extra = open_extra
        self._clients: dict[tuple[str, ...], Client] = {}

    async def client_for(self, claims: dict[str, Any] | None) -> Client:
        """The client that binds ``claims``' identity (the default one for signed-meta)."""
        if self._open_for is None or not claims:
            return self.default
        identity = identity_of(claims)
        key = tuple(identity.values())
        if key not in self._clients:
            self._clients[key] = await self._stack.enter_async_context(self._open_for(identity))
        return self._clients[key]

    def extra_client(self, claims: dict[str, Any] | None) -> AbstractAsyncContextManager[Client]:
        """A new initialized client that reaches the same server state, closed when the caller's
        block ends, bound to ``claims``' identity where the binding is per identity (with
        signed-meta the identity travels in each call's ``_meta``, so any client serves it).
        Opening it may raise ``StartupFailed``: over stdio it starts another server process on
        the same state, over HTTP it opens another session with the same server."""
        if self._open_extra is None:
            raise NotImplementedError("this target opens no extra client")
        return self._open_extra(identity_of(claims))
