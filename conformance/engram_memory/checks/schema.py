"""Checks of the argument rules (SCHEMA) and of capture's cross-references (XREF).

The cases are the spec's labelled examples: which ones, and the rules each decides, are in
``argument_examples``; how one is adapted to the call, sent and its refusal judged, in
``argument_sending``.

What examples cannot show is built here: the 1 MiB bound of the argument object and that it is
measured on the canonical form, the order of the argument checks when several fail, and that a
refused capture writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engram_conformance.spec.engram_memory import Example, canonical_json
from engram_conformance.strategies.engram_memory import envelopes

from ...targets.json_text import json_text
from ...targets.raw_channel import RawChannel
from .argument_examples import cases, example_rules
from .argument_sending import (
    REFUSALS,
    LiveTargets,
    adapted,
    judge_refusal,
    require_accepted_example,
    send,
    sent_broken,
)
from .context import (
    ADMIT,
    CAPTURE,
    CODE_IN_ROW,
    FORGET,
    GET,
    SEARCH,
    WITHDRAW,
    CheckContext,
)
from .registry import check

ARGUMENT_LIMIT = "SCHEMA-009"
CANONICAL_LIMIT = "SCHEMA-037"
ARGUMENT_MAX_BYTES = 1_048_576
TEXT_MAX_BYTES = 65_536
#: Characters a capture at the argument limit carries, which the raw channel writes as \\u
#: escapes (six bytes as sent for two canonical ones).
ESCAPED_CHARACTERS = 2048
#: A digest of the right length whose hex digits are upper case: not the contract's form.
UPPER_CASE_DIGEST = "sha256:" + "AB" * 32
PAST = "2001-01-01T00:00:00.000Z"


# labelled examples ----------------------------------------------------------------------------
async def _judge_examples(ctx: CheckContext, tool: str, family: str) -> None:
    """Send ``tool``'s examples that decide rules of ``family`` and compare the answers, once
    the tool's minimal valid example is accepted (the control of every refusal). An example
    left unanswered charges its own rules, and the next one is sent while the server answers."""
    await require_accepted_example(ctx, tool)
    live = LiveTargets(ctx)
    for example, rules in cases(ctx.spec, tool, family):
        async with ctx.case(rules, f"the example {example.name!r} of {tool}"):
            await _judge_example(ctx, live, example, rules)


async def _judge_example(
    ctx: CheckContext, live: LiveTargets, example: Example, rules: tuple[str, ...]
) -> None:
    tool = example.tool
    if example.valid:
        arguments, identity = adapted(ctx, example)
        observed = await send(ctx, tool, arguments, identity)
        for rule in rules:
            ctx.expect(
                rule,
                envelopes.code(observed) not in REFUSALS,
                expected=f"no {' or '.join(REFUSALS)} for the valid example {example.name!r}"
                f" of {tool}: {example.description}",
                observed=observed,
            )
        return
    case, observed = await sent_broken(
        ctx, live, tool, example.arguments, example.pointer, example.name
    )
    what = (
        f"the example {example.name!r} of {tool}, which breaks "
        f"{example.pointer or 'the argument object'} ({example.description})"
    )
    judge_refusal(ctx, case, rules[0], example.code or "", observed, what)


@check(rules=example_rules(SEARCH, "SCHEMA"), tools=(SEARCH,))
async def search_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, SEARCH, "SCHEMA")


@check(rules=example_rules(GET, "SCHEMA"), tools=(GET,))
async def get_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, GET, "SCHEMA")


@check(rules=example_rules(CAPTURE, "SCHEMA"), tools=(CAPTURE,))
async def capture_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, CAPTURE, "SCHEMA")


@check(rules=example_rules(ADMIT, "SCHEMA"), tools=(ADMIT,))
async def request_admission_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, ADMIT, "SCHEMA")


@check(rules=example_rules(WITHDRAW, "SCHEMA"), tools=(WITHDRAW,))
async def withdraw_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, WITHDRAW, "SCHEMA")


@check(rules=example_rules(FORGET, "SCHEMA"), tools=(FORGET,))
async def forget_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, FORGET, "SCHEMA")


@check(rules=example_rules(CAPTURE, "XREF"), tools=(CAPTURE,))
async def capture_answers_the_labelled_cross_reference_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, CAPTURE, "XREF")


# built cases ------------------------------------------------------------------------------------
def _with_size(ctx: CheckContext, size: int, escaped: int = 0) -> dict[str, Any]:
    """A valid capture whose canonical (RFC 8785) form is exactly ``size`` bytes: the primary
    component and filler components of text, each within the 65,536-byte text bound; the
    first filler starts with ``escaped`` times 'é' (two bytes each), the rest is ASCII."""
    arguments = ctx.capture_arguments(f"large argument {ctx.unique('large')}")
    payload = arguments["payload"]
    cited = payload["components"][0]["citation_ids"]
    fillers = [
        {
            "component_id": f"component:filler-{n}",
            "kind": "context",
            "text": "x",
            "citation_ids": cited,
        }
        for n in range(size // TEXT_MAX_BYTES + 1)
    ]
    fillers[0]["text"] = "é" * escaped + "x"
    payload["components"] += fillers
    missing = size - len(canonical_json(arguments))
    for filler in fillers:
        room = TEXT_MAX_BYTES - len(filler["text"].encode("utf-8"))
        grown = min(room, missing)
        filler["text"] += "x" * grown
        missing -= grown
    ctx.require(missing == 0, f"a capture of {size} canonical bytes could not be built", missing)
    return arguments


@check(rules=(ARGUMENT_LIMIT, CODE_IN_ROW), tools=(CAPTURE,))
async def argument_object_is_bounded_by_one_mebibyte(ctx: CheckContext) -> None:
    """A capture one byte over 1,048,576 canonical bytes is refused as an argument error (its
    canonical form is the shortest serialization a writer may choose, so it is over the bound
    in any). Only capture can be that large and otherwise valid."""
    await require_accepted_example(ctx, CAPTURE)
    over = await send(ctx, CAPTURE, _with_size(ctx, ARGUMENT_MAX_BYTES + 1))
    what = f"a capture of {ARGUMENT_MAX_BYTES + 1} canonical bytes"
    ctx.expect_argument_refusal(ARGUMENT_LIMIT, over, "INVALID_SCHEMA", what)


@check(rules=(CANONICAL_LIMIT,), tools=(CAPTURE,))
async def argument_bound_is_measured_on_the_canonical_form(ctx: CheckContext) -> None:
    """A capture of exactly 1,048,576 canonical bytes passes the argument checks, also when the
    JSON text that carries it is longer: sent over the raw channel, which writes non-ASCII as
    \\u escapes, it is longer than the bound as sent (only where the target has one that
    writes text; a target in process gets the objects). A small valid capture must be
    accepted first: a server that refuses every capture, by any code, is no evidence."""
    await require_accepted_example(ctx, CAPTURE)
    at_limit = await send(ctx, CAPTURE, _with_size(ctx, ARGUMENT_MAX_BYTES))
    ctx.expect(
        CANONICAL_LIMIT,
        envelopes.code(at_limit) not in REFUSALS,
        expected=f"a capture of exactly {ARGUMENT_MAX_BYTES} canonical bytes is not refused",
        observed=at_limit,
    )
    channel = await ctx.session.connection.raw_for(ctx.host.claims(ctx.identity, CAPTURE))
    if not isinstance(channel, RawChannel):
        return
    escaped = _with_size(ctx, ARGUMENT_MAX_BYTES, ESCAPED_CHARACTERS)
    with ctx.session.over(channel):  # a raw channel calls tools as a client does
        longer = await send(ctx, CAPTURE, escaped)
    ctx.expect(
        CANONICAL_LIMIT,
        envelopes.code(longer) not in REFUSALS,
        expected=f"a capture of exactly {ARGUMENT_MAX_BYTES} canonical bytes, sent as "
        f"{len(json_text(escaped))} bytes of JSON text ({ESCAPED_CHARACTERS} characters written "
        "as \\u escapes), is not refused: the bound is measured on the canonical form",
        observed=longer,
    )


Fault = Callable[[dict[str, Any]], None]


def _breach(arguments: dict[str, Any], *faults: Fault) -> dict[str, Any]:
    """``arguments`` with ``faults`` applied."""
    for fault in faults:
        fault(arguments)
    return arguments


def _told(faults: tuple[Fault, ...]) -> str:
    return " and ".join(fault.__doc__ or fault.__name__ for fault in faults)


def bad_content_digest(arguments: dict[str, Any]) -> None:
    """a content_digest not of the digest form (in the payload, sent before the evidence)"""
    arguments["payload"]["citations"][0]["content_digest"] = UPPER_CASE_DIGEST


def bad_evidence_digest(arguments: dict[str, Any]) -> None:
    """an evidence_digest not of the digest form"""
    arguments["evidence"]["evidence_digest"] = UPPER_CASE_DIGEST


def long_attestation(arguments: dict[str, Any]) -> None:
    """an attestation of 4,097 bytes (in the evidence, sent last)"""
    arguments["evidence"]["attestation"] = "a" * 4097


def dangling_evidence_citation(arguments: dict[str, Any]) -> None:
    """an evidence citation that resolves to no citation"""
    arguments["evidence"]["citation_ids"] = ["citation:nowhere"]


def expired(arguments: dict[str, Any]) -> None:
    """a retention that expired in 2001"""
    arguments["payload"]["retention"] = {"derivative_rule": "make-ineligible", "expires_at": PAST}


@check(rules=("SCHEMA-011",), tools=(CAPTURE,))
async def argument_checks_answer_in_their_order(ctx: CheckContext) -> None:
    """Captures that break several argument checks: schema before cross-references before digest
    forms, whatever the order of the fields as sent, and digests before the clock."""
    await require_accepted_example(ctx, CAPTURE)
    cases: list[tuple[tuple[Fault, ...], str, str]] = [
        ((bad_content_digest, long_attestation), "INVALID_SCHEMA", "schema before digests"),
        (
            (bad_content_digest, dangling_evidence_citation),
            "INVALID_SCHEMA",
            "cross-references before digests",
        ),
        ((bad_evidence_digest, expired), "INVALID_DIGEST", "digest forms before the clock"),
    ]
    for faults, code, why in cases:
        observed = await send(ctx, CAPTURE, _breach(ctx.capture_arguments(), *faults))
        ctx.expect(
            "SCHEMA-011",
            envelopes.code(observed) == code,
            expected=f"{code} for a capture with {_told(faults)}: {why}",
            observed=observed,
        )


@check(rules=("XREF-010",), tools=(CAPTURE, SEARCH))
async def refused_capture_writes_nothing(ctx: CheckContext) -> None:
    """A capture refused for a cross-reference, a digest form or the clock leaves its key unused
    (the same key then commits a first capture) and its content unfound. Which code refuses it
    is judged by the rules of each failure, not here."""
    marker = ctx.unique("refused")
    for fault in (dangling_evidence_citation, bad_evidence_digest, expired):
        arguments = _breach(ctx.capture_arguments(f"refused capture {marker}"), fault)
        refused = await send(ctx, CAPTURE, arguments)
        ctx.require(
            envelopes.code(refused) in REFUSALS,
            f"a capture with {_told((fault,))} is refused",
            refused,
        )
        clean = ctx.capture_arguments(key=arguments["idempotency_key"])
        retried = await send(ctx, CAPTURE, clean)
        ctx.expect(
            "XREF-010",
            envelopes.value(retried).get("status") == "committed_pending",
            expected=f"after a refused capture with {_told((fault,))}, its idempotency key is "
            "unused: a clean capture with it is committed_pending",
            observed=retried,
        )
    found = await ctx.found(marker)
    ctx.expect(
        "XREF-010",
        not found,
        expected="no search finds the content of the refused captures",
        observed=found,
    )
