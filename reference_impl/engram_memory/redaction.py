"""Field redaction of returned records (DESIGN.md, Finer points / Redaction).

The reference removes only the top-level fields its policy lists; ``record_id`` always stays.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engram_conformance.spec.engram_memory import digest


def pointer(field: str) -> str:
    return "/" + field.replace("~", "~0").replace("/", "~1")


def packet(record: dict[str, Any], hidden: Iterable[str]) -> dict[str, Any]:
    """``{record, redacted_fields, redaction_receipt_digest}`` for one record."""
    removed = sorted(field for field in set(hidden) & set(record) if field != "record_id")
    redacted_fields = sorted(pointer(field) for field in removed)
    receipt = {
        "kind": "redaction",
        "record_id": record["record_id"],
        "record_digest": record["record_digest"],
        "redacted_fields": redacted_fields,
    }
    return {
        "record": {k: v for k, v in record.items() if k not in removed},
        "redacted_fields": redacted_fields,
        "redaction_receipt_digest": digest(receipt),
    }
