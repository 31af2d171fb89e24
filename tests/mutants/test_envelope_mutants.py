"""Each envelope and error check fires on a server that breaks its rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..conformance.inprocess import ServiceProxy, broken_verdict, run_against


class WrongAuditId(ServiceProxy):
    """auditId is not the bound audit_id (ENV-006)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        return {**envelope, "auditId": "audit-made-up"}


class ExtraEnvelopeField(ServiceProxy):
    """The envelope carries a field the contract does not have (ENV-003)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        return {**envelope, "debug": True}


class WrongRetriable(ServiceProxy):
    """NOT_FOUND is answered retriable (ERR-003)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        error = envelope.get("error")
        if error and error["code"] == "NOT_FOUND":
            return {**envelope, "error": {**error, "retriable": True}}
        return envelope


@pytest.mark.parametrize(
    ("mutant", "rule"),
    [(WrongAuditId, "ENV-006"), (ExtraEnvelopeField, "ENV-003"), (WrongRetriable, "ERR-003")],
)
def test_envelope_mutant_is_caught(tmp_path: Path, mutant: type[ServiceProxy], rule: str) -> None:
    result = run_against(tmp_path, service_mutant=mutant, only=("ENV", "ERR"))
    assert result.verdicts[rule].verdict == broken_verdict(rule), result.verdicts[rule]
