"""engram_memory_withdraw: end a pending candidate and destroy its data key."""

from __future__ import annotations

from typing import Any

from ..envelope import Refusal
from .call import Call
from .mutation import lifecycle_receipt, mutate


def withdraw(call: Call) -> dict[str, Any]:
    return mutate(call, _withdraw)


def _withdraw(call: Call) -> dict[str, Any]:
    candidate_id = call.arguments["candidate_id"]
    candidate = call.store.candidate(call.scope, candidate_id)
    if candidate is None:
        raise Refusal("NOT_FOUND")
    if candidate.state != "pending":
        raise Refusal("ILLEGAL_TRANSITION")
    cursor = call.store.append_event(call.scope, "withdraw", candidate_id, call.now_ms)
    call.store.end_candidate(candidate_id, "withdrawn")
    receipt = lifecycle_receipt(call, "withdraw", "pending", "withdrawn", candidate_id, cursor)
    return {"receipt": receipt, "replayed": False, "key_destruction": "complete"}
