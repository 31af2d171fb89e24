"""Per-call checks of error envelopes against the catalogue, and of success values' schemas."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from engram_conformance.spec import Spec

from ..observation import Observation
from .context import CheckContext
from .envelope import ECHO_MIN_LENGTH
from .registry import check, per_call

Expect = Callable[..., bool]


def _error(observed: Observation) -> dict[str, Any] | None:
    envelope = observed.envelope
    if observed.method != "tools/call" or envelope is None or envelope.get("ok") is not False:
        return None
    error = envelope.get("error")
    return error if isinstance(error, dict) else None


@per_call(rules=("ERR-001", "ERR-002", "ERR-003", "ERR-005"))
def error_matches_the_catalogue(
    spec: Spec, observed: Observation, expect: Expect, memory: dict[str, Any]
) -> None:
    error = _error(observed)
    if error is None:
        return
    code, message, retriable = error.get("code"), error.get("message"), error.get("retriable")
    expect(
        "ERR-001",
        isinstance(code, str)
        and bool(code)
        and isinstance(message, str)
        and bool(message)
        and isinstance(retriable, bool),
        expected="error.code and error.message non-empty strings, error.retriable a boolean",
        observed=error,
    )
    entry = spec.errors.get(code) if isinstance(code, str) else None
    expect(
        "ERR-002",
        entry is not None,
        expected="a code of the contract's error table",
        observed=repr(code),
    )
    if entry is None:
        return
    expect(
        "ERR-003",
        retriable is entry.retriable,
        expected=f"retriable {entry.retriable} for {code}",
        observed=f"retriable {retriable!r}",
    )
    expect(
        "ERR-005",
        observed.tool in entry.tools,
        expected=f"{code} only from {', '.join(entry.tools)}",
        observed=f"from {observed.tool}",
    )


@per_call(rules=("ERR-004",))
def error_message_is_constant_per_code(
    spec: Spec, observed: Observation, expect: Expect, memory: dict[str, Any]
) -> None:
    error = _error(observed)
    if error is None or not isinstance(error.get("code"), str):
        return
    first = memory.setdefault(error["code"], error.get("message"))
    expect(
        "ERR-004",
        error.get("message") == first,
        expected=f"the message first seen for {error['code']}: {first!r}",
        observed=repr(error.get("message")),
    )


@per_call(rules=("ENV-007",))
def error_message_never_echoes_input(
    spec: Spec, observed: Observation, expect: Expect, memory: dict[str, Any]
) -> None:
    error = _error(observed)
    if error is None or not isinstance(error.get("message"), str):
        return
    echoed = [
        s
        for s in _strings(observed.arguments)
        if len(s) >= ECHO_MIN_LENGTH and s in error["message"]
    ]
    expect(
        "ENV-007",
        not echoed,
        expected="a constant message naming nothing that was sent",
        observed=f"the message {error['message']!r} contains {echoed[0]!r}" if echoed else "",
    )


@per_call(rules=("ENV-009",))
def success_value_matches_the_output_schema(
    spec: Spec, observed: Observation, expect: Expect, memory: dict[str, Any]
) -> None:
    if not observed.ok or observed.tool not in spec.tools:
        return
    output = observed.envelope.get("output") if observed.envelope else None
    value = output.get("value") if isinstance(output, dict) else None
    errors = [
        f"{e.json_path}: {e.message}"
        for e in spec.output_validator(observed.tool).iter_errors(value)
    ]
    expect(
        "ENV-009",
        not errors,
        expected=f"an output value of {observed.tool} per spec/schemas",
        observed=errors[:5],
    )


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@check(rules=("ERR-006",), binding="signed-meta")
async def protocol_errors_are_provoked(ctx: CheckContext) -> None:
    """An unknown tool and a call without any context: the two protocol errors, whose messages
    the per-call check ``protocol_errors_carry_their_constant_messages`` judges."""
    unknown = await ctx.call("engram_memory_purge", {})
    missing = await ctx.call("engram_memory_search", {"query": "q", "purpose_ref": "p"}, meta={})
    for observed, code in ((unknown, -32602), (missing, -32603)):
        ctx.expect(
            "ERR-006", observed.code == code, expected=f"JSON-RPC error {code}", observed=observed
        )
