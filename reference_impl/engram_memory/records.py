"""Records as the reference writes them: ids, digests, instants (DESIGN.md, Decisions / Digests)."""

from __future__ import annotations

import base64
from typing import Any

from engram_conformance.spec.engram_memory import digest, instant

VERIFIER_ID = "engram-reference:asserted"


def record_id_of(record_digest: str) -> str:
    """``mem_`` + lowercase unpadded base32 of the 32 digest bytes (56 characters)."""
    raw = bytes.fromhex(record_digest.removeprefix("sha256:"))
    return "mem_" + base64.b32encode(raw).decode().rstrip("=").lower()


def without(value: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in value.items() if k not in keys}


def sealed_digest(value: dict[str, Any], field: str) -> dict[str, Any]:
    """``value`` with ``field`` set to the digest of the rest of it."""
    return {**value, field: digest(without(value, field))}


def build_record(
    payload: dict[str, Any], evidence: dict[str, Any], cursor: int, now_ms: int
) -> dict[str, Any]:
    """The accepted record: the payload fields plus the writer's fields and the trust receipt.

    ``recorded_cursor`` (the scope's own counter) makes every record of a scope distinct, even of
    identical payloads admitted in the same millisecond; two scopes may hold the same record.
    ``record_digest`` covers the record without ``record_id`` and itself.
    """
    trust = sealed_digest(
        {
            "class": "asserted",
            "evidence_digest": evidence["evidence_digest"],
            "verifier_id": VERIFIER_ID,
            "verifier_version": "1",
            "issued_at": instant(now_ms),
            "revocation_epoch": "0",
        },
        "receipt_digest",
    )
    record = {
        **payload,
        "payload_digest": digest(payload),
        "recorded_at": instant(now_ms),
        "recorded_cursor": str(cursor),
        "trust": trust,
    }
    record_digest = digest(record)
    return {**record, "record_id": record_id_of(record_digest), "record_digest": record_digest}


def searchable_text(record: dict[str, Any]) -> str:
    """What the lexical index holds of a record: component texts and citation sources."""
    parts = [component["text"] for component in record["components"]]
    parts += [citation["source_ref"] for citation in record["citations"]]
    return "\n".join(parts)


def is_current(stored_valid_t: int, stored_valid_t_end: int | None, now_ms: int) -> bool:
    """Valid time decides currency (DESIGN.md, Finer points)."""
    return stored_valid_t <= now_ms and (stored_valid_t_end is None or now_ms <= stored_valid_t_end)
