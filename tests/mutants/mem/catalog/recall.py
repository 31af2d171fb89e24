"""mem servers whose context goes wrong (CTX): no memories listed, an error for a project with
nothing yet, a byte budget ignored, counted in characters, cut inside a character or too
generous by default.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.reference_impl.mem.service import MemService

from ...caught import Caught
from ..seams import (
    CallMutant,
    Ignores,
    PerCall,
    ServiceMutant,
    answering,
    mem_caught,
    text_of,
)
from .sessions import EmptyContextIsAnError

CONTEXT = "mem_context"
#: the most bytes the reference's context takes
MOST_BYTES = 64 * 1024


class ContextListsNoMemories(ServiceMutant):
    """mem_context lists no recent observations (only sessions, prompts and the summary)."""

    def patch(self, service: MemService) -> None:
        service.store.recent = lambda *args, **kwargs: []  # type: ignore[method-assign]


class IgnoresMaxBytes(Ignores):
    """mem_context ignores max_bytes: every context takes the default budget."""

    tools, ignored = (CONTEXT,), "max_bytes"


class DefaultBudgetIs64KiB(CallMutant):
    """mem_context without a positive max_bytes takes 64 KiB, not 16 KiB."""

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        budget = arguments.get("max_bytes")
        if tool == CONTEXT and (budget is None or budget <= 0):
            return arguments | {"max_bytes": MOST_BYTES}
        return arguments


class RecutsContext(CallMutant):
    """The reference's context with the most bytes, cut by ``cut`` to the max_bytes asked."""

    #: the max_bytes of the context call under way (``None``: left to the reference)
    asked: PerCall[int | None] = PerCall(None)

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        budget = arguments.get("max_bytes")
        if tool != CONTEXT or budget is None or not 0 < budget < MOST_BYTES:
            self.asked = None
            return arguments
        self.asked = budget
        return arguments | {"max_bytes": MOST_BYTES}

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        if tool != CONTEXT or self.asked is None or result.is_error:
            return result
        return answering(result, self.cut(text_of(result), self.asked))

    def cut(self, text: str, budget: int) -> str:
        raise NotImplementedError


class CountsCharacters(RecutsContext):
    """mem_context's max_bytes is counted in characters, not UTF-8 bytes."""

    def cut(self, text: str, budget: int) -> str:
        return text[:budget]


class SplitsCharacters(RecutsContext):
    """mem_context cuts its bytes at max_bytes, inside a character if one is there (decoded
    with U+FFFD)."""

    def cut(self, text: str, budget: int) -> str:
        return text.encode("utf-8")[:budget].decode("utf-8", errors="replace")


#: each mutant and what it breaks
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (ContextListsNoMemories, mem_caught("CTX-001")),
    (EmptyContextIsAnError, mem_caught("CTX-002")),
    (IgnoresMaxBytes, mem_caught("CTX-003")),
    (DefaultBudgetIs64KiB, mem_caught("CTX-003")),
    (CountsCharacters, mem_caught("CTX-003")),
    (SplitsCharacters, mem_caught("CTX-003")),
]
