"""Checks of the retention rules: retain needs permission, the ceiling, expiry and its order.

On a capture the clock check (``expires_at`` strictly after capture time, else INVALID_SCHEMA)
comes after replay detection and before the host policy checks (UNAUTHORIZED) (DESIGN.md,
Finer points / Order of checks).
"""

from __future__ import annotations

from engram_conformance.spec.engram_memory import instant, wall_clock_ms
from engram_conformance.strategies.engram_memory import envelopes

from .context import ADMIT, CAPTURE, GET, SEARCH, CheckContext
from .lifecycle_steps import (
    expect_hidden,
    expect_refused_capture,
    expires_at,
    expiring,
    outcome,
    rekeyed,
    wait_past,
    with_reconciliation,
    with_retention,
)
from .registry import check

#: Instants this far on the wrong side of a bound stay there whatever the clocks' skew.
SKEW_MS = 60_000


@check(rules=("RET-002", "IDEM-014"), tools=(CAPTURE,))
async def retain_needs_host_permission(ctx: CheckContext) -> None:
    """Where the host does not permit retain, the refused capture's control is the same capture
    with derivative_rule make-ineligible."""
    retain = with_retention(ctx.capture_arguments(), derivative_rule="retain")
    if not ctx.policy.retain_allowed:
        put_right = with_retention(rekeyed(ctx, retain), derivative_rule="make-ineligible")
        why = "the host does not permit retain"
        await expect_refused_capture(ctx, "RET-002", retain, "UNAUTHORIZED", why, put_right)
        return
    captured = await ctx.capture(retain)
    ctx.expect(
        "RET-002",
        envelopes.value(captured).get("status") == "committed_pending",
        expected="committed_pending: the host permits retain (retain_allowed)",
        observed=captured,
    )


@check(rules=("RET-003", "IDEM-014"), tools=(CAPTURE,))
async def retention_ceiling_is_enforced(ctx: CheckContext) -> None:
    ceiling_ms = ctx.policy.retention_ceiling_s * 1000
    beyond = expires_at(ctx.capture_arguments(), wall_clock_ms() + ceiling_ms + SKEW_MS)
    await expect_refused_capture(
        ctx, "RET-003", beyond, "UNAUTHORIZED", "expires_at lies beyond the retention ceiling"
    )
    within = expires_at(ctx.capture_arguments(), wall_clock_ms() + ceiling_ms // 2)
    captured = await ctx.capture(within)
    ctx.expect(
        "RET-003",
        envelopes.value(captured).get("status") == "committed_pending",
        expected="committed_pending for an expires_at halfway to the ceiling",
        observed=captured,
    )


@check(rules=("RET-004", "IDEM-014"), tools=(CAPTURE,))
async def expires_at_not_after_capture_is_invalid(ctx: CheckContext) -> None:
    """The refused capture's control is the same capture expiring halfway to the ceiling."""
    past = expires_at(ctx.capture_arguments(), wall_clock_ms() - SKEW_MS)
    halfway = wall_clock_ms() + ctx.policy.retention_ceiling_s * 1000 // 2
    put_right = expires_at(rekeyed(ctx, past), halfway)
    why = "expires_at is not after capture time"
    await expect_refused_capture(ctx, "RET-004", past, "INVALID_SCHEMA", why, put_right)


@check(rules=("RET-005",), tools=(CAPTURE,))
async def past_expiry_outranks_unauthorized(ctx: CheckContext) -> None:
    """Once a clean capture is committed (the control)."""
    control = await ctx.capture()
    ctx.require_accepted(control, "a clean capture (the control)")
    past = instant(wall_clock_ms() - SKEW_MS)
    family = [f"family:{ctx.unique('unconsented')}"]
    refused = {
        "an unconsented reconciliation family": with_reconciliation(
            with_retention(ctx.capture_arguments(), expires_at=past), family
        )
    }
    if not ctx.policy.retain_allowed:
        refused["retain, not permitted"] = with_retention(
            ctx.capture_arguments(), derivative_rule="retain", expires_at=past
        )
    for why, arguments in refused.items():
        answered = await ctx.capture(arguments)
        ctx.expect(
            "RET-005",
            envelopes.code(answered) == "INVALID_SCHEMA",
            expected=f"INVALID_SCHEMA: a past expires_at outranks UNAUTHORIZED for {why}",
            observed=answered,
        )


@check(rules=("RET-006",), tools=(CAPTURE, ADMIT, GET, SEARCH), waits=True)
async def expired_record_is_ineligible(ctx: CheckContext) -> None:
    word = ctx.unique("expiring")
    arguments, expires_ms = expiring(ctx, f"note {word}")
    captured = await ctx.capture(arguments)
    ctx.require(
        envelopes.ok(captured), "capture with a retention within the ceiling failed", captured
    )
    admitted = await ctx.admit(envelopes.value(captured).get("candidate_id"))
    decided = outcome(admitted)
    record_id = decided.get("record_id")
    ctx.require(decided.get("status") == "accepted", "a clean capture was not accepted", admitted)
    read = await ctx.get(record_id)
    ctx.require(envelopes.ok(read), "the record is not readable before its expires_at", read)
    await wait_past(ctx, expires_ms)
    await expect_hidden(ctx, "RET-006", record_id, word, "its retention expires_at was reached")
