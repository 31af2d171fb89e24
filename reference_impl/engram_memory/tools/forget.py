"""engram_memory_forget: tombstone a record; its text leaves the search index and every file.

``projection_invalidation`` says whether the text is gone from every state file when the answer
is sent: "complete" once the WAL, which holds every page the forget transaction overwrote, has
been checkpointed and truncated after the commit; "pending" when another connection kept the
checkpoint from completing (a later forget or a clean stop finishes it). A replay answers the
same receipt, with the erasure as it stands then.
"""

from __future__ import annotations

from typing import Any

from ..envelope import Refusal
from .call import Call
from .mutation import lifecycle_receipt, mutate


def forget(call: Call) -> dict[str, Any]:
    answer = mutate(call, _forget)
    erased = call.store.checkpoint()
    return {**answer, "projection_invalidation": "complete" if erased else "pending"}


def _forget(call: Call) -> dict[str, Any]:
    record_id = call.arguments["record_id"]
    stored = call.store.record(call.scope, record_id)
    if stored is None:
        raise Refusal("NOT_FOUND")
    if stored.state == "tombstoned":
        raise Refusal("ALREADY_TERMINAL")
    from_state = stored.state
    if stored.expires_at_ms is not None and stored.expires_at_ms <= call.now_ms:
        from_state = "expired"  # retention expiry moved it to expired (DESIGN, States and time)
    cursor = call.store.append_event(call.scope, "tombstone", record_id, call.now_ms)
    call.store.tombstone(stored)
    receipt = lifecycle_receipt(call, "tombstone", from_state, "tombstoned", record_id, cursor)
    return {"receipt": receipt, "replayed": False, "projection_invalidation": "pending"}
