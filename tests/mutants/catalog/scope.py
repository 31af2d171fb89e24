"""Servers that break a scope rule (SCOPE): another scope's records found, or their existence
leaked, memory split within a scope, and what one scope writes showing in another's answers."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from engram_conformance.spec.engram_memory.tool_names import ADMIT, CAPTURE, GET, SEARCH, WITHDRAW

from .. import search_answers
from ..answers import refusal, value
from ..base import ContextProxy, ServiceProxy, in_scope
from ..caught import Caught


class ForeignGetUnauthorized(ServiceProxy):
    """get of another scope's record answers UNAUTHORIZED, not NOT_FOUND: it leaks existence."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.owners: dict[str, Any] = {}

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        record = value(envelope).get("outcome", {}).get("record_id")
        if tool == ADMIT and record:
            self.owners[record] = context.scope
        if tool == GET and self.owners.get(arguments["record_id"], context.scope) != context.scope:
            return refusal("UNAUTHORIZED", context)
        return envelope


class ForeignWithdrawSucceeds(ContextProxy):
    """withdraw finds a candidate by its id alone: another scope's candidate is withdrawn."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.owners: dict[str, Any] = {}

    def rebind(self, tool: str, arguments: Any, context: Any) -> Any:
        if tool == WITHDRAW and arguments["candidate_id"] in self.owners:
            return in_scope(context, self.owners[arguments["candidate_id"]])
        return context

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        if tool == CAPTURE and envelope["ok"]:
            self.owners[value(envelope)["candidate_id"]] = context.scope
        return envelope


class SearchIgnoresWorkspace(ContextProxy):
    """search filters by tenant only: it answers from the tenant's first workspace."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.first_workspace: dict[str, str] = {}

    def rebind(self, tool: str, arguments: Any, context: Any) -> Any:
        workspace = self.first_workspace.setdefault(context.tenant, context.workspace)
        return replace(context, workspace=workspace) if tool == SEARCH else context


class SearchFallsBack(ServiceProxy):
    """A search that matches nothing in its scope answers the matches of the scope that
    captured last (a fallback meant to be helpful)."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.last_writer: Any = None

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        if tool == CAPTURE:
            self.last_writer = context.scope
        if tool == SEARCH and value(envelope).get("records") == [] and self.last_writer:
            return self.inner.call(tool, arguments, in_scope(context, self.last_writer))
        return envelope


class MemoryPerPrincipal(ContextProxy):
    """Memory is partitioned by principal within a scope: members do not share it."""

    def rebind(self, tool: str, arguments: Any, context: Any) -> Any:
        return replace(context, workspace=f"{context.workspace}/{context.principal}")


class CorpusWideStatistics(ServiceProxy):
    """Scores weighted by a statistic of the whole corpus, every scope's records counted (as
    BM25 over one index shared by all scopes): a scope's scores move when another scope writes."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.corpus = 0

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        if tool == ADMIT and value(envelope).get("outcome", {}).get("status") == "accepted":
            self.corpus += 1
        if tool != SEARCH:
            return envelope
        weight = math.log(2 + self.corpus)
        return search_answers.each_packet(
            tool, envelope, lambda packet: {**packet, "score": packet["score"] * weight}
        )


class GlobalCursors(ServiceProxy):
    """Capture and admission cursors from one counter of every scope's mutations: a scope's
    cursors show how much other scopes wrote. A replay keeps its first cursor."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.issued: dict[tuple[Any, str], str] = {}

    def _global(self, context: Any, cursor: str) -> str:
        return self.issued.setdefault((context.scope, cursor), str(len(self.issued) + 1))

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        answer = value(envelope)
        if tool == CAPTURE and "cursor" in answer:
            answer["cursor"] = self._global(context, answer["cursor"])
        if tool == ADMIT and "cursor" in answer.get("outcome", {}):
            answer["outcome"]["cursor"] = self._global(context, answer["outcome"]["cursor"])
        return envelope


#: Test id -> the mutant, and what it breaks: run with the IDEM rules, which keys per scope.
MUTANTS: dict[str, tuple[type, Caught]] = {
    "foreign-get-unauthorized": (ForeignGetUnauthorized, Caught(("SCOPE-003", "SCOPE-004"))),
    "foreign-withdraw-succeeds": (
        ForeignWithdrawSucceeds,
        Caught(("SCOPE-003", "SCOPE-005", "SCOPE-006")),
    ),
    "search-ignores-workspace": (SearchIgnoresWorkspace, Caught(("SCOPE-001", "SCOPE-002"))),
    "search-falls-back": (SearchFallsBack, Caught(("SCOPE-001", "SCOPE-002", "SCOPE-007"))),
    "memory-per-principal": (MemoryPerPrincipal, Caught(("SCOPE-008",))),
    "corpus-wide-statistics": (CorpusWideStatistics, Caught(("SCOPE-009",))),
    "global-cursors": (GlobalCursors, Caught(("SCOPE-009",))),
}
