"""The order of checks (HOST-016): a call failing two of the server's checks is answered by the
one that comes first in DESIGN.md's order. Pairs involving the confirmation gate, replay and
the clock are the GATE, IDEM and RET rules'."""

from __future__ import annotations

from typing import Any

from engram_conformance.spec.engram_memory import instant, wall_clock_ms

from ..host import ABSENT
from .calls import (
    CONTEXT_UNAVAILABLE,
    NOT_A_TOOL,
    UNKNOWN_TOOL,
    arguments,
    claims,
    expect_code,
    offered,
    require_answered,
    send,
    signed_meta_only,
    with_purpose,
)
from .context import CAPTURE, GET, SEARCH, WITHDRAW, CheckContext
from .registry import check


def _order_cases(ctx: CheckContext) -> list[tuple[str, str, dict[str, Any], Any, Any]]:
    """Calls failing two checks: (case, tool, arguments, claims or None, the first failure's code).

    Pairs with the confirmation gate, replay and the clock are the GATE, IDEM and RET rules'.
    """
    now = wall_clock_ms()
    past, now_s = instant(now - 1_000), now // 1000
    search, get = arguments(ctx, SEARCH), arguments(ctx, GET)
    elsewhere = with_purpose(ctx, SEARCH, search, "purpose:another")
    withdraw = arguments(ctx, WITHDRAW)
    unconfirmed = {"confirmation": ABSENT}
    capture = ctx.capture_arguments()
    capture["payload"]["citations"][0]["content_digest"] = "sha256:not-hex"
    capture["evidence"]["evidence_ref"] = ""

    def bound(tool: str, sent: dict[str, Any], **overrides: Any) -> dict[str, Any]:
        return claims(ctx, tool, sent, **overrides)

    return [
        ("an unknown tool without a context", NOT_A_TOOL[0], {}, None, UNKNOWN_TOOL),
        (
            "a disabled tool with an expired context",
            SEARCH,
            search,
            bound(SEARCH, search, tools=[GET], iat=now_s - 70, exp=now_s - 10),
            CONTEXT_UNAVAILABLE,
        ),
        (
            "a disabled tool with a context naming another tool",
            SEARCH,
            search,
            {**bound(SEARCH, search, tools=[GET]), "tool": GET},
            CONTEXT_UNAVAILABLE,
        ),
        (
            "a disabled tool with another purpose_ref",
            SEARCH,
            elsewhere,
            bound(SEARCH, elsewhere, tools=[GET]),
            UNKNOWN_TOOL,
        ),
        (
            "a disabled withdraw without a confirmation",
            WITHDRAW,
            withdraw,
            bound(WITHDRAW, withdraw, tools=[SEARCH], **unconfirmed),
            UNKNOWN_TOOL,
        ),
        (
            "another purpose_ref with a passed deadline",
            SEARCH,
            elsewhere,
            bound(SEARCH, elsewhere, deadline=past),
            CONTEXT_UNAVAILABLE,
        ),
        (
            "another purpose_ref with invalid arguments",
            SEARCH,
            {**elsewhere, "limit": 0},
            bound(SEARCH, elsewhere),
            CONTEXT_UNAVAILABLE,
        ),
        (
            "withdraw without a confirmation, with a passed deadline",
            WITHDRAW,
            withdraw,
            bound(WITHDRAW, withdraw, deadline=past, **unconfirmed),
            CONTEXT_UNAVAILABLE,
        ),
        (
            "withdraw without a confirmation, with invalid arguments",
            WITHDRAW,
            {**withdraw, "reason_ref": ""},
            bound(WITHDRAW, withdraw, **unconfirmed),
            CONTEXT_UNAVAILABLE,
        ),
        (
            "withdraw without a confirmation, with confirmed: true in its arguments",
            WITHDRAW,
            {**withdraw, "confirmed": True},
            bound(WITHDRAW, withdraw, **unconfirmed),
            CONTEXT_UNAVAILABLE,
        ),
        (
            "a passed deadline with invalid arguments",
            SEARCH,
            {**search, "limit": 0},
            bound(SEARCH, search, deadline=past),
            "DEADLINE_EXCEEDED",
        ),
        (
            "get of an unknown record with a passed deadline",
            GET,
            get,
            bound(GET, get, deadline=past),
            "DEADLINE_EXCEEDED",
        ),
        (
            "a passed deadline and a confirmation that does not hold",
            WITHDRAW,
            withdraw,
            bound(
                WITHDRAW,
                withdraw,
                deadline=past,
                confirmation=ctx.host.confirmation(WITHDRAW, withdraw, target="another"),
            ),
            "DEADLINE_EXCEEDED",
        ),
        (
            "a capture breaking the schema in a field after a broken digest form",
            CAPTURE,
            capture,
            bound(CAPTURE, capture),
            "INVALID_SCHEMA",
        ),
    ]


@check(rules=("HOST-016",), requires=signed_meta_only)
async def first_failing_check_decides_the_answer(ctx: CheckContext) -> None:
    """Each case of an offered tool (or of no tool), once each tool they call is accepted
    called validly (the controls; the first offered tool's when they call none)."""
    tools = await offered(ctx)
    cases = [c for c in _order_cases(ctx) if c[1] not in ctx.spec.tools or c[1] in tools]
    called = [tool for tool in tools if any(c[1] == tool for c in cases)]
    for tool in called or tools[:1]:
        await require_answered(ctx, tool, valid_arguments=True)
    for case, tool, sent, bound, wanted in cases:
        observed = await send(ctx, tool, sent, bound)
        expect_code(ctx, "HOST-016", observed, wanted, f"{tool}, {case}")
