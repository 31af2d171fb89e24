"""Each scope check fires on a server that breaks its rule, and no other rule reads broken."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.spec.engram_memory.tool_names import ADMIT, CAPTURE, GET, SEARCH, WITHDRAW

from ..conformance.inprocess import ServiceProxy, assert_caught, family_verdicts, run_against
from . import search_answers
from .proxies import (
    ContextProxy,
    idem_and_scope_verdicts,
    in_scope,
    refused,
    value,
)


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
            return refused(self, "UNAUTHORIZED", context)
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


MUTANTS = {
    "foreign-get-unauthorized": (ForeignGetUnauthorized, {"SCOPE-003", "SCOPE-004"}),
    "foreign-withdraw-succeeds": (
        ForeignWithdrawSucceeds,
        {"SCOPE-003", "SCOPE-005", "SCOPE-006"},
    ),
    "search-ignores-workspace": (SearchIgnoresWorkspace, {"SCOPE-001", "SCOPE-002"}),
    "search-falls-back": (SearchFallsBack, {"SCOPE-001", "SCOPE-002", "SCOPE-007"}),
    "memory-per-principal": (MemoryPerPrincipal, {"SCOPE-008"}),
    "corpus-wide-statistics": (CorpusWideStatistics, {"SCOPE-009"}),
    "global-cursors": (GlobalCursors, {"SCOPE-009"}),
}


@pytest.mark.parametrize(("mutant", "rules"), MUTANTS.values(), ids=MUTANTS.keys())
def test_scope_mutant_is_caught(
    tmp_path: Path, mutant: type[ServiceProxy], rules: set[str]
) -> None:
    result = run_against(tmp_path, service_mutant=mutant, only=("IDEM", "SCOPE"))
    assert_caught(idem_and_scope_verdicts(result), broken=tuple(rules))


def test_reference_passes_the_scope_rules(tmp_path: Path) -> None:
    assert_caught(family_verdicts(run_against(tmp_path, only=("SCOPE",)), "SCOPE"), broken=())
