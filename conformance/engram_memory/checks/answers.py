"""Reading answers: the packets and record ids of a search answer, searches and gets that must
answer ok, and the rules an answer's schema enforces. The search, paging, redaction, envelope
and error checks share them.
"""

from __future__ import annotations

from typing import Any

from engram_conformance.spec.engram_memory import (
    Spec,
    canonical_json,
    output_breaches,
    schema_rules,
)
from engram_conformance.strategies.engram_memory import envelopes

from ...observation import Observation
from ...per_call_context import PerCallContext
from .context import CheckContext

DEFAULT_MAX_PACKET_BYTES = 65_536
LEXICAL = {"minimum_channels": "lexical", "network": "forbid"}
#: Argument strings shorter than this are too common to count as an echo of the input.
ECHO_MIN_LENGTH = 8


# answers ---------------------------------------------------------------------------------------
def packets(answer: Observation) -> list[dict[str, Any]]:
    """The record packets of a search answer (the ones that are objects)."""
    records = envelopes.value(answer).get("records")
    return [p for p in records if isinstance(p, dict)] if isinstance(records, list) else []


def record_of(packet: dict[str, Any]) -> dict[str, Any]:
    record = packet.get("record")
    return record if isinstance(record, dict) else {}


def ids(answer: Observation) -> list[Any]:
    """The record ids of a search answer, in packet order."""
    return [record_of(p).get("record_id") for p in packets(answer)]


def size(value: Any) -> int:
    """The JCS bytes of ``value``, what the byte budgets measure."""
    return len(canonical_json(value))


def without(value: dict[str, Any], *fields: str) -> dict[str, Any]:
    return {k: v for k, v in value.items() if k not in fields}


# steps -----------------------------------------------------------------------------------------
async def accept_all(ctx: CheckContext, texts: list[str]) -> list[str]:
    """The record ids of ``texts``, each captured and accepted (the check stops otherwise)."""
    return [await ctx.accepted(text) for text in texts]


async def searched(ctx: CheckContext, query: str, **arguments: Any) -> Observation:
    """A search that must answer ok (the check stops otherwise)."""
    answer = await ctx.search(query, **arguments)
    ctx.require(envelopes.ok(answer), f"search for {query!r} with {arguments} failed", answer)
    return answer


async def read(ctx: CheckContext, record_id: str, **arguments: Any) -> Observation:
    """A get that must answer ok (the check stops otherwise)."""
    answer = await ctx.get(record_id, **arguments)
    ctx.require(envelopes.ok(answer), f"get of the current record {record_id} failed", answer)
    return answer


# schemas ---------------------------------------------------------------------------------------
def expect_breaches(ctx: PerCallContext, schema_id: str, value: Any, *, what: str) -> None:
    """One expectation per rule that the constraints of ``schema_id`` enforce: none of its
    constraints broken by ``value``. The per-call check's memory keeps each schema's rules for
    the run."""
    spec: Spec = ctx.spec
    key = ("rules", schema_id)
    if key not in ctx.memory:  # not ``setdefault``: that would walk the schema on every call
        ctx.memory[key] = schema_rules(spec, schema_id)
    rules = ctx.memory[key]
    breaches = output_breaches(spec, schema_id, value)
    for rule in rules:
        broken = [str(breach) for breach in breaches if breach.rule == rule]
        ctx.expect(rule, not broken, expected=f"{what} ({rule})", observed=broken[:5])
