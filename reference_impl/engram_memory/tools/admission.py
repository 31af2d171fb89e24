"""engram_memory_request_admission: the reference admission policy decides a pending candidate.

It accepts a clean capture and rejects one carrying a credential. The tombstone guard keeps an
otherwise accepting decision at ``pending_adjudication`` when the payload equals a record
forgotten in the same scope; that outcome writes nothing and leaves the candidate pending.

The candidate is opened and scanned for credentials before the write transaction (a scan of a
megabyte takes a while, and the write lock is the whole state folder's); the transaction then
reads the candidate again and uses that scan only if it is still the very same pending candidate.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidTag
from engram_conformance.spec.engram_memory import digest, instant_ms

from ..credentials import carries_credential
from ..envelope import Refusal
from ..records import build_record, searchable_text
from ..sealing import Sealed
from ..store import Candidate
from .call import Call
from .mutation import mutate

POLICY = "engram-reference:accept-clean:v1"


def request_admission(call: Call) -> dict[str, Any]:
    """The decision, with the credential scan (and the unsealing it needs) done before the
    write transaction, so that a long scan never holds the write lock."""
    scanned = _scan_before(call)
    return mutate(call, lambda call: _decide(call, scanned))


@dataclass(frozen=True)
class Scanned:
    """A pending candidate as it was read, its material and whether a credential is in it;
    ``material`` is None when the sealed material does not open."""

    candidate: Candidate
    material: dict[str, Any] | None
    carries: bool


def _scan_before(call: Call) -> Scanned | None:
    """The scan of the candidate as it stands before the transaction; None when there is
    nothing to scan (no such candidate, not pending) or the scan failed: the transaction then
    decides, or scans again and fails there, exactly as it did before the scan moved out."""
    candidate = call.store.candidate(call.scope, call.arguments["candidate_id"])
    if candidate is None or candidate.state != "pending" or candidate.sealed is None:
        return None
    try:
        return _scan(call, candidate, candidate.sealed)
    except Exception:  # a fault of the stored material, answered in the transaction
        return None


def _scan(call: Call, candidate: Candidate, sealed: Sealed) -> Scanned:
    try:
        material = json.loads(call.sealer.open(candidate.candidate_id, sealed))
    except InvalidTag:  # the ciphertext or its wrapped key is damaged: no retry will open it
        return Scanned(candidate, None, carries=False)
    return Scanned(candidate, material, carries_credential(*_texts(material)))


def _texts(material: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The component texts in order and the attestation, read run together (a credential split
    between two of them is seen); and every other string of the material, read each alone."""
    payload, evidence = material["payload"], material["evidence"]
    components = payload["components"]
    texts = [component["text"] for component in components]
    texts += [evidence["attestation"]] if "attestation" in evidence else []
    rest = [
        {key: value for key, value in payload.items() if key != "components"},
        [{key: value for key, value in item.items() if key != "text"} for item in components],
        {key: value for key, value in evidence.items() if key != "attestation"},
    ]
    return texts, list(_strings(rest))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _decide(call: Call, scanned: Scanned | None) -> dict[str, Any]:
    candidate_id = call.arguments["candidate_id"]
    candidate = call.store.candidate(call.scope, candidate_id)
    if candidate is None:
        raise Refusal("NOT_FOUND")
    if candidate.state != "pending" or candidate.sealed is None:
        raise Refusal("ILLEGAL_TRANSITION")
    if scanned is None or scanned.candidate != candidate:  # it changed since: scan it now
        scanned = _scan(call, candidate, candidate.sealed)
    if scanned.material is None:
        raise Refusal("BLOB_MISSING")
    payload, evidence = scanned.material["payload"], scanned.material["evidence"]
    outcome: dict[str, Any] = {"candidate_id": candidate_id}
    if scanned.carries:
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
