"""Checks of the redaction rules, on the packets search and get answer for records just written.

A record carries its capture payload's fields plus the writer's fields; whatever of those is
missing must be named in ``redacted_fields``, and what the deployment hides is what its
descriptor declares (``[policy] redacted_fields``, default nothing).
"""

from __future__ import annotations

import re
from typing import Any

from engram_conformance.strategies.engram_memory import envelopes

from .answers import accept_all, packets, read, record_of, searched
from .context import ADMIT, CAPTURE, GET, SEARCH, CheckContext
from .registry import check

POINTER = re.compile(r"/(?:[^/~]|~[01])*")
WRITER_FIELDS = frozenset({"payload_digest", "record_digest", "recorded_at", "trust"})
TOOLS = (SEARCH, GET, CAPTURE, ADMIT)


def field_of(pointer: str) -> str:
    """The top-level field a JSON Pointer (RFC 6901) names."""
    return pointer[1:].replace("~1", "/").replace("~0", "~")


def listed_fields(packet: dict[str, Any]) -> set[str] | None:
    """The fields ``redacted_fields`` names, or None when it is not an array of pointers."""
    listed = packet.get("redacted_fields")
    if not isinstance(listed, list) or not all(
        isinstance(p, str) and POINTER.fullmatch(p) for p in listed
    ):
        return None
    return {field_of(p) for p in listed}


def carried_fields(ctx: CheckContext) -> frozenset[str]:
    """The fields an unredacted record of ``ctx.accepted`` carries: its payload's and the writer's.

    ``ctx.accepted`` captures ``ctx.capture_arguments``, whose payload has the same fields for
    every text.
    """
    return frozenset(ctx.capture_arguments()["payload"]) | WRITER_FIELDS


async def returned_packets(ctx: CheckContext) -> list[tuple[str, dict[str, Any]]]:
    """(tool, packet) for two records just accepted: their search packets and get answers."""
    term = ctx.unique("redaction")
    record_ids = await accept_all(ctx, [f"redaction {term} {n}" for n in range(2)])
    found = packets(await searched(ctx, term))
    ctx.require(len(found) == len(record_ids), "search did not find the records", found)
    reads = [envelopes.value(await read(ctx, record_id)) for record_id in record_ids]
    return [("search", packet) for packet in found] + [("get", value) for value in reads]


@check(rules=("REDACT-001", "REDACT-004"), tools=TOOLS)
async def packets_keep_record_id_and_receipt(ctx: CheckContext) -> None:
    for tool, packet in await returned_packets(ctx):
        ctx.expect(
            "REDACT-001",
            isinstance(record_of(packet).get("record_id"), str),
            expected=f"{tool}: record.record_id present",
            observed=packet,
        )
        ctx.expect(
            "REDACT-004",
            "redaction_receipt_digest" in packet,
            expected=f"{tool}: redaction_receipt_digest present (its form is ENV-013's)",
            observed=packet,
        )


@check(rules=("REDACT-002", "REDACT-003"), tools=TOOLS)
async def redacted_fields_name_exactly_the_missing_fields(ctx: CheckContext) -> None:
    carried = carried_fields(ctx)
    for tool, packet in await returned_packets(ctx):
        pointers = packet.get("redacted_fields")
        listed = listed_fields(packet)
        ctx.expect(
            "REDACT-002",
            # a list whenever listed is not None (``listed_fields``)
            listed is not None and isinstance(pointers, list) and pointers == sorted(set(pointers)),
            expected=f"{tool}: redacted_fields a sorted array of distinct top-level pointers",
            observed=repr(pointers),
        )
        if listed is None:
            continue
        record = record_of(packet)
        ctx.expect(
            "REDACT-002",
            not listed & set(record),
            expected=f"{tool}: no field redacted_fields names is in the record",
            observed=sorted(listed & set(record)),
        )
        unlisted = sorted(carried - set(record) - listed)
        ctx.expect(
            "REDACT-003",
            not unlisted,
            expected=f"{tool}: every field missing from the record listed in redacted_fields",
            observed=f"missing and not listed: {unlisted}",
        )


@check(rules=("REDACT-005",), tools=TOOLS)
async def redaction_hides_exactly_the_declared_fields(ctx: CheckContext) -> None:
    """The record lacks, and redacted_fields lists, exactly what the descriptor declares hidden.

    By default nothing: redacted_fields [] and the full record. record_id is REDACT-001's: a
    declared record_id may be listed, and its presence is not held against this rule.
    """
    declared = ctx.policy.redacted_fields
    hidden = declared - {"record_id"}
    carried = carried_fields(ctx)
    for tool, packet in await returned_packets(ctx):
        listed = listed_fields(packet)
        ctx.expect(
            "REDACT-005",
            listed is not None and listed <= declared,
            expected=f"{tool}: redacted_fields naming only the declared {sorted(declared)}",
            observed=repr(packet.get("redacted_fields")),
        )
        record = set(record_of(packet))
        ctx.expect(
            "REDACT-005",
            not hidden & record and carried - hidden <= record,
            expected=f"{tool}: a record without {sorted(hidden)} and with every other field",
            observed={
                "declared but present": sorted(hidden & record),
                "missing": sorted(carried - hidden - record),
            },
        )
