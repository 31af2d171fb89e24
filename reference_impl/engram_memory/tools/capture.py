"""engram_memory_capture: seal cited material as a pending candidate."""

from __future__ import annotations

import base64
import os
from typing import Any

from engram_conformance.spec.engram_memory import canonical_json, check_clock, digest, instant_ms

from ..envelope import Refusal
from ..store import Candidate
from .call import Call
from .mutation import mutate


def capture(call: Call) -> dict[str, Any]:
    return mutate(call, _commit)


def _check_host_policy(call: Call, payload: dict[str, Any]) -> None:
    """Retention ceiling, ``retain`` permission and reconciliation consent (UNAUTHORIZED)."""
    policy = call.policy
    retention = payload.get("retention")
    if retention is not None:
        if retention["derivative_rule"] == "retain" and not policy.retain_allowed:
            raise Refusal("UNAUTHORIZED")
        ceiling_ms = call.now_ms + policy.retention_ceiling_s * 1000
        if "expires_at" in retention and instant_ms(retention["expires_at"]) > ceiling_ms:
            raise Refusal("UNAUTHORIZED")
    families = payload.get("reconciliation", {}).get("family_refs", [])
    if not set(families) <= policy.reconciliation_families:
        raise Refusal("UNAUTHORIZED")


def _commit(call: Call) -> dict[str, Any]:
    clock = check_clock(call.tool, call.arguments, call.now_ms, spec=call.spec)
    if not clock.ok:
        raise Refusal(clock.code)
    payload, evidence = call.arguments["payload"], call.arguments["evidence"]
    _check_host_policy(call, payload)
    candidate_id = "cand_" + base64.b32encode(os.urandom(20)).decode().lower()
    material = canonical_json({"payload": payload, "evidence": evidence})
    sealed = call.sealer.seal(candidate_id, material)
    cursor = call.store.append_event(call.scope, "capture", candidate_id, call.now_ms)
    candidate = Candidate(candidate_id, "pending", digest(payload), cursor, sealed)
    call.store.insert_candidate(call.scope, candidate, sealed)
    return {
        "status": "committed_pending",
        "candidate_id": candidate_id,
        "cursor": str(cursor),
        "transaction_receipt_digest": digest({"kind": "transaction", "cursor": str(cursor)}),
    }
