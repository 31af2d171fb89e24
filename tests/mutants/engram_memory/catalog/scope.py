"""Servers that break a scope rule (SCOPE): another scope's records found, or their existence
leaked, memory split within a scope, and what one scope writes showing in another's answers."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, ClassVar

from engram_conformance.spec.engram_memory.tool_names import (
    ADMIT,
    CAPTURE,
    FORGET,
    GET,
    SEARCH,
    WITHDRAW,
)

from ...caught import Caught
from .. import search_answers
from ..answers import refusal, value
from ..base import ContextProxy, ServiceProxy, in_scope


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


class FindsByIdAlone(ContextProxy):
    """Base: ``tool`` finds its target by the id in ``target`` alone: another scope's candidate
    or record is acted on in its owner's scope."""

    tool: ClassVar[str]
    target: ClassVar[str]

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.owners: dict[str, Any] = {}

    def rebind(self, tool: str, arguments: Any, context: Any) -> Any:
        if tool == self.tool and arguments[self.target] in self.owners:
            return in_scope(context, self.owners[arguments[self.target]])
        return context

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        if tool == CAPTURE and envelope["ok"]:
            self.owners[value(envelope)["candidate_id"]] = context.scope
        record = value(envelope).get("outcome", {}).get("record_id")
        if tool == ADMIT and record:
            self.owners[record] = self.owners.get(arguments["candidate_id"], context.scope)
        return envelope


class ForeignWithdrawSucceeds(FindsByIdAlone):
    """withdraw finds a candidate by its id alone: another scope's candidate is withdrawn."""

    tool, target = WITHDRAW, "candidate_id"


class ForeignAdmissionDecides(FindsByIdAlone):
    """request_admission finds a candidate by its id alone: another scope's candidate is
    admitted."""

    tool, target = ADMIT, "candidate_id"


class ForeignForgetSucceeds(FindsByIdAlone):
    """forget finds a record by its id alone: another scope's record is forgotten."""

    tool, target = FORGET, "record_id"


class MissingTargetMisread(ServiceProxy):
    """Base: ``tool`` of a target its scope does not hold (unknown, or another scope's, which
    the scope cannot tell apart) answers ``code``, not NOT_FOUND."""

    tool: ClassVar[str]
    code: ClassVar[str]

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        if tool == self.tool and envelope.get("error", {}).get("code") == "NOT_FOUND":
            return refusal(self.code, context)
        return envelope


class MissingCandidateNotPending(MissingTargetMisread):
    """withdraw reads a candidate it cannot find as one no longer pending: ILLEGAL_TRANSITION."""

    tool, code = WITHDRAW, "ILLEGAL_TRANSITION"


class MissingRecordForgotten(MissingTargetMisread):
    """forget reads a record it cannot find as one already forgotten: ALREADY_TERMINAL."""

    tool, code = FORGET, "ALREADY_TERMINAL"


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


def _foreign(tool: str) -> Caught:
    """A foreign mutation of ``tool`` that takes effect: SCOPE-003's failures are all of that
    tool's call on another scope's id."""
    about = {"SCOPE-003": f"{tool} of another scope's id"}
    return Caught(("SCOPE-003", "SCOPE-005", "SCOPE-006"), about=about)


def _missing(tool: str) -> Caught:
    """A missing target of ``tool`` misread: SCOPE-003's failures are all of that tool."""
    return Caught(("SCOPE-003",), about={"SCOPE-003": f"{tool} of "})


#: Test id -> the mutant, and what it breaks: run with the IDEM rules, which keys per scope.
MUTANTS: dict[str, tuple[type, Caught]] = {
    "foreign-get-unauthorized": (ForeignGetUnauthorized, Caught(("SCOPE-003", "SCOPE-004"))),
    "foreign-withdraw-succeeds": (ForeignWithdrawSucceeds, _foreign(WITHDRAW)),
    "foreign-admission-decides": (ForeignAdmissionDecides, _foreign(ADMIT)),
    "foreign-forget-succeeds": (ForeignForgetSucceeds, _foreign(FORGET)),
    # an unknown id and another scope's are both missing from the scope: answered alike
    "missing-candidate-not-pending": (MissingCandidateNotPending, _missing(WITHDRAW)),
    "missing-record-forgotten": (MissingRecordForgotten, _missing(FORGET)),
    "search-ignores-workspace": (SearchIgnoresWorkspace, Caught(("SCOPE-001", "SCOPE-002"))),
    "search-falls-back": (SearchFallsBack, Caught(("SCOPE-001", "SCOPE-002", "SCOPE-007"))),
    "memory-per-principal": (MemoryPerPrincipal, Caught(("SCOPE-008",))),
    "corpus-wide-statistics": (CorpusWideStatistics, Caught(("SCOPE-009",))),
    "global-cursors": (GlobalCursors, Caught(("SCOPE-009",))),
}
