"""mem servers whose mem_search goes wrong (SRCH) the way real ones do: a filter or an argument
not read, the type left out of the index, limits not applied, a search without hits taken for a
failure, query text handed to FTS5 as its syntax, any word enough by default.

Most rewrite the arguments the reference gets (``CallMutant.sent``) or its answer; the index and
the query sanitiser are changed on the mutant's own store (its triggers, its ``search``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from engram_conformance.reference_impl.mem.read_tools import MATCH_MODES, fts_query
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.reference_impl.mem.service import MemService
from engram_conformance.reference_impl.wire import sent_arguments

from ...caught import Caught
from ..seams import (
    CallMutant,
    Ignores,
    PerCall,
    Rewrites,
    ServiceMutant,
    SlowerThanLinear,
    answering,
    mem_caught,
    text_of,
)

SEARCH = "mem_search"


class SearchArguments(Rewrites):
    """The reference, with ``rewritten`` changing the arguments of each mem_search."""

    tool = SEARCH


class TypeFilterIgnored(Ignores):
    """mem_search ignores its type filter: every type that matches is returned."""

    tools, ignored = (SEARCH,), "type"


class LimitIgnored(Ignores):
    """mem_search ignores limit: always the default 10."""

    tools, ignored = (SEARCH,), "limit"


class AllProjectsIgnored(Ignores):
    """mem_search ignores all_projects: only the project argument's memories."""

    tools, ignored = (SEARCH,), "all_projects"


class DefaultLimitTwenty(SearchArguments):
    """mem_search without a limit returns up to 20 (the maximum taken for the default)."""

    def rewritten(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"limit": 20} | arguments


class ProjectFilterIgnored(SearchArguments):
    """mem_search with a project searches every project (the filter is not applied)."""

    def rewritten(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return arguments | {"all_projects": True} if "project" in arguments else arguments


class DefaultMatchAny(SearchArguments):
    """mem_search without match_mode takes any word as enough (OR by default)."""

    def rewritten(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"match_mode": "any"} | arguments


class MatchModeAnyIgnored(SearchArguments):
    """mem_search ignores match_mode any: every word is always required."""

    def rewritten(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in arguments.items() if (k, v) != ("match_mode", "any")}


class UnknownMatchModeAccepted(SearchArguments):
    """mem_search takes a match_mode other than all and any as all, not as an error."""

    def rewritten(self, arguments: dict[str, Any]) -> dict[str, Any]:
        if arguments.get("match_mode") in MATCH_MODES:
            return arguments
        return {k: v for k, v in arguments.items() if k != "match_mode"}


class NoHitIsAnError(CallMutant):
    """A search without hits answers isError ("No memories found" as a failure)."""

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        if tool == SEARCH and text_of(result).startswith("No memories found"):
            return answering(result, text_of(result), is_error=True)
        return result


class InnerQuoteBreaksSearch(CallMutant):
    """A word with a double quote inside breaks the FTS5 query (upstream v1.7.0 stripped only
    the quotes around each word): ``Search error: fts5: syntax error``."""

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        words = str(arguments.get("query", "")).split()
        if tool == SEARCH and any('"' in word.strip('"') for word in words):
            text = "Search error: fts5: syntax error near '\"'. Try simpler keywords."
            return answering(result, text, is_error=True)
        return result


class RemembersArguments(ServiceMutant):
    """The reference over a patched service, each tool call's arguments kept
    (``self.arguments``, the call's own) for the mutated store to read."""

    arguments: PerCall[dict[str, Any]] = PerCall({})

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        self.arguments = dict(params.arguments or {})
        return await super().call_tool(ctx, params)


#: an FTS5 operator word, or a word holding FTS5 query syntax
_FTS_SYNTAX = re.compile(r"^(AND|OR|NOT|NEAR)$|[*^:()+\-]")


class OperatorsKept(RemembersArguments):
    """The query sanitiser quotes plain words only: operator words (AND, OR, NOT, NEAR) and
    words with FTS5 syntax (``*``, ``^``, ``:``, parentheses, ``+``, ``-``) reach FTS5 as they
    are, as operators or syntax errors."""

    def patch(self, service: MemService) -> None:
        store = service.store
        searched = store.search

        def search(match: str, *rest: Any, **named: Any) -> Any:
            joiner = MATCH_MODES.get(str(self.arguments.get("match_mode") or "all"), " ")
            terms = str(self.arguments.get("query", "")).split()
            kept = [term if _FTS_SYNTAX.search(term) else fts_query(term) for term in terms]
            return searched(joiner.join(kept) or match, *rest, **named)

        store.search = search  # type: ignore[method-assign]


class LimitNotClamped(RemembersArguments):
    """mem_search takes a limit above 20 as given (no maximum)."""

    def patch(self, service: MemService) -> None:
        store = service.store
        searched = store.search

        def search(
            match: str, project: Any, memory_type: Any, scope: Any, limit: int, **named: Any
        ) -> Any:
            asked = self.arguments.get("limit")
            unclamped = int(asked) if isinstance(asked, int | float) and asked > limit else limit
            return searched(match, project, memory_type, scope, unclamped, **named)

        store.search = search  # type: ignore[method-assign]


#: the triggers that keep the index in step, with the type left out of what they index
_UNTYPED_INDEX = """
DROP TRIGGER observations_indexed;
DROP TRIGGER observations_unindexed;
DROP TRIGGER observations_reindexed;
CREATE TRIGGER observations_indexed AFTER INSERT ON observations BEGIN
    INSERT INTO observations_fts (rowid, title, content, type, topic_key)
    VALUES (new.id, new.title, new.content, '', new.topic_key);
END;
CREATE TRIGGER observations_unindexed AFTER DELETE ON observations BEGIN
    INSERT INTO observations_fts (observations_fts, rowid, title, content, type, topic_key)
    VALUES ('delete', old.id, old.title, old.content, '', old.topic_key);
END;
CREATE TRIGGER observations_reindexed AFTER UPDATE ON observations BEGIN
    INSERT INTO observations_fts (observations_fts, rowid, title, content, type, topic_key)
    VALUES ('delete', old.id, old.title, old.content, '', old.topic_key);
    INSERT INTO observations_fts (rowid, title, content, type, topic_key)
    VALUES (new.id, new.title, new.content, '', new.topic_key);
END;
"""


class TypeNotIndexed(ServiceMutant):
    """The full-text index holds title, content and topic key but not the type."""

    def patch(self, service: MemService) -> None:
        service.store.connection.executescript(_UNTYPED_INDEX)


#: each mutant and what it breaks
class QuadraticPhrase(SlowerThanLinear):
    """mem_search compares a phrase word by word at every position: its cost grows with the
    square of the phrase's length, seconds for 500 words."""

    tool, worst = "mem_search", 500

    def size(self, arguments: dict[str, Any]) -> int:
        return len(str(arguments.get("query", "")).split())


MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (TypeFilterIgnored, mem_caught("SRCH-001")),
    (TypeNotIndexed, mem_caught("SRCH-002")),
    (LimitIgnored, mem_caught("SRCH-003")),
    (DefaultLimitTwenty, mem_caught("SRCH-003")),
    (LimitNotClamped, mem_caught("SRCH-003")),
    (ProjectFilterIgnored, mem_caught("SRCH-004")),
    # the hostile queries of SRCH-006 and SRCH-007 find nothing, so they fail too
    (NoHitIsAnError, mem_caught("SRCH-005", "SRCH-006", "SRCH-007")),
    (InnerQuoteBreaksSearch, mem_caught("SRCH-006")),
    (OperatorsKept, mem_caught("SRCH-007")),
    (DefaultMatchAny, mem_caught("SRCH-008")),
    (MatchModeAnyIgnored, mem_caught("SRCH-009")),
    (UnknownMatchModeAccepted, mem_caught("SRCH-009")),
    (AllProjectsIgnored, mem_caught("SRCH-010")),
    (QuadraticPhrase, mem_caught("SRCH-011")),
]


#: a query of more words than this keeps the busy mutant's every tool call waiting
BUSY_WORDS, BUSY_S = 100, 6.0


def busy_on_long_queries() -> None:
    """A search of a long phrase holds the server's store for seconds, even once the client
    cancelled it: every tool call waits behind it, while tools/list is still answered at once
    (a server that looks alive)."""
    original = Handlers.call_tool
    held: list[anyio.Lock] = []

    async def call_tool(self: Handlers, ctx: Any, params: types.CallToolRequestParams) -> Any:
        if not held:
            held.append(anyio.Lock())
        async with held[0]:
            sent = sent_arguments(ctx, params)  # as the client sent them, whatever the transport
            query = str(sent.get("query", "")) if isinstance(sent, dict) else ""
            if params.name == "mem_search" and len(query.split()) > BUSY_WORDS:
                with anyio.CancelScope(shield=True):  # a cancelled request runs on all the same
                    await anyio.sleep(BUSY_S)
            return await original(self, ctx, params)

    Handlers.call_tool = call_tool  # type: ignore[method-assign]


#: mutants over stdio (``stdio_server.py``): the busy one is judged with a call time-out shorter
#: than it is busy, and must leave every other rule to pass
STDIO: dict[str, tuple[Callable[[], None], Caught]] = {
    "busy-on-long-queries": (busy_on_long_queries, mem_caught("SRCH-011")),
}
