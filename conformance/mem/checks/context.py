"""A mem check's context: the shared one (``check_context.BaseContext``) and the mem calls.

The mem protocol binds no identity, so a call carries no ``_meta``; checks keep apart by fresh
project names and unique tokens (``unique``, ``steps.fresh_project``). A call sends its arguments
under the names the server publishes (``arguments.published_call``); one it cannot do without and
the server does not publish makes the check's rules not applicable, naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...check_context import BaseContext
from ...observation import Observation
from ..arguments import NotPublished, published_call, published_name
from ..facts import MemoryId

#: the names under which a schema requires a session ("id" is a memory's on most tools)
REQUIRED_SESSION = frozenset({"session_id", "sessionId", "session"})


@dataclass(frozen=True)
class Finder:
    """How to find a memory again by search: a token of the kit's it holds, and its project
    (``None``: the server's own)."""

    query: str
    project: str | None


class MemContext(BaseContext):
    _listing: dict[str, Any] | None = None
    #: how many fresh projects the check has made (``steps.fresh_project``)
    projects_made = 0

    def __init__(self, **shared: Any) -> None:
        super().__init__(**shared)
        #: the tokens ``unique`` gave, and how to find each memory the check saw again
        self.tokens: list[str] = []
        self.finders: dict[MemoryId, Finder] = {}
        #: the session the server started for each of the check's projects
        self.sessions: dict[str, str] = {}

    def unique(self, label: str) -> str:
        token = super().unique(label)
        self.tokens.append(token)
        return token

    def remember(
        self,
        memory_id: MemoryId,
        project: str | None,
        *texts: Any,
        moved: bool = False,
        otherwise: str | None = None,
    ) -> None:
        """Note how memory ``memory_id`` of ``project`` is found again: by the first token of
        the check's that one of ``texts`` (its title, content, a query) holds, else by
        ``otherwise`` (the query that found it). A memory known already keeps its finder,
        unless its text ``moved`` (an update: its project stays)."""
        known = self.finders.get(memory_id)
        if known is not None and not moved:
            return
        shown = [text for text in texts if isinstance(text, str)]
        token = next((t for t in self.tokens if any(t in text for text in shown)), otherwise)
        if token is not None:
            self.finders[memory_id] = Finder(token, known.project if known else project)

    async def call(
        self, tool: str, arguments: dict[str, Any], *, as_given: bool = False
    ) -> Observation:
        """``tool`` called with ``arguments`` under the names its schema publishes (``as_given``:
        exactly as given, for a check of what a server does with arguments it did not ask)."""
        if not as_given:
            if not await self.lists(tool):
                self.undecided(f"the check calls {tool}, which the server does not list")
            arguments = await self._with_required_session(tool, arguments)
            try:
                arguments = published_call(tool, await self.input_schema(tool), arguments)
            except NotPublished as missing:
                self.undecided(str(missing))
        return await self.session.call(tool, arguments, None, None)

    async def _with_required_session(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """``arguments``, with the session the server started for the project they name (the
        check's one project's, where they name none) where the schema requires a session the
        call does not give (a server that takes no save outside a session it names)."""
        project = arguments.get("project")
        only = next(iter(self.sessions.values())) if len(self.sessions) == 1 else None
        session = self.sessions.get(project) if isinstance(project, str) else only
        if session is None or "session_id" in arguments:
            return arguments
        if not REQUIRED_SESSION & await self.required(tool):
            return arguments
        return arguments | {"session_id": session}

    def declared(self, tool: str) -> dict[str, str]:
        """Where the descriptor's ``[answers.<tool>]`` table says ``tool``'s answers hold their
        facts' fields (field -> JSON Pointer or ``re:`` pattern)."""
        return {field: source for named, field, source in self.policy.answers if named == tool}

    async def takes(self, tool: str, arguments: dict[str, Any]) -> bool:
        """Whether ``tool``'s schema publishes every argument of ``arguments`` a call cannot
        do without (``arguments.published_call``): a case built of others is no case here."""
        try:
            published_call(tool, await self.input_schema(tool), arguments)
        except NotPublished:
            return False
        return True

    async def publishes(self, tool: str, argument: str) -> bool:
        """Whether ``tool``'s schema publishes ``argument`` under its name or a usual other."""
        return published_name(tool, argument, await self.properties(tool)) is not None

    async def listed(self) -> dict[str, Any]:
        """The server's tools/list, by name (the SDK's ``Tool`` objects)."""
        _, tools = await self.session.list_tools()
        self._listing = {tool.name: tool for tool in tools}
        return self._listing

    async def lists(self, tool: str) -> bool:
        """Whether the server lists ``tool`` (in the check's last tools/list)."""
        return tool in await self._last_listing()

    async def _last_listing(self) -> dict[str, Any]:
        """The check's last tools/list (made once when it has none)."""
        return self._listing if self._listing is not None else await self.listed()

    async def input_schema(self, tool: str) -> dict[str, Any]:
        """``tool``'s published input schema (empty for a tool not listed), from the check's
        last tools/list (made once when it has none)."""
        listed = (await self._last_listing()).get(tool)
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
        """``arguments`` without those ``tool``'s schema does not publish under any of their
        names (but for ``always``): what a check sends where servers differ in the arguments a
        tool takes."""
        listed = await self.properties(tool)
        return {
            name: value
            for name, value in arguments.items()
            if name in always or published_name(tool, name, listed) is not None
        }
