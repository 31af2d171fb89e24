"""Checks of the idempotency rules (IDEM): replays, conflicts, the idempotency identity, and where
in the order of checks a replay is recognised.

A replay must answer the *effect* of the first call again: capture's ``candidate_id``,
request_admission's outcome (status, candidate_id, record_id), withdraw's and forget's receipt
(operation, from_state, to_state); that it also repeats the receipt's identity (event_id,
event_digest) is DESIGN's (IDEM-015). Pending candidates cannot be listed from outside a
server, so "writes nothing" is checked where it shows: the target of a refused call keeps its
state (a candidate can still be withdrawn from ``pending``, a record is still returned by get),
and the key still replays its first call.
"""

from __future__ import annotations

import copy
from functools import partial
from typing import Any

import anyio
from engram_conformance.spec.engram_memory import instant, wall_clock_ms
from engram_conformance.strategies.engram_memory import envelopes
from engram_conformance.strategies.engram_memory.answers import (
    effect,
    field,
    is_replay_of,
    receipt_identity,
    repeats_receipt,
    says_first,
)
from engram_conformance.strategies.engram_memory.machine_base import RECEIPT_RULE, REPLAY_RULE

from ...observation import Observation
from .context import ADMIT, CAPTURE, FORGET, GET, WITHDRAW, CheckContext
from .delivery import (
    ABANDON_AFTER_S,
    MUTATIONS,
    SETTLE_S,
    UNKNOWN_OUTCOME,
    Send,
    concurrently,
    expect_one_definite_effect,
    expect_one_effect,
    kept_its_state,
    new_target,
    prepared,
    send,
    unknown_target,
)
from .registry import check

LIFECYCLE = (ADMIT, WITHDRAW, FORGET)
OTHER_REASON = "reason:conformance-other"
CONFLICT = "DIGEST_CONFLICT"
#: Identical calls sent at once (IDEM-013).
CONCURRENT_CALLS = 4
#: How far ahead of now a capture's retention ends when the check waits for it (IDEM-009).
EXPIRY_AHEAD_MS = 1500
EXPIRY_MARGIN_S = 0.5


def _expiring_capture(ctx: CheckContext, key: str, expires_at_ms: int) -> dict[str, Any]:
    arguments = ctx.capture_arguments(key=key)
    retention = {"derivative_rule": "make-ineligible", "expires_at": instant(expires_at_ms)}
    arguments["payload"]["retention"] = retention
    return arguments


# checks ------------------------------------------------------------------------------------------


@check(rules=("IDEM-001", "IDEM-003", "IDEM-004", "IDEM-010", "IDEM-015"), tools=MUTATIONS)
async def replay_answers_the_first_result(ctx: CheckContext) -> None:
    """Each mutation, then the same call again. Every replay comes after the first call moved its
    target on (accepted, withdrawn, tombstoned), so it also shows that the replay is recognised
    before the lifecycle checks (IDEM-010)."""
    for tool in MUTATIONS:
        call = await prepared(ctx, tool, ctx.key(tool))
        first = await call()
        ctx.require(envelopes.ok(first), f"a valid {tool} failed", first)
        rule = REPLAY_RULE[tool]
        ctx.expect(
            rule,
            says_first(tool, first),
            expected=f"{tool}: a first call answers committed_pending or replayed false",
            observed=first,
        )
        replay = await call()
        replayed = is_replay_of(tool, replay, first)
        ctx.expect(
            rule,
            replayed,
            expected=f"{tool} replay: the first call's effect {effect(tool, first)!r}, as a replay",
            observed=replay,
        )
        if tool in LIFECYCLE:
            ctx.expect(
                "IDEM-010",
                replayed,
                expected=f"{tool} replay after the target left its state: the first result "
                "with replayed true, not ILLEGAL_TRANSITION or ALREADY_TERMINAL",
                observed=replay,
            )
        if envelopes.ok(replay) and tool in (WITHDRAW, FORGET):
            ctx.expect(
                RECEIPT_RULE,
                repeats_receipt(tool, replay, first),
                expected=f"{tool} replay: the first receipt's event_id and event_digest "
                f"{receipt_identity(first)!r}",
                observed=replay,
            )


@check(rules=("IDEM-002",), tools=(CAPTURE,))
async def new_key_is_a_new_capture(ctx: CheckContext) -> None:
    arguments = ctx.capture_arguments()
    first = await ctx.capture(arguments)
    ctx.require(envelopes.ok(first), "a valid capture failed", first)
    again = await ctx.capture({**arguments, "idempotency_key": ctx.key("again")})
    ctx.expect(
        "IDEM-002",
        says_first(CAPTURE, again) and effect(CAPTURE, again) != effect(CAPTURE, first),
        expected="the same content under a new key: committed_pending with a new candidate_id, "
        f"not {effect(CAPTURE, first)!r}",
        observed=again,
    )


async def _content_variants(ctx: CheckContext, tool: str, key: str) -> tuple[Send, list[Send]]:
    """A call, and calls of the same tool, key and target with other content."""
    if tool == CAPTURE:
        original = ctx.capture_arguments(key=key)
        other_evidence = copy.deepcopy(original)
        other_evidence["evidence"]["evidence_ref"] = "evidence:conformance-other"
        variants = [ctx.capture_arguments(key=key), other_evidence]  # other text, other evidence
        return partial(ctx.capture, original), [partial(ctx.capture, v) for v in variants]
    target = await new_target(ctx, tool)
    other = partial(send, ctx, tool, target, key, reason_ref=OTHER_REASON)
    return partial(send, ctx, tool, target, key), [other]


@check(rules=("IDEM-005",), tools=(CAPTURE, ADMIT, WITHDRAW, FORGET))
async def key_reuse_with_other_content_conflicts(ctx: CheckContext) -> None:
    """request_admission has no argument besides its target and key: IDEM-006 covers it."""
    for tool in (CAPTURE, WITHDRAW, FORGET):
        call, variants = await _content_variants(ctx, tool, ctx.key(tool))
        first = await call()
        ctx.require(envelopes.ok(first), f"a valid {tool} failed", first)
        for variant in variants:
            answer = await variant()
            ctx.expect(
                "IDEM-005",
                envelopes.code(answer) == CONFLICT,
                expected=f"{tool}: the key again with other content answers {CONFLICT}",
                observed=answer,
            )
        again = await call()
        ctx.expect(
            "IDEM-005",
            is_replay_of(tool, again, first),
            expected=f"{tool}: after the conflict the key still replays its first call "
            f"{effect(tool, first)!r}",
            observed=again,
        )


@check(rules=("IDEM-006",), tools=(*LIFECYCLE, GET))
async def key_reuse_on_another_target_conflicts(ctx: CheckContext) -> None:
    for tool in LIFECYCLE:
        key = ctx.key(tool)
        first = await send(ctx, tool, await new_target(ctx, tool), key)
        ctx.require(envelopes.ok(first), f"a valid {tool} failed", first)
        other = await new_target(ctx, tool)
        answer = await send(ctx, tool, other, key)
        ctx.expect(
            "IDEM-006",
            envelopes.code(answer) == CONFLICT,
            expected=f"{tool}: the key again on another target answers {CONFLICT}",
            observed=answer,
        )
        kept, probe = await kept_its_state(ctx, other, record=tool == FORGET)
        ctx.expect(
            "IDEM-006",
            kept,
            expected=f"{tool}: the other target keeps its state after the conflict",
            observed=probe,
        )


@check(rules=("IDEM-007",), tools=(*MUTATIONS, GET))
async def key_reuse_with_another_tool_conflicts(ctx: CheckContext) -> None:
    """A capture's key reused to admit and to withdraw its candidate; an admission's key reused to
    forget its record and by a capture. The candidate and the record keep their states, and the
    record is then forgotten with a key of its own (the control of the forget refused)."""
    capture_key, admission_key = ctx.key("capture"), ctx.key("admit")
    captured = await ctx.capture(ctx.capture_arguments(key=capture_key))
    ctx.require(envelopes.ok(captured), "a valid capture failed", captured)
    candidate = envelopes.value(captured).get("candidate_id")
    admitted = await ctx.admit(await ctx.pending(), key=admission_key)
    record = field(envelopes.value(admitted), "outcome").get("record_id")
    ctx.require(record is not None, "admission of a clean capture was not accepted", admitted)
    reuses = {
        f"{ADMIT} with a capture's key": partial(send, ctx, ADMIT, candidate, capture_key),
        f"{WITHDRAW} with a capture's key": partial(send, ctx, WITHDRAW, candidate, capture_key),
        f"{FORGET} with an admission's key": partial(send, ctx, FORGET, record, admission_key),
        f"{CAPTURE} with an admission's key": partial(
            ctx.capture, ctx.capture_arguments(key=admission_key)
        ),
    }
    for reuse, call in reuses.items():
        answer = await call()
        ctx.expect(
            "IDEM-007",
            envelopes.code(answer) == CONFLICT,
            expected=f"{reuse}: {CONFLICT}",
            observed=answer,
        )
    for target, is_record, state in ((candidate, False, "pending"), (record, True, "current")):
        kept, probe = await kept_its_state(ctx, target, record=is_record)
        ctx.expect("IDEM-007", kept, expected=f"still {state} after the conflicts", observed=probe)
    control = await ctx.forget(record)
    ctx.require_accepted(control, "forget of the record with a key of its own (the control)")


@check(rules=("IDEM-008",), tools=MUTATIONS)
async def key_is_scoped_to_principal_and_scope(ctx: CheckContext) -> None:
    """The owner's first calls, then the same keys (and, for capture, the same arguments) from
    another principal of the scope and from a principal of the same name in another scope.
    Candidate ids are not compared across scopes: a server may number them per scope."""
    owner = ctx.identity
    others = {
        "another principal of the scope": owner.with_principal(f"{owner.principal}-second"),
        "the same principal in another scope": ctx.new_identity().with_principal(owner.principal),
    }
    keys = {tool: ctx.key(tool) for tool in MUTATIONS}
    capture = ctx.capture_arguments(key=keys[CAPTURE])
    for tool in MUTATIONS:
        first = await (await prepared(ctx, tool, keys[tool], capture=capture))()
        ctx.require(envelopes.ok(first), f"a valid {tool} failed", first)
    for who, identity in others.items():
        for tool in MUTATIONS:
            call = await prepared(ctx, tool, keys[tool], identity=identity, capture=capture)
            answer = await call()
            ctx.expect(
                "IDEM-008",
                says_first(tool, answer),
                expected=f"{tool} by {who} with a key the owner used: an independent first call",
                observed=answer,
            )


@check(rules=("IDEM-009",), tools=(CAPTURE,), waits=True)
async def capture_replay_precedes_clock_checks(ctx: CheckContext) -> None:
    """A capture whose retention ends shortly, replayed once that instant has passed, then its
    key reused with other content."""
    ahead_ms = min(EXPIRY_AHEAD_MS, ctx.policy.retention_ceiling_s * 1000 // 2)
    expires_at_ms = wall_clock_ms() + ahead_ms
    arguments = _expiring_capture(ctx, ctx.key(), expires_at_ms)
    first = await ctx.capture(arguments)
    ctx.require(
        envelopes.ok(first), f"a capture whose retention ends in {ahead_ms} ms failed", first
    )
    await ctx.wait((expires_at_ms - wall_clock_ms()) / 1000 + EXPIRY_MARGIN_S)
    replay = await ctx.capture(arguments)
    ctx.expect(
        "IDEM-009",
        is_replay_of(CAPTURE, replay, first),
        expected="a replay after its expires_at passed: duplicate_exact with candidate_id "
        f"{effect(CAPTURE, first)!r}, not INVALID_SCHEMA",
        observed=replay,
    )
    other = _expiring_capture(ctx, arguments["idempotency_key"], expires_at_ms)
    conflict = await ctx.capture(other)
    ctx.expect(
        "IDEM-009",
        envelopes.code(conflict) == "DIGEST_CONFLICT",
        expected="the same key with other content after its expires_at passed: DIGEST_CONFLICT"
        " (key reuse before the clock check), not INVALID_SCHEMA",
        observed=conflict,
    )


@check(rules=("IDEM-011",), tools=(CAPTURE, ADMIT, FORGET))
async def capture_replay_after_forget_is_a_replay(ctx: CheckContext) -> None:
    arguments = ctx.capture_arguments()
    first = await ctx.capture(arguments)
    ctx.require(envelopes.ok(first), "a valid capture failed", first)
    admitted = await ctx.admit(envelopes.value(first).get("candidate_id"))
    record = field(envelopes.value(admitted), "outcome").get("record_id")
    ctx.require(record is not None, "admission of a clean capture was not accepted", admitted)
    forgotten = await ctx.forget(record)
    ctx.require(envelopes.ok(forgotten), "forget of a current record failed", forgotten)
    replay = await ctx.capture(arguments)
    ctx.expect(
        "IDEM-011",
        is_replay_of(CAPTURE, replay, first),
        expected="the original capture again after its record was forgotten: duplicate_exact "
        f"with candidate_id {effect(CAPTURE, first)!r}",
        observed=replay,
    )


@check(rules=("IDEM-012",), tools=MUTATIONS, waits=True)
async def retry_after_unknown_outcome_takes_effect_once(ctx: CheckContext) -> None:
    """The harness sends each mutation and stops waiting for its answer almost at once (the
    request is abandoned as the SDK's client does in the run's era: notifications/cancelled,
    or in 2026-07-28 over HTTP the request's own POST closed; whether the server performed it
    is unknown to the harness; the abandoned call is not in the transcript). After
    a short pause it retries twice (``expect_one_definite_effect``). The ``full`` profile also
    loses answers by closing a transport (``lost_transport``)."""
    for tool in MUTATIONS:
        call = await prepared(ctx, tool, ctx.key(tool))
        with anyio.move_on_after(ABANDON_AFTER_S):
            await call()
        await ctx.wait(SETTLE_S)
        await expect_one_definite_effect(ctx, tool, call, "an abandoned call")


@check(rules=("IDEM-013",), tools=MUTATIONS)
async def concurrent_identical_calls_take_effect_once(ctx: CheckContext) -> None:
    """Identical calls in flight together over the one session. A call answered
    MUTATION_OUTCOME_UNKNOWN is retried; then no answer may be the first result, so at most one
    is. The ``full`` profile also sends them over several sessions (``lost_transport``)."""
    for tool in MUTATIONS:
        answers = await concurrently(await prepared(ctx, tool, ctx.key(tool)), CONCURRENT_CALLS)
        expect_one_effect(ctx, tool, answers, "at once")


async def _failing(ctx: CheckContext, tool: str, key: str) -> Observation:
    """A call with ``key`` refused after the replay step: a capture whose retention has already
    ended (INVALID_SCHEMA, a clock check), or a target nobody issued (NOT_FOUND)."""
    if tool == CAPTURE:
        return await ctx.capture(_expiring_capture(ctx, key, wall_clock_ms() - 60_000))
    return await send(ctx, tool, unknown_target(ctx, tool), key)


@check(rules=("IDEM-014",), tools=MUTATIONS)
async def error_reserves_no_key(ctx: CheckContext) -> None:
    for tool in MUTATIONS:
        key = ctx.key(tool)
        refused = await _failing(ctx, tool, key)
        ctx.require(
            envelopes.envelope(refused) is not None
            and not envelopes.ok(refused)
            and envelopes.code(refused) != UNKNOWN_OUTCOME,
            f"an invalid {tool} was not refused with an error envelope",
            refused,
        )
        answer = await (await prepared(ctx, tool, key))()
        ctx.expect(
            "IDEM-014",
            says_first(tool, answer),
            expected=f"{tool} with the key of a call refused "
            f"{envelopes.code(refused)}: a first call",
            observed=answer,
        )
