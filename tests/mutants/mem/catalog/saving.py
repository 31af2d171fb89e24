"""mem servers that store wrong (SAVE), the way real servers drift: a column left out of the
search index, contents whitespace-normalised, types rewritten or refused, saves merged without
a topic key, tool calls captured as memories, blank or long contents mishandled, text cut
inside a character.

Each is the mem reference with its calls rewritten (``CallMutant``) or its service patched
(``ServiceMutant``); ``Caught`` says which SAVE rules it breaks, every other one keeping its
verdict. SAVE-008 (a restart) is not run in process.
"""

from __future__ import annotations

from typing import Any, ClassVar

import mcp_types as types
from engram_conformance.reference_impl.mem.memories import Draft
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.reference_impl.mem.service import MemService
from engram_conformance.reference_impl.mem.store import Observation

from ...caught import Caught
from ..seams import (
    CallMutant,
    KeysDrafts,
    Rewrites,
    ServiceMutant,
    answering,
    mem_caught,
    text_of,
)

SAVE, SEARCH = "mem_save", "mem_search"
#: the reference's content cap, in characters
CAP = 50_000


class SearchesOneColumn(ServiceMutant):
    """The search matches one column of the index only (``column``)."""

    column: ClassVar[str]

    def patch(self, service: MemService) -> None:
        search = service.store.search

        def one_column(match: str, *args: Any, **kwargs: Any) -> list[Observation]:
            return search(f"{self.column} : ({match})", *args, **kwargs)

        service.store.search = one_column  # type: ignore[method-assign]


class IndexesNoTitle(SearchesOneColumn):
    """Titles are not indexed: mem_search finds a memory by its content only."""

    column = "content"


class IndexesNoContent(SearchesOneColumn):
    """Contents are not indexed: mem_search finds a memory by its title only."""

    column = "title"


class SavesRewritten(Rewrites):
    """mem_save's arguments changed by ``rewritten`` before the reference sees them."""

    tool = SAVE


class FlattensContent(SavesRewritten):
    """A content's line breaks are stored as spaces (whitespace normalised on save)."""

    def rewritten(self, arguments: dict[str, Any]) -> dict[str, Any]:
        content = arguments.get("content")
        if not isinstance(content, str):
            return arguments
        return arguments | {"content": " ".join(content.splitlines())}


class TypesBecomeFamilies(SavesRewritten):
    """Type bugfix is stored as bug, the name of its topic family."""

    def rewritten(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return arguments | ({"type": "bug"} if arguments.get("type") == "bugfix" else {})


class ForgetsConfigType(SavesRewritten):
    """Type config is not in the server's vocabulary and is stored as manual."""

    def rewritten(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return arguments | ({"type": "manual"} if arguments.get("type") == "config" else {})


class TypeDefaultsToGeneral(SavesRewritten):
    """A save without type is stored with type general."""

    def rewritten(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"type": "general"} | arguments


class StoresBlankContent(SavesRewritten):
    """A blank content is stored as a placeholder instead of refused."""

    def rewritten(self, arguments: dict[str, Any]) -> dict[str, Any]:
        content = arguments.get("content")
        blank = content is None or (isinstance(content, str) and not content.strip())
        return arguments | ({"content": "(no content)"} if blank else {})


class CutsWithoutMarker(SavesRewritten):
    """A content above the cap is cut to it silently, without the truncation marker."""

    def rewritten(self, arguments: dict[str, Any]) -> dict[str, Any]:
        content = arguments.get("content")
        return arguments | ({"content": content[:CAP]} if isinstance(content, str) else {})


class SaveAnswerMutant(CallMutant):
    """mem_save's answer changed (``refusal`` or ``changed``)."""

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        if tool != SAVE:
            return result
        refused = self.refusal(arguments)
        if refused is not None:
            return answering(result, refused, is_error=True)
        return answering(result, self.changed(text_of(result)))

    def refusal(self, arguments: dict[str, Any]) -> str | None:
        """The error a save is refused with (the reference's answer is dropped), if refused."""
        return None

    def changed(self, text: str) -> str:
        return text


class RefusesNonAscii(SaveAnswerMutant):
    """mem_save refuses a content that is not ASCII (accents, as in the seed's examples)."""

    def refusal(self, arguments: dict[str, Any]) -> str | None:
        content = arguments.get("content")
        ascii_only = not isinstance(content, str) or content.isascii()
        return None if ascii_only else "content must be ASCII"


class RefusesLearningType(SaveAnswerMutant):
    """mem_save refuses type learning, a type outside its own vocabulary."""

    def refusal(self, arguments: dict[str, Any]) -> str | None:
        return "unknown type: learning" if arguments.get("type") == "learning" else None


class RefusesLongContent(SaveAnswerMutant):
    """mem_save refuses a content above the cap instead of cutting it."""

    def refusal(self, arguments: dict[str, Any]) -> str | None:
        content = arguments.get("content")
        return "content is too long" if isinstance(content, str) and len(content) > CAP else None


def cut_in_bytes(text: str, most: int) -> str:
    """``text`` cut to ``most`` UTF-8 bytes as Go's ``s[:n]`` cuts it, the broken sequence left
    shown as Go's JSON writer shows it (U+FFFD)."""
    return text.encode("utf-8")[:most].decode("utf-8", errors="replace")


class CapsInBytes(Rewrites):
    """mem_save cuts a content above 2,000 UTF-8 bytes there (upstream v1.7.0's cap, in Go),
    inside a character where the cut falls."""

    tool = SAVE

    def rewritten(self, arguments: dict[str, Any]) -> dict[str, Any]:
        content = arguments.get("content")
        if isinstance(content, str) and len(content.encode("utf-8")) > 2_000:
            return arguments | {"content": cut_in_bytes(content, 2_000) + "... [truncated]"}
        return arguments


class PreviewsCutInBytes(CallMutant):
    """mem_search cuts each line of its answer to 300 UTF-8 bytes, inside a character where the
    cut falls."""

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        if tool != SEARCH or result.is_error:
            return result
        lines = [
            cut_in_bytes(line, 300) + "..." if len(line.encode("utf-8")) > 300 else line
            for line in text_of(result).split("\n")
        ]
        return answering(result, "\n".join(lines))


class SuggestsNothing(SaveAnswerMutant):
    """mem_save answers no suggested topic key."""

    def changed(self, text: str) -> str:
        lines = text.split("\n")
        return "\n".join(line for line in lines if not line.startswith("Suggested topic_key:"))


class KeysByType(KeysDrafts):
    """A save without topic_key is keyed by its type, so the project's next save of that type
    revises it instead of inserting."""

    def keyed(self, draft: Draft) -> str | None:
        return draft.topic_key or draft.type


class CapturesSearches(CallMutant):
    """Every mem_search is also saved as a memory of the query (calls captured, not chosen)."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        result = await super().call_tool(ctx, params)
        query = (params.arguments or {}).get("query")
        if params.name == SEARCH and isinstance(query, str) and query.strip():
            captured = {"title": f"Searched {query}", "content": f"mem_search {query}"}
            await self.calls.run(self.service.call, SAVE, captured | {"type": "search"})
        return result


#: each mutant and what it breaks
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (IndexesNoTitle, mem_caught("SAVE-001")),
    (IndexesNoContent, mem_caught("SAVE-002")),
    (FlattensContent, mem_caught("SAVE-003")),
    (RefusesNonAscii, mem_caught("SAVE-004")),
    (TypesBecomeFamilies, mem_caught("SAVE-004", "SAVE-005")),
    (ForgetsConfigType, mem_caught("SAVE-005")),
    (RefusesLearningType, mem_caught("SAVE-005")),
    (KeysByType, mem_caught("SAVE-006")),
    (CapturesSearches, mem_caught("SAVE-007")),
    (TypeDefaultsToGeneral, mem_caught("SAVE-009")),
    (StoresBlankContent, mem_caught("SAVE-010")),
    (SuggestsNothing, mem_caught("SAVE-011")),
    (RefusesLongContent, mem_caught("SAVE-012")),
    (CutsWithoutMarker, mem_caught("SAVE-012")),
    (CapsInBytes, mem_caught("SAVE-014")),
    (PreviewsCutInBytes, mem_caught("SAVE-014")),
]
