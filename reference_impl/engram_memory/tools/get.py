"""engram_memory_get: read one current record of the scope, with a read receipt."""

from __future__ import annotations

from typing import Any

from engram_conformance.spec.engram_memory import canonical_json, digest, instant

from ..envelope import Refusal
from ..records import is_current, sealed_digest
from ..redaction import packet
from .call import Call
from .mutation import authorization_digest

DEFAULT_MAX_PACKET_BYTES = 65_536


def get(call: Call) -> dict[str, Any]:
    stored = call.store.record(call.scope, call.arguments["record_id"])
    eligible = (
        stored is not None
        and stored.state == "accepted_current"
        and is_current(stored.valid_t, stored.valid_t_end, call.now_ms)
        and (stored.expires_at_ms is None or call.now_ms < stored.expires_at_ms)
    )
    if not eligible:  # unknown, another scope's, or not currently eligible: one answer
        raise Refusal("NOT_FOUND")
    record = stored.record
    cursor = str(call.store.high_water(call.scope))
    read_receipt = sealed_digest(
        {
            "record_id": record["record_id"],
            "record_digest": record["record_digest"],
            "valid_as_of": call.now_ms,
            "system_as_of": cursor,
            "validated_through_cursor": cursor,
            "authorization_receipt_digest": authorization_digest(call),
            "revalidation_receipt_digest": digest(
                {"kind": "revalidation", "record_id": record["record_id"], "cursor": cursor}
            ),
            "checked_at": instant(call.now_ms),
        },
        "receipt_digest",
    )
    value = sealed_digest(
        {**packet(record, call.policy.redacted_fields), "read_receipt": read_receipt},
        "packet_digest",
    )
    budget = call.arguments.get("max_packet_bytes", DEFAULT_MAX_PACKET_BYTES)
    if len(canonical_json(value)) > budget:
        raise Refusal("PROJECTION_OVERSIZED")
    return value
