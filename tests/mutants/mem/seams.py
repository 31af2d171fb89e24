"""The seams of the mem behaviour mutants, and what a catalogue says each one breaks.

A mutant is the mem reference's handlers with one thing changed: its calls on their way in
(``CallMutant.sent``: the arguments the reference is given) or out (``answered``: the result
the client gets); its service, patched on that one instance (``ServiceMutant.patch``: a store
or memories method replaced); or every call served by ``ServingMutant.serve`` (in the service's
worker thread, before the reference or instead of it). Each changes one service, so nothing
leaks into the next run. The seams more than one catalogue narrows are here too: an argument
rewritten (``Rewrites``) or not read (``Ignores``), a save rekeyed (``KeysDrafts``), the
context's listing replaced (``ListsRecent``). ``mem_caught`` is the ``Caught`` of a mem
catalogue's entry. What a mutant learns of a call on its way in and reads later in that call
(in ``answered``, or in the service's worker thread) is a ``PerCall`` attribute.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import replace
from typing import Any, ClassVar, Generic, TypeVar

import anyio
import mcp_types as types
from engram_conformance.reference_impl.mem.memories import Draft, Saved
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.reference_impl.mem.service import Answer, MemService
from engram_conformance.reference_impl.mem.store import Observation, Store

from ..caught import Caught

T = TypeVar("T")

#: the reference's reach of mem_context's observations: the project's, and every personal one
PROJECT_AND_PERSONAL = "project = ?1 OR scope = 'personal'"


def mem_caught(
    *rules: str, undecided: tuple[str, ...] = (), about: Mapping[str, str] | None = None
) -> Caught:
    """What a mutant of the mem reference breaks (and leaves ``undecided``; each failure of a
    rule of ``about`` expecting something that contains its text)."""
    return Caught(rules, undecided, about=about or {}, contract="mem")


class PerCall(Generic[T]):
    """An attribute of a mutant that each tool call sets for itself and reads back later in the
    same call, kept in a context variable: the call's task has its own value, and so has the
    worker thread its service runs in (anyio copies the context into it). A plain attribute is
    overwritten by another call in flight beside it (checks side by side, issue 25), and the
    mutant's bug would then follow the order of the calls, which the bug it stands for does not.
    """

    def __init__(self, default: T) -> None:
        self.default = default

    def __set_name__(self, owner: type, name: str) -> None:
        self.value: ContextVar[T] = ContextVar(f"{owner.__name__}.{name}")

    def __get__(self, mutant: object, owner: type | None = None) -> T:
        return self.value.get(self.default)

    def __set__(self, mutant: object, value: T) -> None:
        self.value.set(value)


class CallMutant(Handlers):
    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        arguments = self.sent(params.name, dict(params.arguments or {}))
        changed = params.model_copy(update={"arguments": arguments})
        result = await super().call_tool(ctx, changed)
        return self.answered(params.name, arguments, result)

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The arguments the reference gets for a call of ``tool`` (by default as sent)."""
        return arguments

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        """The result the client gets (by default the reference's)."""
        return result


class SlowerThanLinear(CallMutant):
    """The reference, with calls of ``tool`` costing the square of their size (``size``, in the
    unit of ``worst``): at the ``worst`` size the harness sends to time, a wait past half of the
    default call time-out (10 s); ordinary calls cost next to nothing more."""

    tool: ClassVar[str]
    worst: ClassVar[int]
    #: the wait at the worst size: more than half of the default call time-out
    WORST_WAIT_S: ClassVar[float] = 5.5

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        if params.name == self.tool:
            share = self.size(dict(params.arguments or {})) / self.worst
            await anyio.sleep(self.WORST_WAIT_S * min(1.0, share) ** 2)
        return await super().call_tool(ctx, params)

    def size(self, arguments: dict[str, Any]) -> int:
        """How large the call is, in the unit of ``worst``."""
        raise NotImplementedError


class Rewrites(CallMutant):
    """The arguments of each call of ``tool`` changed by ``rewritten`` before the reference
    sees them."""

    tool: ClassVar[str]

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.rewritten(arguments) if tool == self.tool else arguments

    def rewritten(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return arguments


class Ignores(CallMutant):
    """``tools`` do not read their argument ``ignored`` (a wrong name in a handler): the
    reference never gets it."""

    tools: ClassVar[tuple[str, ...]]
    ignored: ClassVar[str]

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if tool in self.tools:
            return {name: value for name, value in arguments.items() if name != self.ignored}
        return arguments


class ServiceMutant(Handlers):
    """The reference's handlers over a service that ``patch`` changed."""

    def __init__(self, service: MemService) -> None:
        super().__init__(service)
        self.patch(service)

    def patch(self, service: MemService) -> None:
        """Replace what the mutant gets wrong on ``service`` (on the instance)."""


class ServingMutant(ServiceMutant):
    """The reference's handlers, every call served by ``serve`` (by default the reference's,
    ``reference``)."""

    def patch(self, service: MemService) -> None:
        self.reference = service.call
        service.call = self.serve  # type: ignore[method-assign]

    def serve(self, tool: str, sent: Any) -> Answer:
        return self.reference(tool, sent)

    @property
    def store(self) -> Store:
        return self.service.store


class KeysDrafts(ServiceMutant):
    """Each save stored under the topic key ``keyed`` gives its draft (the draft's own by
    default)."""

    def patch(self, service: MemService) -> None:
        save = service.memories.save

        def rekeyed(draft: Draft) -> Saved:
            return save(replace(draft, topic_key=self.keyed(draft)))

        service.memories.save = rekeyed  # type: ignore[method-assign]

    def keyed(self, draft: Draft) -> str | None:
        return draft.topic_key


class ListsRecent(ServiceMutant):
    """mem_context's observations are the rows that meet ``where`` (SQL over ``?1`` the
    project and ``?2`` the scope filter, or ``NULL``), newest first."""

    where: ClassVar[str]

    def patch(self, service: MemService) -> None:
        connection = service.store.connection
        sql = (
            f"SELECT * FROM observations WHERE ({self.where}) AND (?2 IS NULL OR scope = ?2) "
            "AND id IS NOT ?3 ORDER BY updated_at DESC, id DESC LIMIT ?4"
        )

        def recent(
            project: str, scope: str | None, limit: int, *, besides: int | None = None
        ) -> list[Observation]:
            rows = connection.execute(sql, (project, scope, besides, limit))
            return [Observation(*row) for row in rows]

        service.store.recent = recent  # type: ignore[method-assign]


def text_of(result: types.CallToolResult) -> str:
    """The text of a reference answer (one text block)."""
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def answering(result: types.CallToolResult, text: str, is_error: bool | None = None) -> Any:
    """``result`` with ``text`` as its text (and ``is_error`` when given)."""
    flag = result.is_error if is_error is None else is_error
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=flag)
