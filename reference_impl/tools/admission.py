"""engram_memory_request_admission: the reference admission policy decides a pending candidate.

It accepts a clean capture and rejects one carrying a credential. The tombstone guard keeps an
otherwise accepting decision at ``pending_adjudication`` when the payload equals a record
forgotten in the same scope; that outcome writes nothing and leaves the candidate pending.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from cryptography.exceptions import InvalidTag
from engram_conformance.spec import digest, instant_ms

from ..credentials import carries_credential
from ..envelope import Refusal
from ..records import build_record, searchable_text
from .call import Call
from .mutation import mutate

POLICY = "engram-reference:accept-clean:v1"


def request_admission(call: Call) -> dict[str, Any]:
    return mutate(call, _decide)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _decide(call: Call) -> dict[str, Any]:
    candidate_id = call.arguments["candidate_id"]
    candidate = call.store.candidate(call.scope, candidate_id)
    if candidate is None:
        raise Refusal("NOT_FOUND")
    if candidate.state != "pending" or candidate.sealed is None:
        raise Refusal("ILLEGAL_TRANSITION")
    try:
        material = json.loads(call.sealer.open(candidate_id, candidate.sealed))
    except InvalidTag:  # the ciphertext or its wrapped key is damaged: no retry will open it
        raise Refusal("BLOB_MISSING") from None
    payload, evidence = material["payload"], material["evidence"]
    outcome: dict[str, Any] = {"candidate_id": candidate_id}
    if carries_credential(_strings(material)):
        cursor = call.store.append_event(call.scope, "reject", candidate_id, call.now_ms)
        call.store.end_candidate(candidate_id, "rejected")
        outcome["status"] = "rejected"
    elif call.store.tombstoned_payload(call.scope, candidate.payload_digest):
        cursor = candidate.created_cursor
        outcome["status"] = "pending_adjudication"
    else:
        cursor = call.store.append_event(call.scope, "accept", candidate_id, call.now_ms)
        record = build_record(payload, evidence, cursor, call.now_ms)
        expires_at = payload.get("retention", {}).get("expires_at")
        expires_at_ms = instant_ms(expires_at) if expires_at else None
        call.store.insert_record(call.scope, record, searchable_text(record), expires_at_ms)
        call.store.end_candidate(candidate_id, "accepted")
        outcome["status"] = "accepted"
        outcome["record_id"] = record["record_id"]
    outcome["cursor"] = str(cursor)
    outcome["decision_receipt_digest"] = digest(
        {"kind": "admission-decision", "policy": POLICY, **outcome}
    )
    outcome["transaction_receipt_digest"] = digest({"kind": "transaction", "cursor": str(cursor)})
    return {"outcome": outcome, "replayed": False}
