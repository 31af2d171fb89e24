"""Idempotent mutations: one transaction that replays, conflicts, or performs and reserves.

The identity is (tenant, workspace, principal, idempotency_key). The same key with the same tool
and arguments replays the first answer (capture: ``duplicate_exact``; the others: ``replayed``);
with another tool, target or content it is ``DIGEST_CONFLICT``. A refusal raised while performing
rolls the whole transaction back, so an error writes nothing and reserves nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engram_conformance.spec.engram_memory import digest, operation_digest

from ..envelope import Refusal
from ..store import Reservation
from .call import Call

CAPTURE = "engram_memory_capture"


def replay_of(tool: str, first: dict[str, Any]) -> dict[str, Any]:
    if tool == CAPTURE:
        return {**first, "status": "duplicate_exact"}
    return {**first, "replayed": True}


def mutate(call: Call, perform: Callable[[Call], dict[str, Any]]) -> dict[str, Any]:
    key = call.arguments["idempotency_key"]
    request = operation_digest(call.tool, call.arguments)
    principal = call.context.principal
    with call.store.write():
        prior = call.store.reservation(call.scope, principal, key)
        if prior is not None:
            if (prior.tool, prior.request_digest) != (call.tool, request):
                raise Refusal("DIGEST_CONFLICT")
            return replay_of(call.tool, prior.value)
        value = perform(call)
        call.store.reserve(call.scope, principal, key, Reservation(call.tool, request, value))
        return value


def authorization_digest(call: Call) -> str:
    """A receipt of who the host bound this call to, without revealing any of it."""
    context = call.context
    bound = {
        "tenant": context.tenant,
        "workspace": context.workspace,
        "principal": context.principal,
        "agent_id": context.agent_id,
        "session": context.session,
        "audit_id": context.audit_id,
        "tool": call.tool,
    }
    return digest({"kind": "authorization", "bound": bound})


def lifecycle_receipt(
    call: Call, operation: str, from_state: str, to_state: str, target: str, cursor: int
) -> dict[str, Any]:
    """The receipt of a withdraw or forget transition."""
    event = {
        "event_id": f"evt_{cursor}",
        "operation": operation,
        "from_state": from_state,
        "to_state": to_state,
        "cursor": str(cursor),
    }
    return {
        **event,
        "event_digest": digest({**event, "target": target}),
        "authorization_receipt_digest": authorization_digest(call),
        "transaction_receipt_digest": digest({"kind": "transaction", "cursor": event["cursor"]}),
    }
