"""Each envelope and error check fires on a server that breaks its rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from ..conformance.inprocess import ServiceProxy, broken_verdict, run_against
from .wiring import WiringMutant, plant


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


class MessageNamesTheTarget(ServiceProxy):
    """NOT_FOUND's message names the record_id or candidate_id it did not find: it echoes the
    input (ENV-007)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        error = envelope.get("error")
        sent = arguments if isinstance(arguments, dict) else {}
        target = sent.get("record_id", sent.get("candidate_id"))
        if error and error["code"] == "NOT_FOUND" and isinstance(target, str):
            return {**envelope, "error": {**error, "message": f"{error['message']}: {target}"}}
        return envelope


class TextCarriesTheValue(WiringMutant):
    """The text content carries the output value (or the error) alone, while structuredContent
    carries the envelope (ENV-004)."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        result = await super().call_tool(ctx, params)
        envelope = result.structured_content or {}
        inner = envelope["output"]["value"] if envelope.get("ok") else envelope.get("error")
        text = types.TextContent(type="text", text=json.dumps(inner, ensure_ascii=False))
        return result.model_copy(update={"content": [text]})


@pytest.mark.parametrize(
    ("mutant", "rule"),
    [
        (WrongAuditId, "ENV-006"),
        (ExtraEnvelopeField, "ENV-003"),
        (WrongRetriable, "ERR-003"),
        (MessageNamesTheTarget, "ENV-007"),
        (TextCarriesTheValue, "ENV-004"),
    ],
)
def test_envelope_mutant_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mutant: type, rule: str
) -> None:
    result = run_against(tmp_path, only=("ENV", "ERR"), **plant(monkeypatch, mutant))
    assert result.verdicts[rule].verdict == broken_verdict(rule), result.verdicts[rule]
