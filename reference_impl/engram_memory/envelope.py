"""The result envelope (contract text, section 2) and the refusal that becomes an error envelope."""

from __future__ import annotations

from typing import Any

from engram_conformance.spec.engram_memory import Spec

REDACTION_CLASS = "high"


class Refusal(Exception):
    """A call answered with an error envelope of ``code``; raising it inside a write rolls back."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def success(value: dict[str, Any], audit_id: str) -> dict[str, Any]:
    return {
        "ok": True,
        "output": {"schema_version": 1, "value": value},
        "auditId": audit_id,
        "redactionClass": REDACTION_CLASS,
    }


def failure(spec: Spec, code: str, audit_id: str) -> dict[str, Any]:
    """The error envelope: the catalogue's constant message and retriable flag, no input echoed."""
    error = spec.errors[code]
    return {
        "ok": False,
        "auditId": audit_id,
        "redactionClass": REDACTION_CLASS,
        "error": {"code": code, "message": error.message, "retriable": error.retriable},
    }
