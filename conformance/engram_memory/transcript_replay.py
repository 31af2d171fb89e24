"""Replay a failure's transcript against a server and show where the answers differ.

Each recorded call is sent again in order. Contexts are signed anew with every time claim moved
by the same offset (so an approval made 40 s before the call is again 40 s old); a context the
check forged on purpose is sent as recorded. Ids the server issues (candidate ids, record ids,
page cursors) are mapped from the recording's to the replay's, so later calls address what the
replay created; a confirmation that was valid for its call is re-bound to the re-mapped call.
Answers are compared with the fields that differ on every run masked.
"""

from __future__ import annotations

import json
from typing import Any

import jwt
from engram_conformance.spec.engram_memory import (
    instant,
    instant_ms,
    operation_digest,
    wall_clock_ms,
)

from ..session import Session
from ..transcripts import Replayed, compared
from .signed_meta import ContextSigner

ISSUED = ("candidate_id", "record_id", "next_page_cursor")
VARYING = {
    "auditId",
    "cursor",
    "issued_at",
    "checked_at",
    "recorded_at",
    "recorded_cursor",
    "valid_as_of",
    "system_as_of",
    "validated_through_cursor",
    "event_id",
    *ISSUED,
}
TIME_CLAIMS = ("iat", "exp")


def masked(value: Any) -> Any:
    """``value`` with what differs on every run masked; a JSON text copy is compared parsed."""
    if isinstance(value, str) and value.startswith("{"):
        try:
            return masked(json.loads(value))
        except ValueError:
            return value
    if isinstance(value, dict):
        return {
            k: "<varies>" if k in VARYING or k.endswith("_digest") else masked(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [masked(item) for item in value]
    return value


def _learn(recorded: Any, replayed: Any, ids: dict[str, str]) -> None:
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for key, value in recorded.items():
            if key in ISSUED and isinstance(value, str) and isinstance(replayed.get(key), str):
                ids[value] = replayed[key]
            else:
                _learn(value, replayed.get(key), ids)
    elif isinstance(recorded, list) and isinstance(replayed, list):
        for old, new in zip(recorded, replayed, strict=False):
            _learn(old, new, ids)


def _mapped(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, str):
        return ids.get(value, value)
    if isinstance(value, dict):
        return {k: _mapped(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_mapped(item, ids) for item in value]
    return value


def _shift_instant(text: Any, delta_ms: int) -> Any:
    try:
        return instant(instant_ms(text) + delta_ms)
    except (TypeError, ValueError):
        return text


def _claims_for_replay(
    entry: dict[str, Any], arguments: Any, ids: dict[str, str]
) -> dict[str, Any]:
    claims = dict(entry["claims"])
    delta_s = wall_clock_ms() // 1000 - claims.get("iat", 0)
    for name in TIME_CLAIMS:
        if isinstance(claims.get(name), int):
            claims[name] += delta_s
    if claims.get("deadline"):
        claims["deadline"] = _shift_instant(claims["deadline"], delta_s * 1000)
    approval = claims.get("confirmation")
    if isinstance(approval, dict):
        approval = {**approval, "target": _mapped(approval.get("target"), ids)}
        for name in ("approved_at", "expires_at"):
            approval[name] = _shift_instant(approval.get(name), delta_s * 1000)
        if approval.get("operation_digest") == operation_digest(entry["tool"], entry["arguments"]):
            approval["operation_digest"] = operation_digest(entry["tool"], arguments)
        claims["confirmation"] = approval
    return claims


def _was_forged(entry: dict[str, Any]) -> bool:
    """Whether the recorded ``_meta`` is not simply the recorded claims, signed."""
    token = (entry.get("meta") or {}).get("engram/invocation")
    if not isinstance(token, str):
        return True
    try:
        sent = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return True
    return sent != entry.get("claims")


async def replay(
    session: Session, signer: ContextSigner, entries: list[dict[str, Any]]
) -> list[Replayed]:
    ids: dict[str, str] = {}
    done = []
    for entry in entries:
        if entry["method"] == "tools/list":
            observed, _ = await session.list_tools(entry.get("meta"))
        else:
            arguments = _mapped(entry["arguments"], ids)
            if entry.get("claims") is None or _was_forged(entry):
                meta, claims = entry.get("meta"), entry.get("claims")
            else:
                claims = _claims_for_replay(entry, arguments, ids)
                meta = signer.meta(claims)
            observed = await session.call(entry["tool"], arguments, meta, claims)
        _learn(entry["answer"], observed.answer(), ids)
        done.append(compared(entry, observed, masked))
    return done
