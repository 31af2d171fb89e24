"""Servers that break a paging rule (PAGE): cursors that go stale too soon or never, point at the
wrong record, or serve another query than the one that issued them."""

from __future__ import annotations

from typing import Any, ClassVar

from engram_conformance.reference_impl.engram_memory.paging import PageCursor
from engram_conformance.spec.engram_memory.tool_names import ADMIT

from ...caught import Caught
from ..answers import status
from ..base import ServiceProxy
from ..search_answers import SEARCH, ranked, refused, value_of, with_packets, with_value


def _without_cursor(arguments: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in arguments.items() if k != "page_cursor"}


class CursorsExpireAtOnce(ServiceProxy):
    """Every page_cursor is refused as stale, even the one just issued (PAGE-001)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        if tool == SEARCH and "page_cursor" in arguments:
            return refused(envelope, "STALE_PAGE")
        return envelope


class CursorRepeatsTheLastRecord(ServiceProxy):
    """next_page_cursor points at the last record returned, not the next (PAGE-002, PAGE-003)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        if tool != SEARCH or not envelope["ok"] or "next_page_cursor" not in value_of(envelope):
            return envelope
        value = value_of(envelope)
        issued = PageCursor.decode(value["next_page_cursor"])
        back = PageCursor(issued.offset - 1, issued.request, issued.ordered).encode()
        return with_value(SEARCH, envelope, {**value, "next_page_cursor": back})


class RanksRestartOnEachPage(ServiceProxy):
    """Every page ranks its records from 1 (PAGE-003)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        if tool != SEARCH or "page_cursor" not in arguments or not envelope["ok"]:
            return envelope
        return with_packets(envelope, ranked(value_of(envelope)["records"], 1))


class RemembersCursors(ServiceProxy):
    """Base of the mutants that judge a cursor by the call that issued it (``issued``)."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.issued: dict[str, dict[str, Any]] = {}

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        if tool == SEARCH and envelope["ok"] and "next_page_cursor" in value_of(envelope):
            self.issued[value_of(envelope)["next_page_cursor"]] = _without_cursor(arguments)
        return envelope

    def issuing(self, tool: str, arguments: Any) -> dict[str, Any] | None:
        """The arguments of the call that issued this call's cursor, if it has one we issued."""
        return self.issued.get(arguments.get("page_cursor")) if tool == SEARCH else None


class CursorServesAnyQuery(RemembersCursors):
    """A cursor used with another query answers that query's first page (PAGE-004)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        issuing = self.issuing(tool, arguments)
        if issuing is not None and issuing["query"] != arguments["query"]:
            arguments = _without_cursor(arguments)
        return super().call(tool, arguments, context)


class CursorKeepsItsParameters(RemembersCursors):
    """A cursor goes on with the parameters that issued it, whatever the call says (PAGE-005)."""

    #: the parameters a cursor is not bound to (None: any but the query)
    unbound: ClassVar[frozenset[str] | None] = None

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        issuing = self.issuing(tool, arguments)
        if issuing is not None and issuing["query"] == arguments["query"]:
            changed = {n for n in issuing.keys() | arguments.keys() if n != "page_cursor"}
            changed = {n for n in changed if issuing.get(n) != arguments.get(n)}
            if self.unbound is None or changed <= self.unbound:
                arguments = {**issuing, "page_cursor": arguments["page_cursor"]}
        return super().call(tool, arguments, context)


class CursorUnboundToLimit(CursorKeepsItsParameters):
    """A cursor is bound to its query, byte budget and capability policy, not to its limit: used
    with another limit, it goes on with the one that issued it."""

    unbound = frozenset({"limit"})


class CursorUnboundToByteBudget(CursorKeepsItsParameters):
    """A cursor is bound to its query, limit and capability policy, not to max_packet_bytes:
    used with another byte budget, it goes on with the one that issued it."""

    unbound = frozenset({"max_packet_bytes"})


class CursorUnboundToPolicy(CursorKeepsItsParameters):
    """A cursor is bound to its query, limit and byte budget, not to capability_policy: used
    with another policy, it goes on with the one that issued it."""

    unbound = frozenset({"capability_policy"})


class UnknownCursorRestarts(RemembersCursors):
    """A cursor the server never issued answers the first page (PAGE-007)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool == SEARCH and "page_cursor" in arguments and self.issuing(tool, arguments) is None:
            arguments = _without_cursor(arguments)
        return super().call(tool, arguments, context)


class ForeignCursorIgnored(ServiceProxy):
    """A page_cursor not in the server's own form (base64url of a JSON object opens ``eyJ``) is
    read as no cursor: the first page. One of its form that does not decode is still STALE_PAGE
    (PAGE-007, the never-issued case)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        cursor = arguments.get("page_cursor") if tool == SEARCH else None
        if isinstance(cursor, str) and not cursor.startswith(OWN_FORM):
            arguments = _without_cursor(arguments)
        return super().call(tool, arguments, context)


#: How every cursor the reference issues opens: base64url of ``{"``.
OWN_FORM = "eyJ"


class ResolvesCursors(RemembersCursors):
    """Base of the mutants that take a cursor it never issued for one it did (``resolved``)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        cursor = arguments.get("page_cursor") if tool == SEARCH else None
        if isinstance(cursor, str) and cursor not in self.issued:
            known = next((c for c in self.issued if self.resolves(cursor, c)), None)
            arguments = arguments if known is None else {**arguments, "page_cursor": known}
        return super().call(tool, arguments, context)

    def resolves(self, sent: str, issued: str) -> bool:
        raise NotImplementedError


class CutCursorContinues(ResolvesCursors):
    """Cursors are looked up by prefix: an issued cursor cut short at its end continues the one
    issued (PAGE-007, the cut-short case)."""

    def resolves(self, sent: str, issued: str) -> bool:
        return issued.startswith(sent)


class AlteredCursorContinues(ResolvesCursors):
    """A cursor is known by its length and its first and last 16 characters: one with a
    character changed between them continues the one issued (PAGE-007, the altered case)."""

    def resolves(self, sent: str, issued: str) -> bool:
        ends = (sent[:16], sent[-16:]) == (issued[:16], issued[-16:])
        return len(sent) == len(issued) and ends


class CursorIgnoresChanges(ServiceProxy):
    """A cursor holds an offset into whatever the results are now: changes go unnoticed (PAGE-006).

    The reference's cursor is re-bound to the current ordering before the reference reads it.
    """

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool == SEARCH and "page_cursor" in arguments:
            arguments = self.rebound(arguments, context)
        return self.inner.call(tool, arguments, context)

    def rebound(self, arguments: dict[str, Any], context: Any) -> dict[str, Any]:
        cursor = PageCursor.decode(arguments["page_cursor"])
        fresh = self.inner.call(SEARCH, _without_cursor(arguments), context)
        if cursor is None or not fresh["ok"]:
            return arguments
        ordered = value_of(fresh)["rank_receipt"]["ordered_ids_digest"]
        rebound = PageCursor(cursor.offset, cursor.request, ordered).encode()
        return {**arguments, "page_cursor": rebound}


class CursorIgnoresExpiry(CursorIgnoresChanges):
    """A cursor goes stale only when a write to its scope came after it: a record that expired
    meanwhile goes unnoticed (PAGE-006, the expiry case)."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.writes: dict[Any, int] = {}
        self.issued_at: dict[str, int] = {}

    def noticed(self, tool: str, answer: dict[str, Any]) -> bool:
        """Whether a call's answer counts as a write that makes cursors stale."""
        return tool != SEARCH and answer["ok"]

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        scope = context.scope
        cursor = arguments.get("page_cursor") if tool == SEARCH else None
        if cursor is not None and self.issued_at.get(cursor) == self.writes.get(scope, 0):
            arguments = self.rebound(arguments, context)
        answer = self.inner.call(tool, arguments, context)
        if self.noticed(tool, answer):
            self.writes[scope] = self.writes.get(scope, 0) + 1
        elif tool == SEARCH and answer["ok"] and "next_page_cursor" in value_of(answer):
            self.issued_at[value_of(answer)["next_page_cursor"]] = self.writes.get(scope, 0)
        return answer


class CursorIgnoresForgets(CursorIgnoresExpiry):
    """A cursor goes stale when a record is accepted to its scope after it, not when one is
    forgotten: the results it pages through lost a record unnoticed (PAGE-006, the forget
    case)."""

    def noticed(self, tool: str, answer: dict[str, Any]) -> bool:
        return tool == ADMIT and status(answer) == "accepted"


#: (mutant, what it breaks and what it leaves undecided)
MUTANTS: list[tuple[type, Caught]] = [
    # No second page is ever served: every other paging check is left undecided.
    (
        CursorsExpireAtOnce,
        Caught(
            ("PAGE-001",),
            undecided=("PAGE-002", "PAGE-003", "PAGE-004", "PAGE-005", "PAGE-006", "PAGE-007"),
        ),
    ),
    (CursorRepeatsTheLastRecord, Caught(("PAGE-002", "PAGE-003"))),
    (RanksRestartOnEachPage, Caught(("PAGE-003",))),
    (CursorServesAnyQuery, Caught(("PAGE-004",))),
    (CursorKeepsItsParameters, Caught(("PAGE-005",))),
    (CursorUnboundToLimit, Caught(("PAGE-005",), about={"PAGE-005": "another limit"})),
    (
        CursorUnboundToByteBudget,
        Caught(("PAGE-005",), about={"PAGE-005": "another max_packet_bytes"}),
    ),
    (
        CursorUnboundToPolicy,
        Caught(("PAGE-005",), about={"PAGE-005": "another capability_policy"}),
    ),
    (CursorIgnoresChanges, Caught(("PAGE-006",))),
    (CursorIgnoresForgets, Caught(("PAGE-006",), about={"PAGE-006": "was forgotten"})),
    (UnknownCursorRestarts, Caught(("PAGE-007",))),
    (
        ForeignCursorIgnored,
        Caught(("PAGE-007",), about={"PAGE-007": "a cursor the server never issued"}),
    ),
    (CutCursorContinues, Caught(("PAGE-007",), about={"PAGE-007": "cut short"})),
    (AlteredCursorContinues, Caught(("PAGE-007",), about={"PAGE-007": "character changed"})),
]
#: What a cursor blind to expiry breaks, as the full profile's check that waits reports it.
BLIND_TO_EXPIRY = Caught.reported({"PAGE-006": "cursor_goes_stale_when_a_record_expires"})
