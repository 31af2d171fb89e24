"""Per-call checks of error envelopes against the catalogue, and of success values' schemas."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engram_conformance.spec.engram_memory import Spec, load, schema_rules
from engram_conformance.strategies.engram_memory import envelopes

from ...observation import Observation
from ...per_call_context import PerCallContext
from .answers import ECHO_MIN_LENGTH, expect_breaches
from .calls import signed_meta_only
from .context import ADMIT, GET, SEARCH, CheckContext
from .registry import check, per_call


def _output_rules() -> tuple[str, ...]:
    """The rules the constraints of the output schemas enforce (from the packaged spec)."""
    spec = load()
    return tuple(
        sorted(
            {
                rule
                for tool in spec.tools.values()
                for rule in schema_rules(spec, tool.output_schema)
            }
        )
    )


def _error(observed: Observation) -> dict[str, Any] | None:
    envelope = envelopes.envelope(observed)
    if observed.method != "tools/call" or envelope is None or envelope.get("ok") is not False:
        return None
    error = envelope.get("error")
    return error if isinstance(error, dict) else None


@per_call(rules=("ERR-002", "ERR-003", "ERR-005"))
def error_matches_the_catalogue(ctx: PerCallContext) -> None:
    """The code, retriable and tool of an error against the catalogue (the types of its fields
    are the envelope schema's, ERR-001)."""
    error = _error(ctx.observed)
    if error is None:
        return
    code, retriable = error.get("code"), error.get("retriable")
    entry = ctx.spec.errors.get(code) if isinstance(code, str) else None
    ctx.expect(
        "ERR-002",
        entry is not None,
        expected="a code of the contract's error table",
        observed=repr(code),
    )
    if entry is None:
        return
    ctx.expect(
        "ERR-003",
        retriable is entry.retriable,
        expected=f"retriable {entry.retriable} for {code}",
        observed=f"retriable {retriable!r}",
    )
    ctx.expect(
        "ERR-005",
        ctx.observed.tool in entry.tools,
        expected=f"{code} only from {', '.join(entry.tools)}",
        observed=f"from {ctx.observed.tool}",
    )


@per_call(rules=("ERR-004", "ERR-007"))
def error_message_is_constant(ctx: PerCallContext) -> None:
    """The seed's constant messages (ERR-004): a tool answers a code with one message for calls
    that send the same fields, whatever their values. DESIGN's ruling (ERR-007): one message per
    code, whatever the tool or the fields (a message may name the field it refuses)."""
    observed = ctx.observed
    error = _error(observed)
    if error is None or not isinstance(error.get("code"), str):
        return
    code, message = error["code"], error.get("message")
    fields = tuple(sorted(set(_places(observed.arguments))))
    first = ctx.memory.setdefault(("fields", observed.tool, code, fields), message)
    ctx.expect(
        "ERR-004",
        message == first,
        expected=f"the message {observed.tool} first answered {code} with, for calls sending "
        f"the same fields: {first!r}",
        observed=repr(message),
    )
    first_of_code = ctx.memory.setdefault(("code", code), message)
    ctx.expect(
        "ERR-007",
        message == first_of_code,
        expected=f"the message first seen for {code}: {first_of_code!r}",
        observed=repr(message),
    )


@per_call(rules=("ENV-007",))
def error_message_never_echoes_input(ctx: PerCallContext) -> None:
    """No argument value sent appears in the message. What a constant message may well hold
    is no echo: values too short to tell apart from any word, plain words (letters only, such
    as a generated "arguments"), and the contract's own vocabulary (the enumerated values of
    the tool's arguments, such as "lexical_and_semantic")."""
    observed = ctx.observed
    error = _error(observed)
    if error is None or not isinstance(error.get("message"), str):
        return
    if observed.tool not in ctx.memory:
        ctx.memory[observed.tool] = _vocabulary(ctx.spec, observed.tool)
    echoed = [
        s
        for s in _strings(observed.arguments)
        if len(s) >= ECHO_MIN_LENGTH
        and not s.isalpha()
        and s not in ctx.memory[observed.tool]
        and s in error["message"]
    ]
    ctx.expect(
        "ENV-007",
        not echoed,
        expected="a constant message naming nothing that was sent",
        observed=f"the message {error['message']!r} contains {echoed[0]!r}" if echoed else "",
    )


def _vocabulary(spec: Spec, tool: str | None) -> frozenset[str]:
    """The strings the tool's input schema enumerates (``enum`` and ``const``), anywhere (none
    for a call of no tool)."""
    if tool not in spec.tools:
        return frozenset()
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            found.update(v for v in node.get("enum", ()) if isinstance(v, str))
            if isinstance(node.get("const"), str):
                found.add(node["const"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(spec.input_validator(tool).schema)
    return frozenset(found)


@per_call(rules=_output_rules())
def success_value_matches_the_output_schema(ctx: PerCallContext) -> None:
    """A success's output value against its tool's output schema, each breach charged to the
    rule of the constraint that failed: the fields and values the seed gives are ``must``
    rules, the types and forms this kit decides ``profile`` ones."""
    observed, spec = ctx.observed, ctx.spec
    if not envelopes.ok(observed) or observed.tool not in spec.tools:
        return
    output = envelopes.envelope(observed).get("output") if envelopes.envelope(observed) else None
    value = output.get("value") if isinstance(output, dict) else None
    expect_breaches(
        ctx,
        spec.tools[observed.tool].output_schema,
        value,
        what=f"an output value of {observed.tool} per spec/engram_memory/schemas",
    )


def _places(value: Any, pointer: str = "") -> Iterator[str]:
    """The JSON Pointers of the values in ``value``, list indices as ``*``: the fields sent."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _places(item, f"{pointer}/{key}")
    elif isinstance(value, list):
        for item in value:
            yield from _places(item, f"{pointer}/*")
    else:
        yield pointer


def _strings(value: Any) -> Iterator[str]:
    """The string values in ``value``: argument names are not input a message could echo (a
    constant message may name a field, such as "exceeds max_packet_bytes")."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@check(rules=("ERR-006",), requires=signed_meta_only)
async def protocol_errors_are_provoked(ctx: CheckContext) -> None:
    """An unknown tool and a call without any context: the two protocol errors, whose messages
    the per-call check ``protocol_errors_carry_their_constant_messages`` judges."""
    unknown = await ctx.call("engram_memory_purge", {})
    missing = await ctx.call("engram_memory_search", {"query": "q", "purpose_ref": "p"}, meta={})
    for observed, code in ((unknown, -32602), (missing, -32603)):
        ctx.expect(
            "ERR-006",
            envelopes.code(observed) == code,
            expected=f"JSON-RPC error {code}",
            observed=observed,
        )


@check(rules=("ERR-004",), tools=(SEARCH, GET, ADMIT))
async def messages_do_not_vary_with_the_values_sent(ctx: CheckContext) -> None:
    """Pairs of failing calls of one tool that send the same fields with other values (an
    unknown id of another length, a query too long by other amounts): each pair's messages
    must be the same (the seed's messages are constant)."""
    pairs = [
        (await ctx.get("mem_" + "a" * 52), await ctx.get("mem_" + "b" * 20)),
        (await ctx.search("q" * 8193), await ctx.search("\u00e9" * 5000)),
        (
            await ctx.admit(f"cand-unknown-{ctx.unique('a')}"),
            await ctx.admit(f"cand-{ctx.unique('b') * 3}"),
        ),
    ]
    for first, second in pairs:
        ctx.require(
            envelopes.code(first) is not None and envelopes.code(first) == envelopes.code(second),
            "both calls of a pair are refused with one code",
            [first.summary(), second.summary()],
        )
        messages = [_message(observed) for observed in (first, second)]
        ctx.expect(
            "ERR-004",
            messages[0] == messages[1],
            expected=f"one message for {first.tool}'s {envelopes.code(first)} "
            "whatever the values sent",
            observed=messages,
        )


def _message(observed: Observation) -> Any:
    error = _error(observed)
    return error.get("message") if error is not None else observed.error_message
