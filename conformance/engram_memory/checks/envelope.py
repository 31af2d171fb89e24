"""Per-call checks of every answer: the envelope, the text copy, isError, auditId, the errors."""

from __future__ import annotations

import json
from typing import Any

from engram_conformance.strategies.engram_memory import envelopes

from ...per_call_context import PerCallContext
from ...targets.json_text import sdk_writes
from .answers import expect_breaches
from .context import ADMIT, CAPTURE, FORGET, GET, SEARCH, WITHDRAW, CheckContext
from .registry import check, per_call

PROTOCOL_CODES = (-32602, -32603)
ENVELOPE = "urn:engram-conformance:schema:envelope"


@per_call(rules=("ENV-010",))
def answers_are_results_or_the_two_protocol_errors(ctx: PerCallContext) -> None:
    """Arguments no JSON writer but a byte-exact one can send (an unpaired surrogate, a number
    beyond any float) are left to SCHEMA-032: the seed says nothing of such text."""
    observed = ctx.observed
    if observed.method != "tools/call" or observed.outcome == "fault":
        return
    if not sdk_writes(observed.arguments):
        return
    ctx.expect(
        "ENV-010",
        observed.outcome == "result" or observed.error_code in PROTOCOL_CODES,
        expected="a tool result, or JSON-RPC error -32602 or -32603",
        observed=f"JSON-RPC error {observed.error_code}: {observed.error_message}",
    )
    if observed.outcome == "protocol_error":
        ctx.expect(
            "ENV-010",
            not _carries_an_envelope(observed.error_data),
            expected="a protocol error that carries no envelope (a memory outcome is a result)",
            observed=observed,
        )


def _carries_an_envelope(data: Any) -> bool:
    """Whether a JSON-RPC error's data holds an envelope (an object with ok and auditId), at
    its top or one level down."""
    if not isinstance(data, dict):
        return False
    if {"ok", "auditId"} <= data.keys():
        return True
    return any(isinstance(v, dict) and {"ok", "auditId"} <= v.keys() for v in data.values())


@per_call(rules=("ERR-006",))
def protocol_errors_carry_their_constant_messages(ctx: PerCallContext) -> None:
    observed, spec = ctx.observed, ctx.spec
    if (
        observed.method == "tools/call"
        and observed.outcome == "protocol_error"
        and observed.error_code in spec.protocol_errors
    ):
        wanted = spec.protocol_errors[observed.error_code].message
        ctx.expect(
            "ERR-006",
            observed.error_message == wanted,
            expected=f"{observed.error_code} with message {wanted!r}",
            observed=repr(observed.error_message),
        )


@per_call(rules=("ENV-001", "ENV-002", "ENV-003", "ENV-004", "ENV-005", "ENV-006", "ERR-001"))
def envelope_has_the_contract_shape(ctx: PerCallContext) -> None:
    """The envelope against its schema, each breach charged to the rule of the constraint that
    failed (the seed's fields and constants, or this kit's closedness and auditId type)."""
    observed = ctx.observed
    if observed.outcome != "result" or observed.method != "tools/call":
        return
    envelope = observed.structured
    ctx.expect(
        "ENV-004",
        isinstance(envelope, dict) and _text_copy(observed.text) == envelope,
        expected="structuredContent, and a text content whose JSON equals it",
        observed={"structuredContent": envelope, "text": observed.text},
    )
    if not isinstance(envelope, dict):
        return
    ok = envelope.get("ok")
    branch = "Success" if ok is True else "Failure"
    expect_breaches(
        ctx,
        f"{ENVELOPE}#/$defs/{branch}",
        envelope,
        what=f"the {branch.lower()} envelope of the contract text, section 2",
    )
    ctx.expect(
        "ENV-005",
        observed.is_error is (ok is not True),
        expected=f"isError {ok is not True} for ok {ok}",
        observed=f"isError {observed.is_error}",
    )
    bound = (observed.claims or {}).get("audit_id")
    ctx.expect(
        "ENV-006",
        envelope.get("auditId") == bound,
        expected=f"auditId {bound!r} (the bound audit_id)",
        observed=repr(envelope.get("auditId")),
    )


def _text_copy(text: str | None) -> Any:
    try:
        return json.loads(text) if text is not None else None
    except ValueError:
        return None


@check(rules=("ENV-001", "ENV-002"), tools=(CAPTURE, ADMIT, SEARCH, GET, WITHDRAW, FORGET))
async def every_tool_answers_envelopes(ctx: CheckContext) -> None:
    """Each tool once on its success path and once on a failure path.

    The per-call checks judge every one of these answers (shape, text copy, isError, auditId,
    error catalogue); this check also requires that each answer is the envelope of its path.
    """
    text = ctx.unique("envelope")
    record_id = await ctx.accepted(f"envelope check {text}")
    candidate_id = await ctx.pending()
    unknown_record = "mem_" + "a" * 52
    answers = [
        (await ctx.search(text), True),
        (await ctx.get(record_id), True),
        (await ctx.get(unknown_record), False),
        (await ctx.admit("cand-unknown-" + text), False),
        (await ctx.withdraw(candidate_id), True),
        (await ctx.withdraw("cand-unknown-" + text), False),
        (await ctx.forget(record_id), True),
        (await ctx.forget(unknown_record), False),
    ]
    for observed, success in answers:
        rule = "ENV-001" if success else "ENV-002"
        envelope = envelopes.envelope(observed) or {}
        ctx.expect(
            rule,
            envelope.get("ok") is success,
            expected=f"{observed.tool}: ok {success}",
            observed=observed,
        )
