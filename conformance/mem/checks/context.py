"""A mem check's context: the shared one (``check_context.BaseContext``) and the mem calls.

The mem protocol binds no identity, so a call carries no ``_meta``; checks keep apart by fresh
project names and unique tokens (``unique``).
"""

from __future__ import annotations

from typing import Any

from ...check_context import BaseContext
from ...observation import Observation


class MemContext(BaseContext):
    async def call(self, tool: str, arguments: dict[str, Any]) -> Observation:
        """``tool`` called with ``arguments`` as given."""
        return await self.session.call(tool, arguments, None, None)

    async def listed(self) -> dict[str, Any]:
        """The server's tools/list, by name (the SDK's ``Tool`` objects)."""
        _, tools = await self.session.list_tools()
        return {tool.name: tool for tool in tools}
