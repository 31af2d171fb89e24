"""The clients of one launch of a server: one for every call, or one per bound identity.

With the signed-meta binding every call travels on one client and carries its context in
``_meta``. With the process-env and http-headers bindings the identity travels outside the call
(a process started with templated environment, or templated HTTP headers), so each identity
gets its own client, opened on first use and closed with the connection.
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
    def __init__(self, default: Client, stack: AsyncExitStack, open_for: OpenClient | None = None):
        self.default = default
        self._stack = stack
        self._open_for = open_for
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
