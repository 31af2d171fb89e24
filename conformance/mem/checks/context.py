"""A mem check's context: the shared one (``check_context.BaseContext``) and the mem calls.

The mem protocol binds no identity, so a call carries no ``_meta``; checks keep apart by fresh
project names and unique tokens (``unique``, ``steps.fresh_project``).
"""

from __future__ import annotations

from typing import Any

from ...check_context import BaseContext
from ...observation import Observation


class MemContext(BaseContext):
    _listing: dict[str, Any] | None = None

    async def call(self, tool: str, arguments: dict[str, Any]) -> Observation:
        """``tool`` called with ``arguments`` as given."""
        return await self.session.call(tool, arguments, None, None)

    async def listed(self) -> dict[str, Any]:
        """The server's tools/list, by name (the SDK's ``Tool`` objects)."""
        _, tools = await self.session.list_tools()
        self._listing = {tool.name: tool for tool in tools}
        return self._listing

    async def input_schema(self, tool: str) -> dict[str, Any]:
        """``tool``'s published input schema (empty for a tool not listed), from the check's
        last tools/list (made once when it has none)."""
        listing = self._listing if self._listing is not None else await self.listed()
        listed = listing.get(tool)
        schema = listed.input_schema if listed is not None else None
        return schema if isinstance(schema, dict) else {}

    async def properties(self, tool: str) -> set[str]:
        """The argument names ``tool``'s published input schema lists (none for a tool not
        listed)."""
        properties = (await self.input_schema(tool)).get("properties")
        return set(properties) if isinstance(properties, dict) else set()

    async def required(self, tool: str) -> set[str]:
        """The argument names ``tool``'s published input schema requires."""
        names = (await self.input_schema(tool)).get("required")
        return set(names) if isinstance(names, list) else set()

    async def offered(
        self, tool: str, arguments: dict[str, Any], always: tuple[str, ...] = ()
    ) -> dict[str, Any]:
        """``arguments`` without those ``tool``'s schema does not list (but for ``always``):
        what a check sends where versions differ in the arguments a tool takes."""
        listed = await self.properties(tool)
        kept = listed | set(always)
        return {name: value for name, value in arguments.items() if name in kept}
