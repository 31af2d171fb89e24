"""Search and get answers rewritten as a broken server would send them (search, paging, redaction).

A mutant that changes what search or get returns also recomputes the digest that seals the value
(search: ``response_digest``, get: ``packet_digest``), as the server would: so only the rule the
mutant breaks is broken.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engram_conformance.reference_impl.engram_memory.envelope import failure
from engram_conformance.spec.engram_memory import digest, load
from engram_conformance.spec.engram_memory.tool_names import GET, SEARCH

SEALS = {SEARCH: "response_digest", GET: "packet_digest"}

Packet = dict[str, Any]


def value_of(envelope: dict[str, Any]) -> dict[str, Any]:
    return envelope["output"]["value"]


def with_value(tool: str, envelope: dict[str, Any], value: dict[str, Any]) -> dict[str, Any]:
    """``envelope`` answering ``value``, sealed again."""
    seal = SEALS[tool]
    rest = {k: v for k, v in value.items() if k != seal}
    return {**envelope, "output": {**envelope["output"], "value": {**rest, seal: digest(rest)}}}


def with_packets(envelope: dict[str, Any], packets: list[Packet]) -> dict[str, Any]:
    """A search envelope answering ``packets``."""
    return with_value(SEARCH, envelope, {**value_of(envelope), "records": packets})


def ranked(packets: list[Packet], first: int) -> list[Packet]:
    """``packets`` with ranks renumbered from ``first``."""
    return [{**packet, "rank": rank} for rank, packet in enumerate(packets, start=first)]


def each_packet(
    tool: str, envelope: dict[str, Any], change: Callable[[Packet], Packet]
) -> dict[str, Any]:
    """``envelope`` with ``change`` applied to each packet (search) or to the value (get)."""
    if tool not in SEALS or not envelope["ok"]:
        return envelope
    if tool == GET:
        return with_value(GET, envelope, change(value_of(envelope)))
    return with_packets(envelope, [change(packet) for packet in value_of(envelope)["records"]])


def refused(envelope: dict[str, Any], code: str) -> dict[str, Any]:
    """The error envelope of ``code`` for the same call."""
    return failure(load(), code, envelope["auditId"])
