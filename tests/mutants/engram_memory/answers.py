"""Answers a mutant reads or makes instead of the reference's: a success's value, a copy edited,
a refusal, a receipt forged. (Search and get answers, which a seal covers: ``search_answers``.)
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from engram_conformance.reference_impl.engram_memory.envelope import failure, success
from engram_conformance.spec.engram_memory import load

SOME_DIGEST = "sha256:" + "0" * 64


def value(envelope: dict[str, Any]) -> dict[str, Any]:
    """The output value of a success; empty for an error."""
    return envelope["output"]["value"] if envelope["ok"] else {}


def status(envelope: dict[str, Any]) -> str | None:
    """The outcome status of an admission envelope (None for an error)."""
    return envelope["output"]["value"]["outcome"]["status"] if envelope["ok"] else None


def edited(envelope: dict[str, Any], edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """A copy of a success ``envelope`` whose output value ``edit`` changed (errors unchanged)."""
    if not envelope.get("ok"):
        return envelope
    changed = copy.deepcopy(envelope)
    edit(changed["output"]["value"])
    return changed


def refusal(code: str, context: Any) -> dict[str, Any]:
    """The reference's error envelope of ``code`` answering the call bound to ``context``."""
    return failure(load(), code, context.audit_id)


def forged_receipt(context: Any, operation: str, from_state: str, to_state: str) -> dict[str, Any]:
    """A success envelope with a well-formed lifecycle receipt for a transition never made."""
    receipt = {
        "event_id": "evt_forged",
        "operation": operation,
        "from_state": from_state,
        "to_state": to_state,
        "cursor": "0",
        "event_digest": SOME_DIGEST,
        "authorization_receipt_digest": SOME_DIGEST,
        "transaction_receipt_digest": SOME_DIGEST,
    }
    forged: dict[str, Any] = {"receipt": receipt, "replayed": False}
    if operation == "withdraw":
        forged["key_destruction"] = "complete"
    else:
        forged["projection_invalidation"] = "complete"
    return success(forged, context.audit_id)
