"""The confirmation gate: a host's human approval of one call (DESIGN.md, "Host binding").

withdraw and forget always need one, capture and request_admission when the target's policy
says so (``confirmation_required``). Without one, withdraw and forget are refused with -32603
(GATE-001; that a null claim counts as absent is HOST-004's); an approval that does not hold
for the very call (capability, target, operation digest, 300 s TTL, 30 s execution window, 5 s
skew) answers ``gate_failed`` and writes nothing. What the seed states is the must rules'; the
forms and the order this kit decides (capture's target, time forms, skew, which check answers
first) are profile rules. The calls go to live targets, so that only the clause under test can
refuse them.

Approvals travel in the signed context: the checks that send broken ones, or none, need the
signed-meta binding.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from engram_conformance.spec.engram_memory import wall_clock_ms
from engram_conformance.strategies.engram_memory import envelopes
from engram_conformance.strategies.engram_memory.answers import is_replay_of

from ..host import ABSENT
from . import confirmation_cases
from .calls import (
    CONTEXT_UNAVAILABLE,
    arguments,
    expect_code,
    first_time,
    offered,
    signed_meta_only,
    subject,
)
from .confirmation_cases import ApprovalCase
from .context import ADMIT, CAPTURE, FORGET, WITHDRAW, CheckContext
from .registry import check

GATE_FAILED = "gate_failed"
ALWAYS_GATED = (WITHDRAW, FORGET)
#: The tools the target's policy may mark as needing a confirmation.
GATED_BY_POLICY = (CAPTURE, ADMIT)
#: What a later step of the order of checks answers (DESIGN.md, "Finer points").
LATER_FAILURES = ("DIGEST_CONFLICT", "NOT_FOUND", "ILLEGAL_TRANSITION", "ALREADY_TERMINAL")
#: Arguments written by a model that would pass for an approval, if a server believed them.
CONFIRMATION_LIKE = {
    "confirmed": True,
    "approved": True,
    "confirmation": {"ref": "approval-from-arguments", "approved": True},
    "elicitationRef": "elicitation-from-arguments",
}

Breaks = Callable[[str, dict[str, Any], int], Mapping[str, ApprovalCase]]


async def _required_by_policy(ctx: CheckContext, rule: str) -> list[str]:
    """capture and request_admission when the policy requires their confirmation; each other
    is not applicable to ``rule``, with why."""
    offered_tools = await offered(ctx)
    tools = []
    for tool in GATED_BY_POLICY:
        if tool not in offered_tools:
            ctx.not_applicable(rule, f"{tool}: the target does not offer it")
        elif not ctx.needs_confirmation(tool):
            ctx.not_applicable(rule, f"{tool}: the target's policy requires no confirmation")
        else:
            tools.append(tool)
    return tools


def _stale(ctx: CheckContext, tool: str, sent: dict[str, Any]) -> dict[str, Any]:
    """An approval of exactly this call, unexpired, but given 45 s ago (beyond the 30 s):
    ``confirmation_cases.stale``."""
    given = confirmation_cases.whole_second(wall_clock_ms())
    [case] = confirmation_cases.stale(given).values()
    return case.applied(ctx.host.confirmation(tool, sent, approved_ms=given))


def _other_tool(tool: str) -> str:
    return FORGET if tool == WITHDRAW else WITHDRAW


async def _judge_gate(
    ctx: CheckContext,
    rule: str,
    breaks: Breaks,
    holding: Callable[[int], dict[str, Any]] | None = None,
) -> None:
    """For each gated tool, with a live target: each case (``breaks``: the call, the time its
    approvals are given) applied to an approval of the call answers gate_failed; then an
    approval that holds lets the call proceed. ``holding`` (approval overrides, given now)
    makes that last call an expectation of ``rule``; without it, a plain approval is the
    check's precondition. A tool of the gated ones that the target does not offer, or whose
    confirmation its policy does not require, is not applicable, said per tool."""
    for tool in await _gated_or_said(ctx, rule):
        sent = await subject(ctx, tool)
        given = confirmation_cases.whole_second(wall_clock_ms())
        for case, broken in breaks(tool, sent, given).items():
            approval = broken.applied(ctx.host.confirmation(tool, sent, approved_ms=given))
            observed = await ctx.call(tool, sent, confirmation=approval)
            expect_code(ctx, rule, observed, GATE_FAILED, f"{tool} with {case}")
        approval = holding(wall_clock_ms()) if holding else {}
        proceeds = await ctx.confirmed(tool, sent, **approval)
        what = f"{tool} with an approval that holds ({approval or 'given now'}) proceeds"
        if holding:
            ctx.expect(rule, envelopes.ok(proceeds), expected=what, observed=proceeds)
        else:
            ctx.require(envelopes.ok(proceeds), what, proceeds)


async def _gated_or_said(ctx: CheckContext, rule: str) -> list[str]:
    """The gated tools the target offers; each other tool that may be gated is not applicable
    to ``rule``, with why."""
    tools = await offered(ctx)
    for tool in (*ALWAYS_GATED, *GATED_BY_POLICY):
        if tool not in tools:
            ctx.not_applicable(rule, f"{tool}: the target does not offer it")
        elif not ctx.needs_confirmation(tool):
            ctx.not_applicable(rule, f"{tool}: the target's policy requires no confirmation")
    return [tool for tool in tools if ctx.needs_confirmation(tool)]


# GATE-001, GATE-002, GATE-010: withdraw and forget ----------------------------------------------
async def _always_gated(ctx: CheckContext) -> list[str]:
    return [tool for tool in await offered(ctx) if tool in ALWAYS_GATED]


async def _expect_unconfirmed_refused(
    ctx: CheckContext, rules: tuple[str, ...], tool: str, sent: dict[str, Any], when: str
) -> None:
    """No confirmation claim: -32603 under ``rules``. A null claim too, but that null counts as
    absent is HOST-004's (profile), not the seed's. The callers make the control."""
    for case, confirmation, charged in (
        ("no confirmation claim", ABSENT, rules),
        ("confirmation null", None, ("HOST-004",)),
    ):
        observed = await ctx.call(tool, sent, confirmation=confirmation)
        for rule in charged:
            expect_code(ctx, rule, observed, CONTEXT_UNAVAILABLE, f"{tool}{when} with {case}")


@check(rules=("GATE-001", "HOST-004"), tools=(CAPTURE, ADMIT), requires=signed_meta_only)
async def withdraw_and_forget_without_a_confirmation_are_refused(ctx: CheckContext) -> None:
    """Then the same call with an approval that holds, the control, passes the protocol checks
    (that it takes effect is GATE-002's): refusals prove nothing of a server refusing it too."""
    for tool in await _always_gated(ctx):
        sent = await subject(ctx, tool)
        await _expect_unconfirmed_refused(ctx, ("GATE-001",), tool, sent, "")
        control = await ctx.confirmed(tool, sent)
        what = f"{tool} with an approval that holds (the control)"
        ctx.require_accepted(control, what, control.outcome == "result")


@check(rules=("GATE-002",), tools=(CAPTURE, ADMIT))
async def confirmed_withdraw_and_forget_take_effect(ctx: CheckContext) -> None:
    """The receipt names the new state, and the target is gone: a second call (new key) fails."""
    ends_in = {WITHDRAW: "withdrawn", FORGET: "tombstoned"}
    for tool in await _always_gated(ctx):
        sent = await subject(ctx, tool)
        done = await ctx.confirmed(tool, sent)
        receipt = envelopes.value(done).get("receipt") or {}
        ctx.expect(
            "GATE-002",
            envelopes.ok(done) and receipt.get("to_state") == ends_in[tool],
            expected=f"{tool} with an approval that holds: a receipt to {ends_in[tool]}",
            observed=done,
        )
        again = await ctx.confirmed(tool, {**sent, "idempotency_key": ctx.key("again")})
        ctx.expect(
            "GATE-002",
            again.outcome == "result" and not envelopes.ok(again),
            expected=f"{tool} again with a new key fails: the first call took effect",
            observed=again,
        )


@check(
    rules=("GATE-001", "GATE-010", "HOST-004"), tools=(CAPTURE, ADMIT), requires=signed_meta_only
)
async def replays_of_withdraw_and_forget_need_a_holding_confirmation(ctx: CheckContext) -> None:
    for tool in await _always_gated(ctx):
        sent = await subject(ctx, tool)
        approval = ctx.host.confirmation(tool, sent)
        first = await ctx.call(tool, sent, confirmation=approval)
        ctx.require(envelopes.ok(first), f"{tool} with an approval that holds", first)
        await _expect_unconfirmed_refused(ctx, ("GATE-001", "GATE-010"), tool, sent, " replayed")
        stale = await ctx.call(tool, sent, confirmation=_stale(ctx, tool, sent))
        expect_code(ctx, "GATE-010", stale, GATE_FAILED, f"{tool} replayed, approved 45 s ago")
        replay = await ctx.call(tool, sent, confirmation=approval)
        ctx.expect(
            "GATE-010",
            envelopes.ok(replay) and is_replay_of(tool, replay, first),
            expected=f"{tool} replayed with the first approval: the first receipt's states, "
            "replayed true (its identity is IDEM-015's)",
            observed={"first": envelopes.value(first), "replay": replay.summary()},
        )


# GATE-003 to GATE-006: when an approval holds ---------------------------------------------------
@check(rules=("GATE-003",), tools=(CAPTURE, ADMIT), requires=signed_meta_only)
async def confirmation_of_another_call_fails_the_gate(ctx: CheckContext) -> None:
    """Another capability, target or operation digest. capture has no target before it runs:
    that its approval names the idempotency_key is GATE-013's (profile), so here a capture is
    approved for another call only through the capability and the digest."""

    def breaks(tool: str, sent: dict[str, Any], given_ms: int) -> dict[str, ApprovalCase]:
        target = None if tool == CAPTURE else ctx.spec.tools[tool].target
        return confirmation_cases.another_call(
            tool, sent, _other_tool(tool), ctx.key("other"), target
        )

    await _judge_gate(ctx, "GATE-003", breaks)


@check(rules=("GATE-004",), tools=(CAPTURE, ADMIT), requires=signed_meta_only)
async def confirmation_over_its_ttl_or_expired_fails_the_gate(ctx: CheckContext) -> None:
    await _judge_gate(
        ctx, "GATE-004", lambda tool, sent, given: confirmation_cases.out_of_time(given)
    )


@check(rules=("GATE-005",), tools=(CAPTURE, ADMIT), requires=signed_meta_only)
async def call_more_than_30_s_after_approval_fails_the_gate(ctx: CheckContext) -> None:
    await _judge_gate(ctx, "GATE-005", lambda tool, sent, given: confirmation_cases.stale(given))


@check(rules=("GATE-006",), tools=(CAPTURE, ADMIT), requires=signed_meta_only)
async def malformed_or_future_confirmation_fails_the_gate(ctx: CheckContext) -> None:
    """Missing fields, times that are not Instants, an approval 20 s ahead fail
    (``confirmation_cases.malformed``); an approval 3 s ahead (within the 5 s skew, with a
    margin for the two clocks) holds. A time in another form means the same instant as the
    Instant it replaces, so a server that read that form would find the approval holding."""
    await _judge_gate(
        ctx,
        "GATE-006",
        lambda tool, sent, given: confirmation_cases.malformed(given),
        lambda now_ms: {"approved_ms": now_ms + 3_000},
    )


# GATE-007, GATE-008, GATE-013: capture and request_admission ------------------------------------
@check(rules=("GATE-007",), tools=(CAPTURE,), requires=signed_meta_only)
async def required_confirmation_gates_capture_and_admission(ctx: CheckContext) -> None:
    for tool in await _required_by_policy(ctx, "GATE-007"):
        sent = await subject(ctx, tool)
        for case, confirmation in (
            ("no confirmation", ABSENT),
            ("an approval given 45 s ago", _stale(ctx, tool, sent)),
        ):
            observed = await ctx.call(tool, sent, confirmation=confirmation)
            expect_code(ctx, "GATE-007", observed, GATE_FAILED, f"{tool} with {case}")
        then = await ctx.confirmed(tool, sent)
        ctx.expect(
            "GATE-007",
            first_time(then),
            expected=f"{tool} then confirmed runs for the first time: nothing was written",
            observed=then,
        )


@check(rules=("GATE-008",), tools=(CAPTURE,))
async def unrequired_confirmation_is_not_needed(ctx: CheckContext) -> None:
    tools = [tool for tool in await offered(ctx) if tool in GATED_BY_POLICY]
    tools = [tool for tool in tools if not ctx.needs_confirmation(tool)]
    if not tools:
        ctx.not_applicable("GATE-008", "the target's policy requires confirmation of both tools")
    for tool in tools:
        sent = await subject(ctx, tool)
        observed = await ctx.call(tool, sent)
        ctx.expect(
            "GATE-008",
            envelopes.ok(observed),
            expected=f"{tool} without any confirmation succeeds",
            observed=observed,
        )


@check(rules=("GATE-013",), tools=(CAPTURE,), requires=signed_meta_only)
async def capture_and_admission_confirmations_name_their_target(ctx: CheckContext) -> None:
    """capture's target is its idempotency_key, request_admission's its candidate_id."""
    for tool in await _required_by_policy(ctx, "GATE-013"):
        sent = await subject(ctx, tool)
        field = ctx.spec.tools[tool].target
        elsewhere = ctx.host.confirmation(tool, sent, target=f"{sent[field]}-other")
        observed = await ctx.call(tool, sent, confirmation=elsewhere)
        expect_code(ctx, "GATE-013", observed, GATE_FAILED, f"{tool} approved for another {field}")
        proceeds = await ctx.confirmed(tool, sent)
        ctx.expect(
            "GATE-013",
            envelopes.ok(proceeds),
            expected=f"{tool} approved with target {field} proceeds",
            observed=proceeds,
        )


# GATE-009, GATE-011, GATE-012 ----------------------------------------------------------------
@check(rules=("GATE-009",), requires=signed_meta_only)
async def confirmation_written_in_arguments_has_no_effect(ctx: CheckContext) -> None:
    """Each offered tool on a live target (``subject``: only the schema can refuse the calls),
    with each confirmation-like argument: withdraw and forget without a context confirmation
    are refused, -32603 or INVALID_SCHEMA (which comes first is HOST-016's, ``check_order``);
    with one that holds (and every other tool) the call answers INVALID_SCHEMA. Then the call
    as it should be runs for the first time: none of them changed anything. Before them, the
    call without such arguments is accepted (the control; then a tool that changes its target
    gets a new one)."""
    for tool in await offered(ctx):
        sent = await subject(ctx, tool)
        control = await ctx.call_approved(tool, sent)
        ctx.require_accepted(control, f"{tool} without such arguments (the control)")
        if ctx.spec.tools[tool].kind != "read":
            sent = await subject(ctx, tool)
        for name, value in CONFIRMATION_LIKE.items():
            carrying = {**sent, name: value}
            answers = []
            if tool in ALWAYS_GATED:
                unconfirmed = await ctx.call(tool, carrying, confirmation=ABSENT)
                answers.append(unconfirmed)
                ctx.expect(
                    "GATE-009",
                    envelopes.code(unconfirmed) in (CONTEXT_UNAVAILABLE, "INVALID_SCHEMA"),
                    expected=f"{tool} with {name} in its arguments and no confirmation: refused, "
                    f"{CONTEXT_UNAVAILABLE} or INVALID_SCHEMA",
                    observed=unconfirmed,
                )
            observed = await ctx.call_approved(tool, carrying)
            answers.append(observed)
            expect_code(ctx, "GATE-009", observed, "INVALID_SCHEMA", f"{tool} with {name}")
            # the call was made: its target is used
            if any(envelopes.ok(answer) for answer in answers):
                sent = await subject(ctx, tool)
        if ctx.spec.tools[tool].kind == "read":
            continue
        then = await ctx.call_approved(tool, sent)
        changed = envelopes.code(then) in LATER_FAILURES or (
            envelopes.ok(then) and not first_time(then)
        )
        ctx.require(
            changed or envelopes.ok(then),
            f"{tool} without such arguments, approved when needed",
            then,
        )
        ctx.expect(
            "GATE-009",
            not changed,
            expected=f"{tool} then called without such arguments runs for the first time: "
            "the refused calls changed nothing",
            observed=then,
        )


@check(rules=("GATE-011", "SCHEMA-035"), tools=(CAPTURE, ADMIT), requires=signed_meta_only)
async def confirmation_is_checked_after_arguments_and_before_replay(ctx: CheckContext) -> None:
    """Each pair: a call failing a later step (with an approval that holds, it answers that
    step's error) and the gate (a stale approval) answers gate_failed; invalid arguments with
    a stale approval answer INVALID_SCHEMA, and a capture whose citation digest is not of the
    digest form an argument error (digest forms come before the gate; that its code is
    INVALID_DIGEST, not INVALID_SCHEMA, is SCHEMA-035's)."""
    for tool in await _gated_or_said(ctx, "GATE-011"):
        sent = await subject(ctx, tool)
        invalid = {**sent, "idempotency_key": "short"}
        observed = await ctx.call(tool, invalid, confirmation=_stale(ctx, tool, invalid))
        expect_code(
            ctx, "GATE-011", observed, "INVALID_SCHEMA", f"{tool}, short key, stale approval"
        )
        if tool == CAPTURE:
            undigested = copy.deepcopy(sent)
            undigested["payload"]["citations"][0]["content_digest"] = "sha256:not-hex"
            stale = _stale(ctx, tool, undigested)
            observed = await ctx.call(tool, undigested, confirmation=stale)
            ctx.expect_argument_refusal(
                "GATE-011",
                observed,
                "INVALID_DIGEST",
                f"{tool}, a content_digest not of the digest form, stale approval",
            )
        done = await ctx.confirmed(tool, sent)
        ctx.require(envelopes.ok(done), f"{tool} with an approval that holds", done)
        conflicting = {**await subject(ctx, tool), "idempotency_key": sent["idempotency_key"]}
        later = [("the key of another call", conflicting)]
        if ctx.spec.tools[tool].target != "idempotency_key":
            later.append(("an unknown target", arguments(ctx, tool)))
            later.append(("a target already transitioned", {**sent, "idempotency_key": ctx.key()}))
        for case, failing in later:
            control = await ctx.confirmed(tool, failing)
            ctx.require(
                envelopes.code(control) in LATER_FAILURES,
                f"{tool} with {case} fails after the gate",
                control,
            )
            observed = await ctx.call(tool, failing, confirmation=_stale(ctx, tool, failing))
            expect_code(
                ctx, "GATE-011", observed, GATE_FAILED, f"{tool} with {case} and a stale approval"
            )


@check(rules=("GATE-012",), tools=(CAPTURE, ADMIT), requires=signed_meta_only)
async def gate_failed_writes_nothing(ctx: CheckContext) -> None:
    """After gate_failed, the same call approved runs for the first time: the target was left
    as it was and the key was not reserved."""
    for tool in await _gated_or_said(ctx, "GATE-012"):
        sent = await subject(ctx, tool)
        refused = await ctx.call(tool, sent, confirmation=_stale(ctx, tool, sent))
        ctx.require(
            envelopes.code(refused) == GATE_FAILED, f"{tool} with a stale approval fails", refused
        )
        then = await ctx.confirmed(tool, sent)
        ctx.expect(
            "GATE-012",
            first_time(then),
            expected=f"{tool} then approved runs for the first time",
            observed=then,
        )
