"""Checks of the argument rules (SCHEMA) and of capture's cross-references (XREF).

The cases are the spec's labelled examples (spec/examples): each invalid example must be answered
its labelled code, recorded against its labelled rule; each valid example must not be refused
INVALID_SCHEMA or INVALID_DIGEST, recorded against the rules that bound the fields it sets (the
rules labelled on invalid examples at the same places). An example is adapted to the call's
binding only where it must be: the purpose_ref argument is the bound purpose and a mutation gets a
fresh idempotency key, unless that field is what the example is about. Examples that the purpose
check answers first (HOST) and those that depend on the clock (RET) are left to their families.

What examples cannot show is built here: the 1 MiB bound of the argument object, the order of the
argument checks when several fail, and that a refused capture writes nothing.
"""

from __future__ import annotations

import copy
import json
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from engram_conformance.spec import Example, Spec, canonical_json, load
from mcp.server.lowlevel import Server

from ..host import Identity
from ..observation import Observation
from .context import ADMIT, CAPTURE, FORGET, GET, SEARCH, WITHDRAW, CheckContext
from .registry import check

REFUSALS = ("INVALID_SCHEMA", "INVALID_DIGEST")
#: Rules of an object's shape (closed, no null, required, types, JSON text): they are labelled at
#: every field, so they say nothing about the bounds a valid example sits on.
SHAPE_RULES = frozenset({"SCHEMA-001", "SCHEMA-002", "SCHEMA-003", "SCHEMA-004", "SCHEMA-032"})
UNPAIRED_SURROGATES = "SCHEMA-032"
ZERO_FRACTION = "SCHEMA-033"
NFC = "SCHEMA-006"
KEY = "/idempotency_key"
ARGUMENT_MAX_BYTES = 1_048_576
TEXT_MAX_BYTES = 65_536
#: A digest of the right length whose hex digits are upper case: not the contract's form.
UPPER_CASE_DIGEST = "sha256:" + "AB" * 32
PAST = "2001-01-01T00:00:00.000Z"


# examples: selection, adaptation, attribution -------------------------------------------------
def _sendable(example: Example) -> bool:
    """Invalid examples judged here: not clock-dependent, not answered by an earlier check."""
    return not example.clock_dependent and example.answered_first_by is None


def _base(spec: Spec, tool: str) -> Example:
    return next(e for e in spec.examples if e.tool == tool and e.valid and e.name == "minimal")


def _pattern(pointer: str) -> str:
    """A JSON Pointer with list indices as ``*``, to compare places across examples."""
    return re.sub(r"/\d+(?=/|$)", "/*", pointer)


_ABSENT = object()


def _differences(sent: Any, base: Any, pointer: str = "") -> Iterator[str]:
    """The places (list indices as ``*``) where ``sent`` differs from ``base``, by JSON type too.

    A list of another length differs as a whole (its count is bounded) as well as item by item.
    """
    if isinstance(sent, dict):
        known = base if isinstance(base, dict) else {}
        if not isinstance(base, dict):
            yield pointer
        for key, item in sent.items():
            yield from _differences(item, known.get(key, _ABSENT), f"{pointer}/{key}")
    elif isinstance(sent, list):
        known_items = base if isinstance(base, list) else []
        if len(sent) != len(known_items) or not isinstance(base, list):
            yield pointer
        for index, item in enumerate(sent):
            other = known_items[index] if index < len(known_items) else _ABSENT
            yield from _differences(item, other, f"{pointer}/*")
    elif type(sent) is not type(base) or sent != base:
        yield pointer


def _places(spec: Spec, example: Example) -> set[str]:
    """Where a valid example differs from the tool's minimal one. Examples carry idempotency
    keys of their own: the key counts only when it is the one difference."""
    places = set(_differences(example.arguments, _base(spec, example.tool).arguments))
    return places if places == {KEY} else places - {KEY}


def _subject(spec: Spec, example: Example) -> str | None:
    """The field an example is about: an invalid one's pointer, or the one place where a valid
    one differs from the tool's minimal example."""
    if not example.valid:
        return example.pointer
    places = _places(spec, example)
    return places.pop() if len(places) == 1 else None


def _any_string(value: Any, test: Callable[[str], bool]) -> bool:
    if isinstance(value, str):
        return test(value)
    if isinstance(value, dict):
        return any(_any_string(item, test) for item in value.values())
    if isinstance(value, list):
        return any(_any_string(item, test) for item in value)
    return False


def _has_zero_fraction(value: Any) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(_has_zero_fraction(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_zero_fraction(item) for item in value)
    return False


def _bounding_rules(spec: Spec, example: Example) -> set[str]:
    """The rules a refusal of a valid example breaks.

    An example sending a number with a zero fraction is about SCHEMA-033, one sending free text
    that is not NFC about SCHEMA-006 (free text is taken as sent), the minimal one about the
    shape rules; any other is about the rules labelled, on the tool's invalid examples, at the
    places where it differs from the minimal one, but for the rules labelled at every place of
    their kind (shape and NFC), which say nothing about the value it sends.
    """
    if _has_zero_fraction(example.arguments):
        return {ZERO_FRACTION}
    if _any_string(example.arguments, lambda s: not unicodedata.is_normalized("NFC", s)):
        return {NFC}
    if example.name == "minimal":
        return set(SHAPE_RULES - {UNPAIRED_SURROGATES})
    labelled: dict[str, set[str]] = {}
    for other in spec.examples:
        if other.tool == example.tool and not other.valid:
            labelled.setdefault(_pattern(other.pointer or ""), set()).add(other.rule or "")
    rules = set().union(*(labelled.get(place, set()) for place in _places(spec, example)))
    return {rule for rule in rules - SHAPE_RULES - {NFC} if spec.rules[rule].testable}


def _in_family(rule: str, family: str) -> bool:
    return rule.startswith(f"{family}-")


def _cases(spec: Spec, tool: str, family: str) -> Iterator[tuple[Example, tuple[str, ...]]]:
    """The examples of ``tool`` that decide rules of ``family``, each with those rules."""
    for example in spec.examples:
        if example.tool != tool:
            continue
        if example.valid:
            rules = sorted(r for r in _bounding_rules(spec, example) if _in_family(r, family))
        else:
            labelled = example.rule or ""
            rules = [labelled] if _sendable(example) and _in_family(labelled, family) else []
        if rules:
            yield example, tuple(rules)


def _example_rules(tool: str, family: str) -> tuple[str, ...]:
    """What the examples check of ``tool`` decides for ``family`` (from the packaged spec)."""
    spec = load()
    return tuple(sorted({rule for _, rules in _cases(spec, tool, family) for rule in rules}))


def _adapted(ctx: CheckContext, example: Example) -> tuple[dict[str, Any], Identity]:
    """The example's arguments for this binding, and the identity to send them as.

    The purpose_ref argument becomes the bound purpose (the purpose check answers first
    otherwise); when the example is about its purpose, the identity is bound to that purpose
    instead. A mutation's idempotency key is fresh unless the example is about its key.
    """
    return adapt(ctx, example.tool, example.arguments, _subject(ctx.spec, example), example.name)


def adapt(
    ctx: CheckContext, tool_name: str, sent: dict[str, Any], subject: str | None, label: str
) -> tuple[dict[str, Any], Identity]:
    """A copy of ``sent`` adapted as ``_adapted`` says, ``subject`` being the field it is about."""
    arguments = copy.deepcopy(sent)
    identity = ctx.identity
    tool = ctx.spec.tools[tool_name]
    purpose = tool.purpose_argument
    holder, field = _parent(arguments, purpose) if purpose else (None, "")
    if holder is not None and isinstance(holder.get(field), str):
        if subject == purpose:
            identity = replace(identity, purpose_ref=holder[field])
        else:
            holder[field] = identity.purpose_ref
    if (
        tool.idempotency_key
        and subject != KEY
        and isinstance(arguments.get("idempotency_key"), str)
    ):
        arguments["idempotency_key"] = ctx.key(label)
    return arguments, identity


def _parent(document: Any, pointer: str) -> tuple[dict[str, Any] | None, str]:
    """The object holding the last step of ``pointer``, and that step (None if absent)."""
    *steps, last = pointer.split("/")[1:]
    for step in steps:
        document = document.get(step) if isinstance(document, dict) else None
    return (document if isinstance(document, dict) else None), last


# sending ----------------------------------------------------------------------------------------
def _json_text_holds(arguments: Any) -> bool:
    """Whether JSON text can carry ``arguments`` (no unpaired surrogate, no non-finite number)."""
    try:
        json.dumps(arguments, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except ValueError:  # UnicodeEncodeError included
        return False
    return True


def _objects_travel_as_is(ctx: CheckContext) -> bool:
    """In process the SDK hands the server the Python objects; over stdio and HTTP it writes
    JSON text, which cannot hold an unpaired surrogate (its writer fails, and the session with
    it), so such arguments need a byte-level client the harness does not have."""
    return isinstance(getattr(ctx.session.connection.default, "server", None), Server)


def _approval(ctx: CheckContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A human approval of this call; where none can be bound to it (no string target, or
    arguments that have no canonical form) one of other arguments: present, so that the
    argument checks, which come before the gate, answer."""
    target = ctx.spec.tools[tool].target or ""
    if isinstance(arguments.get(target), str) and arguments[target]:
        try:
            return ctx.host.confirmation(tool, arguments)
        except ValueError:  # rfc8785 cannot canonicalize an unpaired surrogate
            pass
    return ctx.host.confirmation(tool, {target: f"unconfirmable-{ctx.unique('target')}"})


async def _send(
    ctx: CheckContext, tool: str, arguments: dict[str, Any], identity: Identity | None = None
) -> Observation:
    """One call of ``tool``, with a human approval when the tool needs one."""
    if ctx.needs_confirmation(tool):
        approval = _approval(ctx, tool, arguments)
        return await ctx.call(tool, arguments, identity=identity, confirmation=approval)
    return await ctx.call(tool, arguments, identity=identity)


async def _judge_examples(ctx: CheckContext, tool: str, family: str) -> None:
    """Send ``tool``'s examples that decide rules of ``family`` and compare the answers."""
    unsent = []
    for example, rules in _cases(ctx.spec, tool, family):
        arguments, identity = _adapted(ctx, example)
        if not _json_text_holds(arguments) and not _objects_travel_as_is(ctx):
            unsent.append(example)
            continue
        observed = await _send(ctx, tool, arguments, identity)
        if example.valid:
            for rule in rules:
                ctx.expect(
                    rule,
                    observed.code not in REFUSALS,
                    expected=f"no {' or '.join(REFUSALS)} for the valid example {example.name!r}"
                    f" of {tool}: {example.description}",
                    observed=observed,
                )
        else:
            ctx.expect(
                rules[0],
                observed.code == example.code,
                expected=f"{example.code} for the example {example.name!r} of {tool}, which "
                f"breaks {example.pointer or 'the argument object'}: {example.description}",
                observed=observed,
            )
    if unsent:
        names = ", ".join(e.name for e in unsent)
        ctx.ledger.errored(
            UNPAIRED_SURROGATES,
            ctx.check,
            f"not sent ({names}): JSON text written by the harness's MCP client cannot hold an "
            "unpaired surrogate; this rule needs an in-process target or a byte-level client",
        )


@check(rules=_example_rules(SEARCH, "SCHEMA"), tools=(SEARCH,))
async def search_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, SEARCH, "SCHEMA")


@check(rules=_example_rules(GET, "SCHEMA"), tools=(GET,))
async def get_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, GET, "SCHEMA")


@check(rules=_example_rules(CAPTURE, "SCHEMA"), tools=(CAPTURE,))
async def capture_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, CAPTURE, "SCHEMA")


@check(rules=_example_rules(ADMIT, "SCHEMA"), tools=(ADMIT,))
async def request_admission_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, ADMIT, "SCHEMA")


@check(rules=_example_rules(WITHDRAW, "SCHEMA"), tools=(WITHDRAW,))
async def withdraw_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, WITHDRAW, "SCHEMA")


@check(rules=_example_rules(FORGET, "SCHEMA"), tools=(FORGET,))
async def forget_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, FORGET, "SCHEMA")


@check(rules=_example_rules(CAPTURE, "XREF"), tools=(CAPTURE,))
async def capture_answers_the_labelled_cross_reference_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, CAPTURE, "XREF")


# built cases ------------------------------------------------------------------------------------
def _with_size(ctx: CheckContext, size: int) -> dict[str, Any]:
    """A valid capture whose canonical (RFC 8785) form is exactly ``size`` bytes: the primary
    component and filler components of ASCII text, each within the 65,536-byte text bound."""
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
    payload["components"] += fillers
    missing = size - len(canonical_json(arguments))
    for filler in fillers:
        grown = min(TEXT_MAX_BYTES - 1, missing)
        filler["text"] += "x" * grown
        missing -= grown
    ctx.require(missing == 0, f"a capture of {size} canonical bytes could not be built", missing)
    return arguments


@check(rules=("SCHEMA-009",), tools=(CAPTURE,))
async def argument_object_is_bounded_by_one_mebibyte(ctx: CheckContext) -> None:
    """A capture of exactly 1,048,576 canonical bytes passes the argument checks; one byte more
    is INVALID_SCHEMA. Only capture can be that large and otherwise valid."""
    at_limit = await _send(ctx, CAPTURE, _with_size(ctx, ARGUMENT_MAX_BYTES))
    ctx.expect(
        "SCHEMA-009",
        at_limit.code not in REFUSALS,
        expected=f"a capture of exactly {ARGUMENT_MAX_BYTES} canonical bytes is not refused",
        observed=at_limit,
    )
    over = await _send(ctx, CAPTURE, _with_size(ctx, ARGUMENT_MAX_BYTES + 1))
    ctx.expect(
        "SCHEMA-009",
        over.code == "INVALID_SCHEMA",
        expected=f"INVALID_SCHEMA for a capture of {ARGUMENT_MAX_BYTES + 1} canonical bytes",
        observed=over,
    )


Fault = Callable[[dict[str, Any]], None]


def _breach(arguments: dict[str, Any], *faults: Fault) -> dict[str, Any]:
    """``arguments`` with ``faults`` applied."""
    for fault in faults:
        fault(arguments)
    return arguments


def _told(faults: tuple[Fault, ...]) -> str:
    return " and ".join(fault.__doc__ or fault.__name__ for fault in faults)


def _bad_content_digest(arguments: dict[str, Any]) -> None:
    """a content_digest not of the digest form (in the payload, sent before the evidence)"""
    arguments["payload"]["citations"][0]["content_digest"] = UPPER_CASE_DIGEST


def _bad_evidence_digest(arguments: dict[str, Any]) -> None:
    """an evidence_digest not of the digest form"""
    arguments["evidence"]["evidence_digest"] = UPPER_CASE_DIGEST


def _long_attestation(arguments: dict[str, Any]) -> None:
    """an attestation of 4,097 bytes (in the evidence, sent last)"""
    arguments["evidence"]["attestation"] = "a" * 4097


def _dangling_evidence_citation(arguments: dict[str, Any]) -> None:
    """an evidence citation that resolves to no citation"""
    arguments["evidence"]["citation_ids"] = ["citation:nowhere"]


def _expired(arguments: dict[str, Any]) -> None:
    """a retention that expired in 2001"""
    arguments["payload"]["retention"] = {"derivative_rule": "make-ineligible", "expires_at": PAST}


@check(rules=("SCHEMA-011",), tools=(CAPTURE,))
async def argument_checks_answer_in_their_order(ctx: CheckContext) -> None:
    """Captures that break several argument checks: schema before cross-references before digest
    forms, whatever the order of the fields as sent, and digests before the clock."""
    cases: list[tuple[tuple[Fault, ...], str, str]] = [
        ((_bad_content_digest, _long_attestation), "INVALID_SCHEMA", "schema before digests"),
        (
            (_bad_content_digest, _dangling_evidence_citation),
            "INVALID_SCHEMA",
            "cross-references before digests",
        ),
        ((_bad_evidence_digest, _expired), "INVALID_DIGEST", "digest forms before the clock"),
    ]
    for faults, code, why in cases:
        observed = await _send(ctx, CAPTURE, _breach(ctx.capture_arguments(), *faults))
        ctx.expect(
            "SCHEMA-011",
            observed.code == code,
            expected=f"{code} for a capture with {_told(faults)}: {why}",
            observed=observed,
        )


@check(rules=("XREF-010",), tools=(CAPTURE, SEARCH))
async def refused_capture_writes_nothing(ctx: CheckContext) -> None:
    """A capture refused for a cross-reference, a digest form or the clock leaves its key unused
    (the same key then commits a first capture) and its content unfound. Which code refuses it
    is judged by the rules of each failure, not here."""
    marker = ctx.unique("refused")
    for fault in (_dangling_evidence_citation, _bad_evidence_digest, _expired):
        arguments = _breach(ctx.capture_arguments(f"refused capture {marker}"), fault)
        refused = await _send(ctx, CAPTURE, arguments)
        ctx.require(
            refused.code in REFUSALS, f"a capture with {_told((fault,))} is refused", refused
        )
        clean = ctx.capture_arguments(key=arguments["idempotency_key"])
        retried = await _send(ctx, CAPTURE, clean)
        ctx.expect(
            "XREF-010",
            retried.value.get("status") == "committed_pending",
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
