"""Host binding: the signed invocation context and what arguments can never carry.

These checks play the host of the signed-meta profile (DESIGN.md, "Host binding") and also forge
the contexts a server must refuse: raw claims, unsigned tokens, another key, wrong headers, bad
times, missing claims, claims of the wrong form. A refused context is JSON-RPC error -32603;
an unknown or disabled tool -32602. Each refusal is judged against a control call whose context
is valid, so that a server that refuses everything does not pass: a protocol refusal's control
must pass the protocol checks (a result), an argument refusal's be accepted (ok, NOT_FOUND for a
target nobody issued); otherwise the check stops, ``error`` ("the server accepts nothing"),
before any verdict. Per-tool authorization is
``tool_authorization``'s, the order of checks ``check_order``'s; all three use ``calls``.

A ``must`` check whose expected answer depends on the target not being refused first for
another reason (an argument the schema refuses, say) calls a live target (``subject``): the seed
orders none of its refusals, so only the clause under test can refuse such a call.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from engram_conformance.spec.engram_memory import instant, wall_clock_ms
from engram_conformance.strategies.engram_memory import envelopes

from ..host import Identity
from ..signed_meta import ContextSigner
from . import context_cases
from .calls import (
    CONTEXT_UNAVAILABLE,
    NOT_A_TOOL,
    UNKNOWN_RECORD,
    UNKNOWN_TOOL,
    arguments,
    claims,
    expect_code,
    first_time,
    offered,
    require_answered,
    send,
    signed_meta_only,
    subject,
    with_purpose,
)
from .context import ADMIT, CAPTURE, GET, SEARCH, CheckContext
from .registry import check

#: An expected answer: the one the same call with a valid context got.
LIKE_CONTROL = "the answer with a valid context"
#: Arguments that would select maintenance (contract text, section 0); none is a tool argument.
MAINTENANCE_ARGUMENTS = {
    "admin": True,
    "bootstrap": True,
    "rotate_keys": True,
    "revoke": "principal-1",
    "backup": True,
    "restore": "backup-1",
    "migrate": True,
    "invalidate_projection": True,
    "supersedes": UNKNOWN_RECORD,
    "dispute": True,
    "rewind_to": "cursor-1",
    "expire": True,
    "include_history": True,
    "include_candidates": True,
}
#: The maintenance operations the seed lists (section 0), each with the word stems a tool name
#: for it has (``maintenance_operation``).
MAINTENANCE_STEMS: dict[str, tuple[str, ...]] = {
    "administration": ("admin",),
    "bootstrap": ("bootstrap",),
    "rotation": ("rotat",),
    "revocation": ("revok", "revoc"),
    "backup": ("backup",),
    "restore": ("restor",),
    "migration": ("migrat",),
    "projection invalidation": ("invalidat",),
    "supersession": ("supersed", "supersess"),
    "dispute": ("disput",),
    "rewind": ("rewind", "rollback"),
    "expiry": ("expir",),
    "history": ("histor",),
    "candidate inspection": ("candidat",),
}
#: A tool whose name has one of these words is a memory tool (HOST-013 judges only those).
MEMORY_WORDS = re.compile(r"memory|engram", re.IGNORECASE)
TRUST_CLASSES = ("earned", "asserted", "signed")

#: a case: its claims, the token signing them (None: the host signs), the expected answer
Case = tuple[dict[str, Any], "str | None", Any]
Cases = Mapping[str, Case]


async def _judge_contexts(
    ctx: CheckContext, rule: str, cases: Callable[[str, dict[str, Any]], Cases]
) -> None:
    """For each offered tool: a control call with a valid context, then each case's context.

    A case is (claims, token or None for the claims signed by the host, the expected answer:
    a JSON-RPC error code or ``LIKE_CONTROL``).
    """
    for tool in await offered(ctx):
        sent = arguments(ctx, tool)
        control = await send(ctx, tool, sent, claims(ctx, tool, sent))
        what = f"{tool} with a valid context (the control)"
        ctx.require_accepted(control, what, control.outcome == "result")
        for case, (bound, token, wanted) in cases(tool, sent).items():
            observed = await send(ctx, tool, sent, bound, token)
            if wanted == LIKE_CONTROL:
                ctx.expect(
                    rule,
                    observed.outcome == "result"
                    and envelopes.code(observed) == envelopes.code(control),
                    expected=f"{tool}, {case}: answered like a valid context "
                    f"({envelopes.code(control)})",
                    observed=observed,
                )
            else:
                expect_code(ctx, rule, observed, wanted, f"{tool}, {case}")


def _refused(
    bound: dict[str, Any], cases: Mapping[str, context_cases.ClaimCase]
) -> dict[str, Case]:
    """Each case's claims, to be refused with -32603."""
    return {name: (case.applied(bound), None, CONTEXT_UNAVAILABLE) for name, case in cases.items()}


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _compact(header: dict[str, Any], payload: bytes, sign: Callable[[bytes], bytes]) -> str:
    signing_input = f"{_b64(json.dumps(header).encode())}.{_b64(payload)}"
    return f"{signing_input}.{_b64(sign(signing_input.encode()))}"


def _forgeries(ctx: CheckContext, bound: dict[str, Any]) -> dict[str, str]:
    """Contexts carrying valid claims that a server must not trust."""
    signer = ctx.host.signer
    payload = json.dumps(bound).encode()
    typ = ctx.spec.schema(ctx.spec.contract["binding_schema"])["x-header"]["typ"]
    public_pem = signer.public_pem()
    signed = signer.sign(bound)
    return {
        "the claims as plain JSON, not a compact JWS": payload.decode(),
        "an unsigned JWS (alg none)": _compact({"alg": "none", "typ": typ}, payload, lambda _: b""),
        "a JWS with its signature removed": signed.rsplit(".", 1)[0] + ".",
        "alg HS256 keyed with the host's public key": _compact(
            {"alg": "HS256", "typ": typ},
            payload,
            lambda data: hmac.new(public_pem, data, hashlib.sha256).digest(),
        ),
        "typ JWT instead of the profile's": signer.sign(bound, headers={"typ": "JWT"}),
        "signed with a key other than the host's": ContextSigner(ctx.spec).sign(bound),
    }


# HOST-001 to HOST-005: the context ------------------------------------------------------------
@check(rules=("HOST-001",), requires=signed_meta_only)
async def call_without_a_context_is_refused(ctx: CheckContext) -> None:
    """Each offered tool without a context, once the same call with one is answered."""
    for tool in await offered(ctx):
        await require_answered(ctx, tool)
        sent = arguments(ctx, tool)
        for meta in (None, {"example.org/trace": "trace-1"}):
            observed = await ctx.session.call(tool, sent, meta, None)
            expect_code(ctx, "HOST-001", observed, CONTEXT_UNAVAILABLE, f"{tool} with _meta {meta}")


@check(rules=("HOST-002",), requires=signed_meta_only)
async def untrusted_context_is_refused(ctx: CheckContext) -> None:
    def cases(tool: str, sent: dict[str, Any]) -> Cases:
        bound = claims(ctx, tool, sent)
        return {
            case: (bound, token, CONTEXT_UNAVAILABLE)
            for case, token in _forgeries(ctx, bound).items()
        }

    await _judge_contexts(ctx, "HOST-002", cases)


@check(rules=("HOST-003",), requires=signed_meta_only)
async def context_times_are_checked(ctx: CheckContext) -> None:
    """Expired, too long-lived and issued-in-the-future contexts are refused; 5 s of skew on
    ``iat`` and a 300 s lifetime are accepted (with margins for the two clocks)."""

    def cases(tool: str, sent: dict[str, Any]) -> Cases:
        bound, now_s = claims(ctx, tool, sent), wall_clock_ms() // 1000
        refused = _refused(bound, context_cases.untimely(now_s))
        return {
            **refused,
            **{
                case: ({**bound, **times}, None, LIKE_CONTROL)
                for case, times in context_cases.timely(now_s).items()
            },
        }

    await _judge_contexts(ctx, "HOST-003", cases)


@check(rules=("HOST-004",), requires=signed_meta_only)
async def context_claims_are_required_or_optional(ctx: CheckContext) -> None:
    """Each required claim missing is refused; an optional claim that is null counts as absent.
    A null confirmation of withdraw and forget (absent, it refuses them with -32603) is tried by
    the gate checks on live targets (``gate._expect_unconfirmed_refused``), also under HOST-004."""
    required = ctx.spec.schema(ctx.spec.contract["binding_schema"])["required"]

    def cases(tool: str, sent: dict[str, Any]) -> Cases:
        bound = claims(ctx, tool, sent)
        found = _refused(bound, context_cases.missing(required))
        optional = ["deadline", "cancellation_ref", "tools"]
        if not ctx.needs_confirmation(tool):
            optional.append("confirmation")
        for claim in optional:
            found[f"{claim} null"] = ({**bound, claim: None}, None, LIKE_CONTROL)
        return found

    await _judge_contexts(ctx, "HOST-004", cases)


@check(rules=("HOST-005",), requires=signed_meta_only)
async def context_for_another_tool_is_refused(ctx: CheckContext) -> None:
    def cases(tool: str, sent: dict[str, Any]) -> Cases:
        bound = claims(ctx, tool, sent)
        return _refused(bound, context_cases.another_tool(tool, list(ctx.spec.tools)))

    await _judge_contexts(ctx, "HOST-005", cases)


@check(rules=("HOST-023",), requires=signed_meta_only)
async def context_claims_of_the_wrong_form_are_refused(ctx: CheckContext) -> None:
    """A signed context whose claim has the wrong type or form is refused with -32603
    (``context_cases.malformed``). A malformed confirmation is not tried: it answers
    gate_failed (GATE-006)."""

    def cases(tool: str, sent: dict[str, Any]) -> Cases:
        bound = claims(ctx, tool, sent)
        return _refused(bound, context_cases.malformed(bound, tool, wall_clock_ms()))

    await _judge_contexts(ctx, "HOST-023", cases)


@check(rules=("HOST-006",))
async def purpose_other_than_the_bound_one_is_refused(ctx: CheckContext) -> None:
    """On a live target (get: a current record), so that NOT_FOUND, which the seed does not
    order after the protocol refusal, cannot answer first."""
    bound_purpose = ctx.identity.purpose_ref
    for tool in await offered(ctx):
        if ctx.spec.tools[tool].purpose_argument is None:
            continue
        sent = await subject(ctx, tool)
        control = await ctx.call_approved(tool, sent)
        what = f"{tool} with the bound purpose (the control)"
        ctx.require_accepted(control, what, control.outcome == "result")
        for purpose in context_cases.other_purposes(bound_purpose):
            observed = await ctx.call_approved(tool, with_purpose(ctx, tool, sent, purpose))
            expect_code(
                ctx,
                "HOST-006",
                observed,
                CONTEXT_UNAVAILABLE,
                f"{tool} with purpose_ref {purpose!r} while {bound_purpose!r} is bound",
            )


# HOST-007 to HOST-011: which tools exist and are enabled ------------------------------------------
@check(rules=("HOST-007",))
async def unknown_tool_is_refused(ctx: CheckContext) -> None:
    """Names of no tool, once an offered tool, called validly, is answered."""
    for tool in (await offered(ctx))[:1]:
        await require_answered(ctx, tool)
    for name in NOT_A_TOOL:
        observed = await ctx.call(name, {})
        expect_code(ctx, "HOST-007", observed, UNKNOWN_TOOL, f"a call of {name}")


@check(rules=("HOST-010",), requires=signed_meta_only)
async def tools_list_with_an_untrusted_context_is_refused(ctx: CheckContext) -> None:
    """tools/list verifies its context as a call does: forgeries, the times of HOST-003 and
    each required claim but ``tool`` (which tools/list does not check, HOST-022) missing."""
    bound = ctx.host.claims(ctx.identity, SEARCH)
    sign = ctx.host.signer.sign
    control, _ = await ctx.session.list_tools({ctx.host.signer.meta_key: sign(bound)})
    ctx.require(control.outcome == "result", "tools/list with a valid context answers", control)
    required = ctx.spec.schema(ctx.spec.contract["binding_schema"])["required"]
    broken = {
        **context_cases.untimely(wall_clock_ms() // 1000),
        **context_cases.missing(claim for claim in required if claim != "tool"),
    }
    untrusted = {
        **_forgeries(ctx, bound),
        **{f"a context: {case}": sign(claim.applied(bound)) for case, claim in broken.items()},
    }
    for case, token in untrusted.items():
        observed, _ = await ctx.session.list_tools({ctx.host.signer.meta_key: token})
        expect_code(ctx, "HOST-010", observed, CONTEXT_UNAVAILABLE, f"tools/list with {case}")


# HOST-013, HOST-014, HOST-017: what arguments can never carry ------------------------------------
def maintenance_operation(name: str) -> str | None:
    """The maintenance operation of the seed's list a tool ``name`` is named for, if any.

    The name's words (split at anything but letters and digits, and where a lower-case letter
    meets an upper-case one; lower-cased) are read, each alone and each joined with the next
    (``back_up`` reads as ``backup``); a word starting with one of an operation's stems
    (``MAINTENANCE_STEMS``: ``admin`` for administration, ``restor`` for restore, ``histor``
    for history, ``candidat`` for candidate inspection...) names that operation. None of the six
    tools has such a word: ``admission`` does not start with ``admin``.
    """
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    words = [word.lower() for word in re.split(r"[^A-Za-z0-9]+", spaced) if word]
    readings = words + [first + second for first, second in itertools.pairwise(words)]
    for operation, stems in MAINTENANCE_STEMS.items():
        if any(reading.startswith(stem) for reading in readings for stem in stems):
            return operation
    return None


@check(rules=("HOST-013",))
async def maintenance_is_never_a_tool_or_an_argument(ctx: CheckContext) -> None:
    """No listed memory tool (its name says memory or engram: a server may serve other tools,
    such as a repository's history) is named for a maintenance operation the seed lists (the
    name test is ``maintenance_operation``'s), and no offered tool takes an argument selecting
    one: on a live target, such an argument is INVALID_SCHEMA (the seed: an extra field is
    INVALID_SCHEMA)."""
    _, tools = await ctx.session.list_tools()
    memory_tools = [tool.name for tool in tools if MEMORY_WORDS.search(tool.name)]
    named = {name: maintenance_operation(name) for name in memory_tools}
    maintenance = {name: operation for name, operation in named.items() if operation}
    ctx.expect(
        "HOST-013",
        not maintenance,
        expected="no listed tool named for a maintenance operation",
        observed=maintenance,
    )
    await _expect_extra_arguments_refused(ctx, "HOST-013", MAINTENANCE_ARGUMENTS)


async def _expect_extra_arguments_refused(
    ctx: CheckContext, rule: str, extras: Mapping[str, Any]
) -> None:
    """Each offered tool, called validly on a live target (``subject``: the extra argument is
    the only thing to refuse) with one argument of ``extras`` added: INVALID_SCHEMA. After any
    other answer the target may have changed, so the next call gets a new one. The control
    comes first: the call without any extra argument is accepted (then a tool that changes
    its target gets a new one)."""
    for tool in await offered(ctx):
        sent = await subject(ctx, tool)
        control = await ctx.call_approved(tool, sent)
        ctx.require_accepted(control, f"{tool} called validly, without extras (the control)")
        if ctx.spec.tools[tool].kind != "read":
            sent = await subject(ctx, tool)
        for name, value in extras.items():
            observed = await ctx.call_approved(tool, {**sent, name: value})
            expect_code(ctx, rule, observed, "INVALID_SCHEMA", f"{tool} with an argument {name}")
            if envelopes.code(observed) != "INVALID_SCHEMA":
                sent = await subject(ctx, tool)


def host_owned(other: Identity, past: str) -> dict[str, Any]:
    """Arguments naming what only the host binds (seed section 0): ``other``'s scope and
    principal, an agent, session, credential, audit id, a ``past`` deadline, a cancellation, a
    confirmation and an elicitation reference."""
    return {
        "tenant": other.tenant,
        "workspace": other.workspace,
        "scope": {"tenantId": other.tenant, "workspaceId": other.workspace},
        "principal": other.principal,
        "agent_id": "agent:from-arguments",
        "session": "session:from-arguments",
        "credential": "credential-from-arguments",
        "auditId": "audit-from-arguments",
        "deadline": past,
        "cancellation": "cancellation-from-arguments",
        "confirmation": {"ref": "approval-from-arguments", "approved_at": past},
        "elicitationRef": "elicitation-from-arguments",
    }


@check(rules=("HOST-014",))
async def host_owned_values_are_never_arguments(ctx: CheckContext) -> None:
    past = instant(wall_clock_ms() - 60_000)
    await _expect_extra_arguments_refused(
        ctx, "HOST-014", host_owned(ctx.new_identity("elsewhere"), past)
    )


@check(rules=("HOST-017",), tools=(CAPTURE,))
async def trust_class_is_assigned_by_the_host(ctx: CheckContext) -> None:
    """A capture payload carrying trust is INVALID_SCHEMA: the caller never sets the class.
    That records carry one of this kit's three classes is LIFE-007's
    (``records_carry_a_trust_class``). A capture without trust is accepted first (the
    control)."""
    control = await ctx.capture()
    ctx.require_accepted(control, "a capture whose payload has no trust (the control)")
    sent = ctx.capture_arguments()
    sent["payload"]["trust"] = {"class": "signed"}
    observed = await ctx.capture(sent)
    expect_code(ctx, "HOST-017", observed, "INVALID_SCHEMA", "a capture whose payload has trust")


@check(rules=("LIFE-007",), tools=(CAPTURE, ADMIT, SEARCH, GET))
async def records_carry_a_trust_class(ctx: CheckContext) -> None:
    """LIFE-007's trust part (DESIGN, Finer points / Outputs): every record search and get
    return carries ``trust.class`` among earned, asserted and signed. Here, next to HOST-017,
    since the class is the host's to assign; the other record fields are ``lifecycle``'s."""
    if "trust" in ctx.policy.redacted_fields:
        ctx.not_applicable("LIFE-007", "the target declares that it hides trust from records")
        return
    text = ctx.unique("trust")
    record_id = await ctx.accepted(f"trust class check {text}")
    found = await ctx.search(text)
    read = await ctx.get(record_id)
    packets = [*envelopes.value(found).get("records", []), envelopes.value(read)]
    ctx.require(
        envelopes.ok(found) and envelopes.ok(read) and len(packets) > 1,
        "search and get return the record",
        packets,
    )
    for packet in packets:
        record = packet.get("record", {})
        trust = record.get("trust")
        ctx.expect(
            "LIFE-007",
            isinstance(trust, dict) and trust.get("class") in TRUST_CLASSES,
            expected=f"record {record.get('record_id')} with trust.class among {TRUST_CLASSES}",
            observed={"trust": trust},
        )


# HOST-015, HOST-016: the deadline, and the order of checks ---------------------------------------
@check(rules=("HOST-015",), tools=(CAPTURE, ADMIT), requires=signed_meta_only)
async def passed_deadline_is_exceeded_and_writes_nothing(ctx: CheckContext) -> None:
    """A passed deadline answers DEADLINE_EXCEEDED; the same call with a deadline still ahead
    then runs for the first time (nothing was kept: no state change, no key reserved). A read
    changes nothing, so its control, the call with a deadline ahead, comes first."""
    for tool in await offered(ctx):
        sent = await subject(ctx, tool)
        if ctx.spec.tools[tool].kind == "read":
            ahead = instant(wall_clock_ms() + 60_000)
            control = await send(ctx, tool, sent, claims(ctx, tool, sent, deadline=ahead))
            ctx.require_accepted(control, f"{tool} with a deadline ahead (the control)")
        late = await send(
            ctx, tool, sent, claims(ctx, tool, sent, deadline=instant(wall_clock_ms() - 1_000))
        )
        error = (envelopes.envelope(late) or {}).get("error") or {}
        ctx.expect(
            "HOST-015",
            envelopes.code(late) == "DEADLINE_EXCEEDED" and error.get("retriable") is True,
            expected=f"{tool} past its deadline: DEADLINE_EXCEEDED, retriable true",
            observed=late,
        )
        if ctx.spec.tools[tool].kind == "read":
            continue
        ahead = instant(wall_clock_ms() + 60_000)
        in_time = await send(ctx, tool, sent, claims(ctx, tool, sent, deadline=ahead))
        ctx.expect(
            "HOST-015",
            first_time(in_time),
            expected=f"{tool} then runs for the first time: the late call wrote nothing",
            observed=in_time,
        )
